#include "autoscaler/sim/invariant_checker.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpua::sim {
namespace {

constexpr std::array<absl::string_view, kInvariantCount> kNames = {
    "node_deleted_with_running_pod",
    "group_outside_min_max",
    "repeat_scale_up",
    "taint_left_behind",
    "pod_lost",
    "two_leaders",
    "placed_on_broken_node",
};

const SimNode* FindNode(const SimCluster& cluster, const NodeRef& ref) {
  auto it = cluster.nodes().find(ref.name);
  if (it != cluster.nodes().end()) return &it->second;
  for (const auto& [name, node] : cluster.nodes()) {
    if (!ref.provider_id.empty() && node.object->provider_id == ref.provider_id) return &node;
  }
  return nullptr;
}

}  // namespace

absl::string_view InvariantName(Invariant invariant) {
  return kNames[static_cast<size_t>(invariant)];
}

InvariantChecker::InvariantChecker(const SimCluster& cluster, const ControllerOptions& options,
                                   absl::Duration loop_interval)
    : cluster_(cluster),
      options_(options.scale_down),
      repair_(options.repair),
      loop_interval_(loop_interval) {}

void InvariantChecker::CheckBrokenBinds() {
  const std::vector<BrokenBind>& binds = cluster_.broken_binds();
  // Seeing the signal, tainting and cordoning: a loop or two, more when a write fails or the
  // view is stale for a while.
  const absl::Duration act = std::max(absl::Minutes(2), 4 * loop_interval_);
  for (; broken_binds_seen_ < binds.size(); ++broken_binds_seen_) {
    const BrokenBind& b = binds[broken_binds_seen_];
    if (!repair_.enabled) continue;
    for (const RepairPolicy& p : repair_.policies.For(b.group)) {
      if (p.Reason() != "AcceleratedHardwareReady=False") continue;
      const absl::Time known = b.failed_at + p.toleration + act;
      if (b.bound_at <= known) break;
      Violate(
          Invariant::kPlacedOnBrokenNode,
          absl::StrCat("pod ", b.pod, " was placed on node ", b.node, " ",
                       absl::FormatDuration(b.bound_at - b.failed_at), " after its GPUs failed (",
                       p.Reason(), ", tolerated ", absl::FormatDuration(p.toleration), ")"));
      break;
    }
  }
}

int64_t InvariantChecker::total() const {
  int64_t n = 0;
  for (int64_t c : counts_) n += c;
  return n;
}

std::vector<Violation> InvariantChecker::first() const {
  std::vector<Violation> out;
  for (const auto& v : first_) {
    if (v.has_value()) out.push_back(*v);
  }
  std::sort(out.begin(), out.end(),
            [](const Violation& a, const Violation& b) { return a.at < b.at; });
  return out;
}

void InvariantChecker::Violate(Invariant invariant, std::string details) {
  const size_t i = static_cast<size_t>(invariant);
  ++counts_[i];
  if (!first_[i].has_value()) first_[i] = Violation{cluster_.now(), invariant, std::move(details)};
}

void InvariantChecker::BeforeResize(NodeGroup& group, int delta, absl::string_view call) {
  absl::StatusOr<int> target = group.TargetSize();
  if (!target.ok()) return;
  const int asked = *target + delta;
  if (asked > group.MaxSize() || asked < group.MinSize()) {
    Violate(Invariant::kGroupOutsideMinMax,
            absl::StrCat("node group ", group.Id(), ": the controller's ", call, "(", delta,
                         ") would take its target from ", *target, " to ", asked, ", outside [",
                         group.MinSize(), ", ", group.MaxSize(), "]"));
  }
}

void InvariantChecker::BeforeDelete(NodeGroup& group, const std::vector<NodeRef>& nodes) {
  for (const NodeRef& ref : nodes) {
    tried_.insert(ref.name);
    const SimNode* node = FindNode(cluster_, ref);
    if (node == nullptr || node->noticed) continue;  // no node, or one going anyway
    if (RepairDrainOver(*node)) continue;            // broken, and its bounded drain is over
    const std::string& name = node->object->node.name;
    if (auto evicted = unmovable_evicted_.find(name); evicted != unmovable_evicted_.end()) {
      Violate(Invariant::kDeletedWithRunningPod,
              absl::StrCat("node ", name, " of group ", group.Id(), " was deleted after pod ",
                           evicted->second,
                           " was evicted from it, though it says safe-to-evict: \"false\""));
      unmovable_evicted_.erase(evicted);
    }
    for (const auto& [key, pod] : node->pods) {
      if (pod->stopping || pod->object->terminating || pod->object->mirror) continue;
      std::string budget;
      if (auto pdb = cluster_.BudgetOf(*pod); pdb != nullptr && pdb->disruptions_allowed <= 0) {
        budget = absl::StrCat(", its PodDisruptionBudget ", pdb->namespace_name, "/", pdb->name,
                              " allowing no disruption");
      }
      Violate(
          Invariant::kDeletedWithRunningPod,
          absl::StrCat("node ", name, " of group ", group.Id(), " was deleted while pod ", key,
                       " still ran on it, never evicted (taints: ",
                       node->object->Marks().to_be_deleted ? "ToBeDeleted" : "none", budget, ")"));
    }
  }
}

