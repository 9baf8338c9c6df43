// The controller in a cluster: the provider (an externalgrpc plugin, or the simulated cloud
// from a node-group file), the informers, the lease, /metrics and /health-check, and the
// loop, which runs when the schedule says (the scan interval, or about a second after a new
// unschedulable pod) and only while this replica holds the lease. Losing the lease stops it
// at once, as cluster-autoscaler exits, so a restart campaigns again.
#ifndef GPUA_AUTOSCALER_CLI_CONTROLLER_RUNNER_H_
#define GPUA_AUTOSCALER_CLI_CONTROLLER_RUNNER_H_

#include <atomic>
#include <functional>

#include "autoscaler/cli/command.h"
#include "autoscaler/cli/controller_flags.h"
#include "autoscaler/controller/report/loop_report.h"
#include "base/log.h"

namespace gpua {

struct RunnerHooks {
  // After each loop (tests and benchmarks watch the controller through it).
  std::function<void(const LoopReport&)> loop_done;
  // Once /metrics and /health-check listen, with their port.
  std::function<void(int port)> serving;
};

// Runs until `stop` is set (0) or the lease is lost or setting up fails (1).
int RunController(const ControllerConfig& config, const CommandIo& io, LogSink& log,
                  const std::atomic<bool>& stop, const RunnerHooks& hooks = {});

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_CONTROLLER_RUNNER_H_
