// Runs several simulations of one trace side by side (one per sweep setting), on as many
// threads as asked. Each run owns its cloud, cluster and controller, so the results are
// the same whatever the threads and their order.
#ifndef GPUA_AUTOSCALER_SIM_SWEEP_RUNNER_H_
#define GPUA_AUTOSCALER_SIM_SWEEP_RUNNER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "autoscaler/sim/simulation.h"
#include "autoscaler/sim/trace.h"

namespace gpua::sim {

struct Setting {
  std::string label;  // "scale-down-unneeded-time=5m"; empty for a single run
  SimulationOptions options;
};

struct SettingResult {
  std::string label;
  SimulationResult result;
};

// The results in the settings' order, or the first error (naming its setting). `progress`
// is called from the calling thread only, with the share of all runs done.
absl::StatusOr<std::vector<SettingResult>> SimulateAll(
    const Trace& trace, const std::vector<Setting>& settings, int threads,
    const std::function<void(double)>& progress = nullptr);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_SWEEP_RUNNER_H_