bool InvariantChecker::RepairDrainOver(const SimNode& node) const {
  const NodeMarks& marks = node.object->Marks();
  return node.gpu_failed_at.has_value() && marks.removal_reason == kRepairReason &&
         marks.to_be_deleted_since.has_value() &&
         cluster_.now() >= *marks.to_be_deleted_since + options_.repair_drain_time;
}

void InvariantChecker::Evicting(const std::string& namespace_name, const std::string& pod) {
  const std::string key = absl::StrCat(namespace_name, "/", pod);
  auto it = cluster_.pods().find(key);
  if (it == cluster_.pods().end() || it->second.node.empty() || it->second.stopping) return;
  if (it->second.object->safe_to_evict != false) return;
  auto node = cluster_.nodes().find(it->second.node);
  // A node going anyway (a reclaim notice, GPUs that failed) has its pods evicted whatever
  // they say.
  if (node == cluster_.nodes().end() || node->second.noticed ||
      node->second.gpu_failed_at.has_value()) {
    return;
  }
  unmovable_evicted_.try_emplace(it->second.node, key);
}

void InvariantChecker::Leaders(int acting) {
  if (acting > 1) {
    Violate(Invariant::kTwoLeaders,
            absl::StrCat(acting, " replicas believed they held the Lease and ran a loop"));
  }
}

void InvariantChecker::AfterLoop(const LoopReport& report, bool view_stale, int64_t arrived) {
  CheckScaleUps(report, view_stale);
  CheckTaints(report, view_stale);
  CheckBrokenBinds();
  tried_.clear();
  std::erase_if(unmovable_evicted_, [&](const auto& entry) {
    return !cluster_.nodes().contains(entry.first);  // gone some other way: not ours to count
  });
  const int64_t accounted =
      static_cast<int64_t>(cluster_.pods().size()) + cluster_.accounts().pods_finished;
  if (accounted != arrived) {
    Violate(Invariant::kPodLost,
            absl::StrCat(arrived, " pods arrived, but ", cluster_.pods().size(),
                         " are pending or running and ", cluster_.accounts().pods_finished,
                         " finished"));
  }
}

void InvariantChecker::CheckScaleUps(const LoopReport& report, bool view_stale) {
  for (const ScaleUpOutcome& o : report.scale_ups) {
    if (!o.status.ok()) continue;
    if (o.repeat) {
      Violate(Invariant::kRepeatScaleUp,
              absl::StrCat("node group ", o.request.group, " was asked for ", o.request.delta,
                           " more node(s) for pods already nominated to nodes on their way"));
      continue;
    }
    std::vector<std::string> running;
    int gone = 0;
    for (const PodPtr& pod : o.request.pods) {
      const std::string key = absl::StrCat(pod->spec.namespace_name, "/", pod->spec.name);
      auto it = cluster_.pods().find(key);
      if (it == cluster_.pods().end()) {
        running.push_back(key);
        ++gone;
        continue;
      }
      // A pod on a node being reclaimed or removed needs a new home: asking for one is right.
      auto node = cluster_.nodes().find(it->second.node);
      if (node != cluster_.nodes().end() && !node->second.noticed &&
          !node->second.object->Marks().to_be_deleted) {
        running.push_back(key);
      }
    }
    // A stale view cannot know a pod went with its node a moment ago; its next incarnation
    // needs the room as much. A pod that runs, though, was placed before the view went stale
    // or on a node the controller asked for: asking again is a repeat.
    const bool all_gone_unseen = view_stale && gone == static_cast<int>(running.size());
    if (!running.empty() && running.size() == o.request.pods.size() && !all_gone_unseen) {
      Violate(Invariant::kRepeatScaleUp,
              absl::StrCat("node group ", o.request.group, " was asked for ", o.request.delta,
                           " more node(s) for pods that already run or are gone: ",
                           absl::StrJoin(running, ", "),
                           view_stale ? " (its view of the cluster was stale)" : ""));
    }
  }
}

void InvariantChecker::CheckTaints(const LoopReport& report, bool view_stale) {
  if (!report.skipped.empty() || view_stale) return;  // it saw nothing to act on
  absl::flat_hash_set<std::string> needed;
  for (const auto& [name, unneeded] : report.node_verdicts) {
    if (!unneeded) needed.insert(name);
  }
  const absl::Time now = cluster_.now();
  const absl::Duration removal_limit =
      std::max(options_.max_graceful_termination + options_.max_pod_eviction_time,
               options_.preemption_drain_time) +
      loop_interval_;
  for (const auto& [name, node] : cluster_.nodes()) {
    const NodeMarks& marks = node.object->Marks();
    std::string left;
    if (marks.to_be_deleted && now > marks.to_be_deleted_since.value_or(now) + removal_limit) {
      left = "ToBeDeleted, past its removal's deadline";
    } else if (marks.deletion_candidate && needed.contains(name)) {
      left = "DeletionCandidate, on a node judged needed";
    }
    if (left.empty() || tried_.contains(name)) {
      left_loops_.erase(name);
      reported_left_.erase(name);
      continue;
    }
    if (++left_loops_[name] >= 2 && reported_left_.insert(name).second) {
      Violate(Invariant::kTaintLeftBehind,
              absl::StrCat("node ", name, " kept our taint ", left, " for ", left_loops_[name],
                           " loops in which nothing tried to take it off"));
    }
  }
}

}  // namespace gpua::sim
