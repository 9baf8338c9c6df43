#include "autoscaler/cli/app.h"

#include "absl/strings/str_format.h"
#include "autoscaler/cli/controller_command.h"
#include "autoscaler/cli/controller_flags.h"
#include "autoscaler/cli/estimate_command.h"
#include "autoscaler/cli/inspect_command.h"
#include "autoscaler/cli/plugin_check_command.h"
#include "autoscaler/cli/record_command.h"
#include "autoscaler/cli/simulate_command.h"

#ifndef GPUA_VERSION
#define GPUA_VERSION "unknown"
#endif

namespace gpua {
namespace {

void PrintUsage(std::ostream& out) {
  out << "gpu-autoscaler: an autoscaler for Kubernetes GPU node pools, with scale-to-zero.\n\n"
         "Usage:\n"
         "  gpu-autoscaler [controller flags]        run the controller\n"
         "  gpu-autoscaler <subcommand> [flags]      run one tool (--help on each)\n"
         "  gpu-autoscaler --help | --version\n\n"
         "Subcommands:\n";
  for (const Subcommand& s : Subcommands()) {
    out << absl::StrFormat("  %-14s %s\n", s.name, s.summary);
  }
  bool help = false;
  std::string flags;
  if (ParseControllerFlags({"--help"}, &help, &flags).ok()) {
    out << "\nController flags (cluster-autoscaler's names and defaults):\n" << flags;
  }
}

}  // namespace

const std::vector<Subcommand>& Subcommands() {
  static const std::vector<Subcommand> kSubcommands = {
      {"simulate", "what idle timeouts cost: the controller over a workload trace, simulated",
       RunSimulateCommand},
      {"estimate", "plan the nodes that would hold a set of pending pods", RunEstimateCommand},
      {"inspect", "show the nodes, GPUs and unschedulable pods the autoscaler sees",
       RunInspectCommand},
      {"record", "write a workload trace for simulate from a cluster's pods, or a kubectl dump",
       RunRecordCommand},
      {"plugin-check", "call every RPC of an externalgrpc provider plugin and report problems",
       RunPluginCheckCommand},
  };
  return kSubcommands;
}

int RunApp(const CommandArgs& args, const CommandIo& io) {
  std::ostream& out = io.out;
  std::ostream& err = io.err;
  if (!args.empty()) {
    const std::string& first = args.front();
    if (first == "--help" || first == "-help" || first == "-h" || first == "help") {
      PrintUsage(out);
      return 0;
    }
    if (first == "--version" || first == "-version") {
      out << "gpu-autoscaler " << GPUA_VERSION << "\n";
      return 0;
    }
    if (first.empty() || first[0] != '-') {
      for (const Subcommand& s : Subcommands()) {
        if (s.name == first) return s.run({args.begin() + 1, args.end()}, io);
      }
      err << "gpu-autoscaler: unknown subcommand \"" << first << "\" (see --help)\n";
      return kExitUsage;
    }
  }
  // No subcommand: the controller, with cluster-autoscaler's flags.
  return RunControllerCommand(args, io);
}

}  // namespace gpua
