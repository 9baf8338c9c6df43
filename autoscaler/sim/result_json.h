// `simulate --output json`: one object per run, with the figures a script or CI compares.
#ifndef GPUA_AUTOSCALER_SIM_RESULT_JSON_H_
#define GPUA_AUTOSCALER_SIM_RESULT_JSON_H_

#include <nlohmann/json.hpp>

#include "autoscaler/sim/simulation.h"
#include "autoscaler/sim/sweep_runner.h"

namespace gpua::sim {

// total_cost_usd, gpu_hours_billed/used/idle, idle_cost_usd, pending_seconds and
// gpu_pending_seconds (p50, p95, p99, max), scale_ups, repeat_scale_ups, scale_downs, preemptions,
// lower_bound_cost_usd, node_hours; and `groups`, by id, each with the same figures.
nlohmann::json ResultJson(const SimulationResult& result);

// A single run: its object. A sweep: a list of them, each with its "setting".
nlohmann::json ResultsJson(const std::vector<SettingResult>& results);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_RESULT_JSON_H_
