#include "autoscaler/cli/controller_command.h"

#include <atomic>
#include <csignal>

#include "autoscaler/cli/controller_flags.h"
#include "autoscaler/cli/controller_runner.h"

namespace gpua {
namespace {

std::atomic<bool> stop_requested{false};

void RequestStop(int) { stop_requested = true; }

}  // namespace

int RunControllerCommand(const CommandArgs& args, const CommandIo& io) {
  bool help = false;
  std::string usage;
  absl::StatusOr<ControllerConfig> config = ParseControllerFlags(args, &help, &usage);
  if (!config.ok()) {
    io.err << config.status().message() << "\n";
    return kExitUsage;
  }
  if (help) {
    io.out << "Usage: gpu-autoscaler [flags]\n\nRuns the controller: cluster-autoscaler's flags, "
              "names and defaults.\n\nFlags:\n"
           << usage;
    return kExitOk;
  }
  StderrLogSink log(io.clock);
  log.set_verbosity(config->verbosity);
  std::signal(SIGTERM, RequestStop);
  std::signal(SIGINT, RequestStop);
  return RunController(*config, io, log, stop_requested);
}

}  // namespace gpua
