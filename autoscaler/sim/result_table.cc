#include "autoscaler/sim/result_table.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gpua::sim {
namespace {

std::string Waits(const Percentiles& p) {
  if (p.count == 0) return absl::StrFormat("%7s %7s %7s %7s", "-", "-", "-", "-");
  return absl::StrFormat("%7s %7s %7s %7s", FormatWait(p.p50), FormatWait(p.p95), FormatWait(p.p99),
                         FormatWait(p.max));
}

constexpr char kGroupHeader[] =
    "%-18s %10s %8s %8s %8s %8s %10s %7s %5s %5s %7s  %7s %7s %7s %7s\n";

void PrintGroupLine(const std::string& name, const Figures& f, std::ostream& out) {
  out << absl::StrFormat("%-18s %10.2f %8.1f %8.1f %8.1f %8.1f %10.2f %7.1f %5d %5d %7d  %s\n",
                         name, f.cost_usd, f.node_hours, f.gpu_hours_billed, f.gpu_hours_used,
                         f.gpu_hours_idle, f.idle_cost_usd, f.share_spread_node_hours, f.scale_ups,
                         f.scale_downs, f.preemptions,
                         Waits(f.gpu_pending.count > 0 ? f.gpu_pending : f.pending));
}

const char* IdleCauseHeading(IdleCause cause) {
  static constexpr const char* kHeadings[kIdleCauseCount] = {
      "STARTING", "TIMEOUT", "PODS", "WARM", "FRAGMENTS", "MIN", "REMOVING", "OTHER"};
  return kHeadings[static_cast<size_t>(cause)];
}

// Idle GPU-hours by what kept them, per group with GPUs: what a person would change.
void PrintIdleByCause(const SimulationResult& r, std::ostream& out) {
  out << absl::StrFormat("%-18s %9s", "IDLE GPU-H BY", "ALL");
  for (size_t c = 0; c < kIdleCauseCount; ++c) {
    out << absl::StrFormat(" %9s", IdleCauseHeading(static_cast<IdleCause>(c)));
  }
  out << "\n";
  const auto line = [&out](const std::string& name, const IdleGpuCount& idle) {
    out << absl::StrFormat("%-18s %9.1f", name, idle.total);
    for (double h : idle.by_cause) out << absl::StrFormat(" %9.1f", h);
    out << "\n";
  };
  for (const GroupFigures& g : r.groups) {
    if (g.figures.gpu_hours_billed > 0) line(g.id, g.figures.idle_by_cause);
  }
  line("total", r.total.idle_by_cause);
  out << "(STARTING: booting, GPUs not yet up, or a replacement awaiting its pods; TIMEOUT: "
         "unneeded, waiting\n out the idle timeout; PODS: kept by a pod that may not move; WARM: "
         "warm capacity; FRAGMENTS:\n needed for pods that do not fill it; MIN: its group's "
         "minimum; REMOVING: being drained; OTHER:\n scale-down disabled or not judged)\n\n";
}

void PrintSoak(const SimulationResult& r, std::ostream& out) {
  const FaultSoakResult& soak = *r.soak;
  out << "Faults injected:";
  for (const auto& [kind, count] : soak.faults) out << " " << kind << "=" << count;
  out << "\nRestarts in the middle of a loop, at:";
  for (const auto& [at, count] : soak.restarts_mid) out << " " << at << "=" << count;
  out << "\nLeader transitions: " << soak.leader_transitions
      << "\nEvictions a PodDisruptionBudget refused: " << soak.evictions_refused_by_budget << "\n";
  out << "Invariant violations:";
  for (const auto& [invariant, count] : soak.invariants) out << " " << invariant << "=" << count;
  out << "\n";
  for (const Violation& v : soak.first_violations) {
    out << "  first " << InvariantName(v.invariant) << " at +"
        << absl::FormatDuration(absl::Trunc(v.at - r.start, absl::Seconds(1))) << ": " << v.details
        << "\n";
  }
}

void PrintNotes(const SimulationResult& r, std::ostream& out) {
  if (r.pods_without_group > 0) {
    out << r.pods_without_group
        << " pod(s) fit no group's nodes: they wait the whole run and count in the waits.\n";
  }
  if (r.controller_warnings > 0) {
    out << "The controller logged " << r.controller_warnings << " warning(s); the first:\n";
    for (const std::string& w : r.first_warnings) out << "  " << w << "\n";
  }
  if (r.soak.has_value()) PrintSoak(r, out);
}

double AboveBound(const Figures& f) {
  return f.lower_bound_cost_usd > 0 ? 100 * (f.cost_usd / f.lower_bound_cost_usd - 1) : 0;
}

double TimesPackingBound(const Figures& f) {
  return f.packing_bound_cost_usd > 0 ? f.cost_usd / f.packing_bound_cost_usd : 0;
}

}  // namespace

