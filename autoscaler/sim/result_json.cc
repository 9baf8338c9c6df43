#include "autoscaler/sim/result_json.h"

#include <cmath>

namespace gpua::sim {
namespace {

// Money to the cent and hours to the hundredth: finer digits are noise, not precision.
double Round(double v, double per_unit) { return std::round(v * per_unit) / per_unit; }

nlohmann::json PercentilesJson(const Percentiles& p) {
  return {{"p50", Round(p.p50, 10)},
          {"p95", Round(p.p95, 10)},
          {"p99", Round(p.p99, 10)},
          {"max", Round(p.max, 10)},
          {"pods", p.count}};
}

nlohmann::json IdleByCauseJson(const IdleGpuCount& idle) {
  nlohmann::json out = nlohmann::json::object();
  for (size_t c = 0; c < kIdleCauseCount; ++c) {
    out[std::string(IdleCauseName(static_cast<IdleCause>(c)))] = Round(idle.by_cause[c], 100);
  }
  return out;
}

nlohmann::json FiguresJson(const Figures& f) {
  return {{"total_cost_usd", Round(f.cost_usd, 100)},
          {"node_hours", Round(f.node_hours, 100)},
          {"gpu_hours_billed", Round(f.gpu_hours_billed, 100)},
          {"gpu_hours_used", Round(f.gpu_hours_used, 100)},
          {"gpu_hours_idle", Round(f.gpu_hours_idle, 100)},
          {"idle_cost_usd", Round(f.idle_cost_usd, 100)},
          {"idle_gpu_hours_by_cause", IdleByCauseJson(f.idle_by_cause)},
          {"share_spread_node_hours", Round(f.share_spread_node_hours, 100)},
          {"lower_bound_cost_usd", Round(f.lower_bound_cost_usd, 100)},
          {"packing_bound_cost_usd", Round(f.packing_bound_cost_usd, 100)},
          {"pending_seconds", PercentilesJson(f.pending)},
          {"gpu_pending_seconds", PercentilesJson(f.gpu_pending)},
          {"scale_ups", f.scale_ups},
          {"repeat_scale_ups", f.repeat_scale_ups},
          {"replacements", f.replacements},
          {"scale_downs", f.scale_downs},
          {"preemptions", f.preemptions},
          {"gpu_failures", f.gpu_failures},
          {"repairs", f.repairs},
          {"broken_node_hours", f.broken_node_hours},
          {"broken_cost_usd", f.broken_cost_usd}};
}

}  // namespace

nlohmann::json ResultJson(const SimulationResult& r) {
  nlohmann::json out = FiguresJson(r.total);
  nlohmann::json groups = nlohmann::json::object();
  for (const GroupFigures& g : r.groups) groups[g.id] = FiguresJson(g.figures);
  out["groups"] = std::move(groups);
  out["simulated_seconds"] = absl::ToInt64Seconds(r.simulated);
  out["pods"] = r.pods;
  out["pods_arrived"] = r.pods_arrived;
  out["pods_finished"] = r.pods_finished;
  out["pods_restarted"] = r.pods_restarted;
  out["pods_without_group"] = r.pods_without_group;
  if (r.total.gpu_failures > 0) {
    out["repair"] = {{"time_to_repair_seconds",
                      {{"p50", r.time_to_repair.p50},
                       {"p95", r.time_to_repair.p95},
                       {"max", r.time_to_repair.max},
                       {"count", r.time_to_repair.count}}},
                     {"broken_at_end", r.broken_at_end},
                     {"pods_placed_on_broken", r.pods_placed_on_broken}};
  }
  out["controller_loops"] = r.loops;
  out["controller_warnings"] = r.controller_warnings;
  if (r.soak.has_value()) {
    out["faults"] = r.soak->faults;
    out["invariants"] = r.soak->invariants;
    nlohmann::json first = nlohmann::json::array();
    for (const Violation& v : r.soak->first_violations) {
      first.push_back({{"invariant", InvariantName(v.invariant)},
                       {"at_seconds", absl::ToInt64Seconds(v.at - r.start)},
                       {"details", v.details}});
    }
    out["first_violations"] = std::move(first);
    out["restarts_mid_loop_at"] = r.soak->restarts_mid;
    out["leader_transitions"] = r.soak->leader_transitions;
    out["evictions_refused_by_budget"] = r.soak->evictions_refused_by_budget;
  }
  return out;
}

nlohmann::json ResultsJson(const std::vector<SettingResult>& results) {
  if (results.size() == 1 && results[0].label.empty()) return ResultJson(results[0].result);
  nlohmann::json list = nlohmann::json::array();
  for (const SettingResult& r : results) {
    nlohmann::json o = ResultJson(r.result);
    o["setting"] = r.label;
    list.push_back(std::move(o));
  }
  return list;
}

}  // namespace gpua::sim
