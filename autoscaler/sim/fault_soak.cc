#include "autoscaler/sim/fault_soak.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "autoscaler/controller/spot/spot_capacity.h"

namespace gpua::sim {
namespace {

// Where in its work the process died, by what it was doing.
std::string ActionKind(const std::string& what) {
  for (const auto& [needle, kind] :
       std::vector<std::pair<const char*, const char*>>{{"IncreaseSize", "scale-up"},
                                                        {"DeleteNodes", "node deletion"},
                                                        {"DecreaseTargetSize", "target decrease"},
                                                        {"untaint", "untaint"},
                                                        {"taint", "taint"},
                                                        {"cordon", "cordon"},
                                                        {"evict", "eviction"},
                                                        {"delete node", "node object deletion"},
                                                        {"annotate", "annotation"},
                                                        {"label", "label"},
                                                        {"nominate", "nomination"},
                                                        {"event", "event"}}) {
    if (absl::StrContains(what, needle)) return kind;
  }
  return "other";
}

bool SpotGroup(const NodeGroupConfig& g) {
  return g.simulation.spot_interruptions_per_hour > 0 ||
         OnSpotCapacity(g.spec.node_template.labels);
}

}  // namespace

int64_t FaultSoakResult::violations() const {
  int64_t n = 0;
  for (const auto& [name, count] : invariants) n += count;
  return n;
}

FaultSoak::FaultSoak(FaultSoakSettings settings, SimCluster& cluster, SimulatedCloud& cloud,
                     const Clock& clock)
    : faults_(settings.profile, settings.seed ^ 0x5eed'fa17ULL),
      cluster_(cluster),
      cloud_(cloud),
      groups_(settings.groups),
      steady_stockouts_(std::move(settings.steady_stockouts)),
      checker_(cluster, settings.options, settings.options.scan_interval),
      source_(cluster, clock),
      writer_(cluster, faults_, checker_),
      faulty_cloud_(cloud, faults_, checker_),
      replicas_(faults_.Enabled(FaultKind::kLeaderChange) ? 2 : 1),
      lease_(replicas_, LeaseTimings{}, clock.Now()),
      terms_seen_(replicas_, 0),
      failing_until_(replicas_, absl::InfinitePast()) {
  cluster_.set_node_object_lingers([this] { return faults_.Roll(FaultKind::kNodeObjectLingers); });
  const absl::Time now = clock.Now();
  for (size_t k = 0; k < kFaultKindCount; ++k) {
    const FaultKind kind = static_cast<FaultKind>(k);
    if (!IsCallFault(kind) && !IsNodeFault(kind) && faults_.Enabled(kind)) {
      next_[kind] = faults_.NextAfter(kind, now);
    }
  }
  // Each GPU node draws when its GPUs fail, in the cloud, from the seed.
  cloud_.AddGpuFailureRate(settings.profile.rate(FaultKind::kGpuFailure).per_node_hour);
}

FaultSoak::~FaultSoak() { cluster_.set_node_object_lingers(nullptr); }

absl::Time FaultSoak::NextEvent() const {
  absl::Time next = absl::InfiniteFuture();
  for (const auto& [kind, at] : next_) next = std::min(next, at);
  for (const auto& [group, until] : out_until_) next = std::min(next, until);
  return next;
}

bool FaultSoak::ApplyDue(absl::Time now) {
  bool cloud_changed = false;
  for (auto it = out_until_.begin(); it != out_until_.end();) {
    if (it->second > now) {
      ++it;
      continue;
    }
    cloud_.SetStockout(it->first, false);
    cloud_changed = true;
    it = out_until_.erase(it);
  }
  for (auto& [kind, at] : next_) {
    if (at > now) continue;
    Inject(kind, now);
    cloud_changed = cloud_changed || kind == FaultKind::kStockout || kind == FaultKind::kSpotBurst;
    at = faults_.NextAfter(kind, now);
  }
  return cloud_changed;
}

void FaultSoak::Inject(FaultKind kind, absl::Time now) {
  const absl::Duration lasts = faults_.profile().rate(kind).duration;
  // Around the profile's duration, so cuts do not all end on a loop's beat.
  const absl::Duration span = lasts * (0.5 + faults_.Uniform());
  switch (kind) {
    case FaultKind::kWatchCut:
    case FaultKind::kRelistGone:
      source_.Freeze(now + span);
      faults_.Count(kind);
      return;
    case FaultKind::kStockout:
      StockOut(now);
      return;
    case FaultKind::kSpotBurst:
      SpotBurst();
      return;
    case FaultKind::kRestartBetweenLoops:
      restart_pending_ = true;  // counted when the process is replaced
      return;
    case FaultKind::kRestartMidAction:
      if (!faults_.crash_armed()) faults_.ArmCrash(1 + static_cast<int>(faults_.Pick(6)));
      return;
    case FaultKind::kLeaderChange: {
      const std::vector<int> leaders = lease_.Leaders();
      if (leaders.empty()) return;
      // Longer than the renew deadline, so the leader must give the Lease up.
      failing_until_[leaders.front()] = now + std::max(span, absl::Seconds(12));
      faults_.Count(kind);
      return;
    }
    default:
      return;
  }
}

void FaultSoak::StockOut(absl::Time now) {
  std::vector<std::string> candidates;
  for (const NodeGroupConfig& g : groups_) {
    if (!steady_stockouts_.contains(g.spec.id) && !out_until_.contains(g.spec.id)) {
      candidates.push_back(g.spec.id);
    }
  }
  if (candidates.empty()) return;
  const std::string& group = candidates[faults_.Pick(candidates.size())];
  const absl::Duration lasts = faults_.profile().rate(FaultKind::kStockout).duration;
  out_until_[group] = now + std::max(absl::Minutes(1), lasts * (0.5 + faults_.Uniform()));
  cloud_.SetStockout(group, true);
  faults_.Count(FaultKind::kStockout);
}

void FaultSoak::SpotBurst() {
  std::set<std::string> spot_groups;
  for (const NodeGroupConfig& g : groups_) {
    if (SpotGroup(g)) spot_groups.insert(g.spec.id);
  }
  std::vector<std::string> running;
  for (const Machine& m : cloud_.Machines()) {
    if (spot_groups.contains(m.group) && !m.reclaim_at.has_value())
      running.push_back(m.provider_id);
  }
  if (running.empty()) return;
  std::shuffle(running.begin(), running.end(), std::mt19937_64(faults_.Pick(1u << 30)));
  const size_t burst = std::min(running.size(), 2 + faults_.Pick(3));
  for (size_t i = 0; i < burst; ++i) cloud_.Interrupt(running[i]).IgnoreError();
  faults_.Count(FaultKind::kSpotBurst);
}

std::vector<Machine> FaultSoak::Filter(std::vector<Machine> machines) {
  std::vector<Machine> seen;
  seen.reserve(machines.size());
  for (Machine& m : machines) {
    if (seen_machines_.insert(m.provider_id).second) {
      if (faults_.Roll(FaultKind::kNeverRegisters)) {
        hidden_.insert(m.provider_id);
      } else if (faults_.Roll(FaultKind::kRegistersWithoutGpus)) {
        without_gpus_.insert(m.provider_id);
      }
    }
    if (hidden_.contains(m.provider_id)) continue;
    if (without_gpus_.contains(m.provider_id)) m.gpu_ready_at = absl::InfiniteFuture();
    seen.push_back(std::move(m));
  }
  return seen;
}

std::vector<FaultSoak::Turn> FaultSoak::Turns(absl::Time now) {
  lease_.AdvanceTo(now, [&](int replica, absl::Time t) { return t < failing_until_[replica]; });
  std::vector<Turn> turns;
  for (int r : lease_.Leaders()) {
    bool fresh = lease_.term(r) != terms_seen_[r];
    terms_seen_[r] = lease_.term(r);
    if (restart_pending_) {
      restart_pending_ = false;
      if (!fresh) faults_.Count(FaultKind::kRestartBetweenLoops);
      fresh = true;
    }
    turns.push_back({r, fresh});
  }
  checker_.Leaders(static_cast<int>(turns.size()));
  return turns;
}

bool FaultSoak::AfterLoop(const LoopReport& report, int64_t arrived) {
  checker_.AfterLoop(report, source_.frozen(), arrived);
  if (!faults_.TakeDeath()) return false;
  ++restarts_mid_[ActionKind(faults_.died_at())];
  return true;
}

FaultSoakResult FaultSoak::Result() const {
  FaultSoakResult r;
  for (size_t k = 0; k < kFaultKindCount; ++k) {
    r.faults[std::string(FaultKindName(static_cast<FaultKind>(k)))] = faults_.counts()[k];
  }
  // The cloud strikes the GPUs: what reached a node is the cluster's count.
  r.faults[std::string(FaultKindName(FaultKind::kGpuFailure))] = cluster_.accounts().gpu_failures;
  for (size_t i = 0; i < kInvariantCount; ++i) {
    r.invariants[std::string(InvariantName(static_cast<Invariant>(i)))] = checker_.counts()[i];
  }
  r.first_violations = checker_.first();
  r.restarts_mid = restarts_mid_;
  r.leader_transitions = lease_.transitions();
  r.evictions_refused_by_budget = cluster_.accounts().evictions_refused;
  return r;
}

}  // namespace gpua::sim