std::string FormatWait(double seconds) {
  const int64_t s = std::llround(std::max(0.0, seconds));
  if (s < 60) return absl::StrCat(s, "s");
  if (s < 3600) return absl::StrFormat("%dm%02ds", s / 60, s % 60);
  return absl::StrFormat("%dh%02dm", s / 3600, (s % 3600) / 60);
}

void PrintResult(const SimulationResult& r, std::ostream& out) {
  out << absl::StrFormat(
      "Simulated %s: %d pods arrived%s, %d ran to the end, %d restarted after a preemption or "
      "a drain; %d controller loops.\n\n",
      absl::FormatDuration(r.simulated), r.pods_arrived,
      r.pods_arrived < r.pods ? absl::StrCat(" (of ", r.pods, " in the trace)") : "",
      r.pods_finished, r.pods_restarted, r.loops);
  out << absl::StrFormat(kGroupHeader, "GROUP", "COST USD", "NODE-H", "GPU-H", "USED", "IDLE",
                         "IDLE USD", "SPREAD", "UPS", "DOWNS", "PREEMPT", "WAIT50", "WAIT95",
                         "WAIT99", "MAX");
  for (const GroupFigures& g : r.groups) PrintGroupLine(g.id, g.figures, out);
  PrintGroupLine("total", r.total, out);
  out << "(GPU-H: GPU-hours billed; SPREAD: node-hours of a shared pool's nodes running GPU "
         "shares beyond the fewest\n nodes those shares would fill; waits: of the group's GPU "
         "pods, or of all its pods when it has no GPUs)\n\n";
  PrintIdleByCause(r, out);
  if (r.total.gpu_failures > 0) {
    out << absl::StrFormat(
        "GPU failures: %d, %d repairs begun; broken nodes billed %.1f node-hours ($%.0f) from "
        "failure to gone; failure to node gone p50 %s, p95 %s, max %s; %d still broken at the "
        "end; %d pods placed on a broken node.\n\n",
        r.total.gpu_failures, r.total.repairs, r.total.broken_node_hours, r.total.broken_cost_usd,
        FormatWait(r.time_to_repair.p50), FormatWait(r.time_to_repair.p95),
        FormatWait(r.time_to_repair.max), r.broken_at_end, r.pods_placed_on_broken);
  }
  out << absl::StrFormat("Pending, all pods: p50 %s, p95 %s, p99 %s, max %s\n",
                         FormatWait(r.total.pending.p50), FormatWait(r.total.pending.p95),
                         FormatWait(r.total.pending.p99), FormatWait(r.total.pending.max));
  out << absl::StrFormat("Pending, GPU pods: p50 %s, p95 %s, p99 %s, max %s\n",
                         FormatWait(r.total.gpu_pending.p50), FormatWait(r.total.gpu_pending.p95),
                         FormatWait(r.total.gpu_pending.p99), FormatWait(r.total.gpu_pending.max));
  out << absl::StrFormat(
      "Lower bound: $%.2f (each pod's share of the cheapest node that holds it, billed only "
      "while it runs, no waiting); this run costs %.0f%% more.\n",
      r.total.lower_bound_cost_usd, AboveBound(r.total));
  out << absl::StrFormat(
      "Packing bound: $%.2f (the cheapest whole nodes that hold the pods running at each "
      "instant, none waiting); this run costs %.2fx that.\n",
      r.total.packing_bound_cost_usd, TimesPackingBound(r.total));
  out << "Repeat scale-ups (increases for pods already promised nodes on their way): "
      << r.total.repeat_scale_ups << "\n";
  out << "Replacements (nodes asked for to replace others, cheaper or fuller): "
      << r.total.replacements << "\n";
  PrintNotes(r, out);
}

void PrintResults(const std::vector<SettingResult>& results, std::ostream& out) {
  if (results.size() == 1 && results[0].label.empty()) {
    PrintResult(results[0].result, out);
    return;
  }
  size_t width = 8;
  for (const SettingResult& s : results) width = std::max(width, s.label.size());
  const int w = static_cast<int>(width);
  out << absl::StrFormat("%-*s %10s %10s %10s %7s %7s %7s %7s %5s %5s %7s %9s %7s\n", w, "SETTING",
                         "COST USD", "IDLE USD", "IDLE GPU-H", "GPU p50", "GPU p95", "GPU p99",
                         "MAX", "UPS", "DOWNS", "PREEMPT", "vs BOUND", "x PACK");
  for (const SettingResult& s : results) {
    const Figures& f = s.result.total;
    out << absl::StrFormat("%-*s %10.2f %10.2f %10.1f %s %5d %5d %7d %8.0f%% %6.2fx\n", w, s.label,
                           f.cost_usd, f.idle_cost_usd, f.gpu_hours_idle, Waits(f.gpu_pending),
                           f.scale_ups, f.scale_downs, f.preemptions, AboveBound(f),
                           TimesPackingBound(f));
  }
  for (const SettingResult& s : results) {
    out << "\n== " << s.label << " ==\n";
    PrintResult(s.result, out);
  }
}

}  // namespace gpua::sim
