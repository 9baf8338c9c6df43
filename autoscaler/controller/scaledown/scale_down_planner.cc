#include "autoscaler/controller/scaledown/scale_down_planner.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "autoscaler/controller/planning/drain_facts.h"
#include "autoscaler/controller/planning/node_use.h"
#include "autoscaler/controller/planning/planning_cluster.h"
#include "autoscaler/controller/planning/resource_limits.h"
#include "autoscaler/controller/scaledown/node_judge.h"
#include "autoscaler/controller/scaledown/removal_budget.h"
#include "autoscaler/controller/spot/spot_capacity.h"
#include "estimator/removal_simulator.h"

namespace gpua {
namespace {

// The nodes pods may move to: ready, not being removed; and each state node's place there.
struct SnapshotNodes {
  std::vector<Node> nodes;
  TargetPlaces places;
};

// A node's price per hour of a unit of what it offers: per physical GPU on a GPU node, per
// cpu core on others. Compared per node, an 8-GPU spot node's pods moved onto 4-GPU nodes
// dearer per GPU so that it could go, and the pods that came next asked for new nodes:
// simulate_bench's week cost $207,896, and $214,749 with consolidation; per unit $193,868
// and $166,700.
double UnitPrice(const NodeStatus& s, const ProviderGroup& g) {
  const GpuInventory* gpus = NodeGpus(s, g);
  const double units = gpus != nullptr && gpus->physical_count() > 0
                           ? gpus->physical_count()
                           : s.node->node.allocatable.Get(kResourceCpu).MilliValue() / 1000.0;
  return units > 0 ? g.price_per_hour / units : g.price_per_hour;
}

SnapshotNodes TargetNodes(const ClusterView& view, const ClusterState& state,
                          const std::optional<PendingReplacement>& replacement,
                          RunningNodeCache& rooms) {
  SnapshotNodes out;
  out.places.index.assign(state.nodes.size(), -1);
  out.nodes.reserve(state.nodes.size());
  out.places.prices.reserve(state.nodes.size());
  for (size_t i = 0; i < state.nodes.size(); ++i) {
    const NodeStatus& s = state.nodes[i];
    if (s.condition != NodeCondition::kReady) continue;
    const std::string& group = s.group >= 0 ? state.groups[s.group].id() : kNoGroup;
    out.places.index[i] = static_cast<int>(out.nodes.size());
    out.nodes.push_back(ExistingNode(s.node, view, group, {}, rooms));
    // A node of no group is never removed by us, and a replacement came for these pods:
    // moving pods there costs nothing more.
    const bool free =
        s.group < 0 || (replacement.has_value() && replacement->IsReplacementNode(s, state));
    out.places.prices.push_back(free ? 0 : UnitPrice(s, *state.groups[s.group].provider));
  }
  return out;
}

int64_t MinutesOrZero(absl::Duration d) { return absl::ToInt64Minutes(d); }

// Nodes being removed that still have pods to see off.
int DrainsUnderWay(const ClusterView& view, const ClusterState& state) {
  int drains = 0;
  for (const NodeStatus& s : state.nodes) {
    if (s.condition != NodeCondition::kBeingDeleted) continue;
    const std::vector<PodPtr>& pods = view.PodsOn(s.node->node.name);
    drains += std::any_of(pods.begin(), pods.end(), [](const PodPtr& p) {
      return !p->daemonset() && !p->mirror && !p->finished();
    });
  }
  return drains;
}

// The physical GPUs a ready node of a GPU group uses, in thousandths.
// `gpus`: GroupGpus of its group.
uint32_t GpusInUse(const NodeStatus& s, int gpus, const ClusterState& state,
                   const ClusterView& view, RunningNodeCache& nodes) {
  const ProviderGroup& g = *state.groups[s.group].provider;
  if (gpus == 0 || s.condition != NodeCondition::kReady) return 0;
  const double used =
      UtilizationOf(s, g, view, g.options.ignore_daemonsets_utilization, nodes).gpu * gpus;
  return static_cast<uint32_t>(std::clamp(used * 1000, 0.0, 4e9));
}

// Each node's place among the nodes by name. Both cluster sources list nodes in name order,
// so that is checked and taken as it is; sorting by name again cost a string comparison in
// nearly every comparison of the judging order.
std::vector<int> NameRanks(const ClusterState& state) {
  std::vector<int> rank(state.nodes.size());
  std::iota(rank.begin(), rank.end(), 0);
  const auto by_name = [&](int a, int b) {
    return state.nodes[a].node->node.name < state.nodes[b].node->node.name;
  };
  if (std::is_sorted(rank.begin(), rank.end(), by_name)) return rank;
  std::vector<int> order = rank;
  std::sort(order.begin(), order.end(), by_name);
  for (size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<int>(r);
  return rank;
}

// The removal of a node judged to go now, with why it goes and what it saves.
NodeRemoval RemovalOf(const NodeJudgement& j, const ClusterState& state) {
  const NodeStatus& s = state.nodes[j.node];
  const bool empty = j.to_evict.empty();
  NodeRemoval r{j.node,
                empty                                    ? "empty"
                : s.condition == NodeCondition::kUnready ? "unready"
                                                         : "underutilized",
                j.to_evict, ""};
  const ProviderGroup& g = *state.groups[s.group].provider;
  std::string use = j.utilization_known
                        ? absl::StrCat(j.utilization.gpu_node ? "GPU" : "cpu/memory", " use ",
                                       static_cast<int>(j.utilization.value() * 100), "%")
                        : "not ready";
  r.why = absl::StrFormat("%s%s, %d pod(s) to move; saves $%.2f/h", use,
                          j.consolidated ? " (consolidated: its pods fit on the others)" : "",
                          j.to_evict.size(), g.price_per_hour);
  return r;
}

// A node judged replaceable, as the replacement search reads it.
ReplaceableNode ReplaceableFrom(const NodeJudgement& j, const ClusterState& state) {
  const NodeStatus& s = state.nodes[j.node];
  ReplaceableNode out{j.node,
                      s.node->node.name,
                      state.groups[s.group].provider->price_per_hour,
                      {},
                      j.lost_when_replaced,
                      ReplacedDrainDelay(s, state),
                      OnSpotCapacity(s.node->node.labels)};
  for (const PodPtr& p : j.to_evict) out.pods.push_back(&p->spec);
  return out;
}

}  // namespace

std::string ScaleDownPlanner::Cooldown(const ClusterState& state, const CooldownStarts& last,
                                       int pods_for_existing_nodes, absl::Time now) const {
  if (!options_.enabled) return "scale-down is off (--scale-down-enabled=false)";
  if (!state.healthy) return "the cluster is unhealthy";
  const auto within = [&](absl::Time since, absl::Duration delay, absl::string_view what) {
    return now - since < delay
               ? absl::StrCat("in cooldown after ", what, " (", MinutesOrZero(delay), "m)")
               : std::string();
  };
  for (std::string why :
       {within(last.last_scale_up, options_.delay_after_add, "a scale-up"),
        within(last.last_delete, options_.delay_after_delete, "a node removal"),
        within(last.last_failure, options_.delay_after_failure, "a failed scale-down")}) {
    if (!why.empty()) return why;
  }
  if (pods_for_existing_nodes > 0) {
    return absl::StrCat(pods_for_existing_nodes,
                        " pending pod(s) fit on existing or upcoming nodes: they land first");
  }
  return "";
}

std::vector<int> ScaleDownPlanner::JudgingOrder(
    const ClusterView& view, const ClusterState& state, absl::Time now, RunningNodeCache& nodes,
    const absl::flat_hash_map<std::string, absl::Time>& judged_at) const {
  // Each node's place in the order packed into one 128-bit integer, sorted with the node:
  // comparing the fields one by one was most of the sort. High word: not due (the top bit),
  // then for a due node its group's rank by price (dearest first) and the GPUs it uses (in
  // thousandths, fewest first): the removal that saves most goes first; for the others when
  // its drain was last simulated (0: never). Low word: unmarked, without GPUs, its group's
  // rank by price (dearest first), its rank by name.
  std::vector<int> group_price_rank(state.groups.size());
  std::vector<double> prices;
  for (const GroupState& g : state.groups) prices.push_back(g.provider->price_per_hour);
  std::sort(prices.begin(), prices.end(), std::greater<>());
  for (size_t g = 0; g < state.groups.size(); ++g) {
    const double price = state.groups[g].provider->price_per_hour;
    group_price_rank[g] = static_cast<int>(
        std::lower_bound(prices.begin(), prices.end(), price, std::greater<>()) - prices.begin());
  }
  int64_t earliest = std::numeric_limits<int64_t>::max();
  for (const auto& [name, at] : judged_at) earliest = std::min(earliest, absl::ToUnixNanos(at));
  const std::vector<int> name_rank = NameRanks(state);
  std::vector<int> group_gpus(state.groups.size());
  for (size_t g = 0; g < state.groups.size(); ++g) {
    group_gpus[g] = GroupGpus(*state.groups[g].provider);
  }
  std::vector<std::pair<unsigned __int128, int>> keys;
  keys.reserve(state.nodes.size());
  for (size_t i = 0; i < state.nodes.size(); ++i) {
    const NodeStatus& s = state.nodes[i];
    if (s.group < 0) continue;
    const std::optional<absl::Time>& marked = s.node->Marks().candidate_since;
    const bool due = marked.has_value() && *marked + UnneededWait(s, state) <= now;
    auto judged = judged_at.find(s.node->node.name);
    const uint64_t judged_rank =
        judged == judged_at.end() ? 0 : absl::ToUnixNanos(judged->second) - earliest + 1;
    const uint64_t high = due ? (static_cast<uint64_t>(group_price_rank[s.group]) << 32) |
                                    GpusInUse(s, group_gpus[s.group], state, view, nodes)
                              : (uint64_t{1} << 63) | judged_rank;
    const uint64_t low = (uint64_t{!marked.has_value()} << 63) |
                         (uint64_t{group_gpus[s.group] == 0} << 62) |
                         (static_cast<uint64_t>(group_price_rank[s.group]) << 32) |
                         static_cast<uint32_t>(name_rank[i]);
    keys.emplace_back((static_cast<unsigned __int128>(high) << 64) | low, static_cast<int>(i));
  }
  std::sort(keys.begin(), keys.end());
  std::vector<int> order;
  order.reserve(keys.size());
  for (const auto& [key, node] : keys) order.push_back(node);
  return order;
}

ScaleDownPlan ScaleDownPlanner::Plan(const PlanningInput& in, const AfterScaleUp& loop,
                                     ScaleDownMemory& kept) const {
  const ClusterView& view = in.view;
  const ClusterState& state = in.state;
  const absl::Time now = in.now;
  RunningNodeCache& nodes = in.kept.nodes;
  ScaleDownPlan plan;
  plan.cooldown = Cooldown(state, kept.cooldown_starts, loop.pods_for_existing_nodes, now);
  if (!options_.enabled) {  // off: the marks of an earlier run go
    for (size_t i = 0; i < state.nodes.size(); ++i) {
      if (state.nodes[i].node->Marks().deletion_candidate) {
        plan.unmark.push_back(static_cast<int>(i));
      }
    }
    return plan;
  }
  if (!state.healthy) return plan;
  // In a cooldown the nodes are still judged, so their unneeded time keeps running.
  const DrainRules rules{options_.skip_nodes_with_local_storage,
                         options_.skip_nodes_with_system_pods,
                         options_.skip_nodes_with_custom_controller_pods};
  SnapshotNodes targets = TargetNodes(view, state, kept.replacement, nodes);
  kept.snapshot.Reset(std::move(targets.nodes));
  absl::flat_hash_map<std::string, absl::Time>& judged_at = kept.drain_judged_at;
  Judging j(in, rules, std::move(targets.places), kept,
            RemovalBudget(state, options_, limits_, DrainsUnderWay(view, state), nodes));
  j.cooldown = !plan.cooldown.empty();
  if (options_.non_empty_candidates > 0) {
    j.drains_left = options_.non_empty_candidates;
    j.consolidations_left = options_.non_empty_candidates;
  }
  j.payback = options_.consolidation_payback;
  if (kept.replacement.has_value()) j.replacement = &*kept.replacement;
  // Warm capacity takes its room first: no pod moves into it, and a node holding it goes only
  // when the room moves on with it.
  for (const PodPtr& p : loop.placeholders) {
    if (j.simulator.Reserve(p->spec)) j.placeholders[&p->spec] = p.get();
  }
  std::vector<bool> unneeded(state.nodes.size(), false);
  std::vector<bool> deferred(state.nodes.size(), false);
  // When each node judged now last had its drain simulated, updated in place; the others go.
  std::vector<bool> judged_now(state.nodes.size(), false);
  size_t judged_remembered = 0;
  for (int i : JudgingOrder(view, state, now, nodes, judged_at)) {
    const NodeCondition c = state.nodes[i].condition;
    if (c != NodeCondition::kReady && c != NodeCondition::kUnready) continue;
    const std::string& name = state.nodes[i].node->node.name;
    const int drains_before = j.drains_left + j.consolidations_left;
    NodeJudgement judged = JudgeNode(i, j);
    judged_now[i] = true;
    if (judged.deferred ||
        j.drains_left + j.consolidations_left == drains_before) {  // keeps when it was last judged
      judged_remembered += judged_at.contains(name);
    } else {
      judged_at[name] = now;
      ++judged_remembered;
    }
    if (judged.deferred) {
      deferred[i] = true;
      continue;
    }
    if (judged.replaceable && !kept.replacement.has_value()) {
      plan.replaceable.push_back(ReplaceableFrom(judged, state));
    }
    unneeded[i] = judged.unneeded;
    if (judged.unneeded) {
      const absl::Time due = judged.unneeded_since + UnneededWait(state.nodes[i], state);
      if (due > now) plan.next_due = std::min(plan.next_due, due);
      ++plan.status.candidates_by_group[state.groups[state.nodes[i].group].id()];
      if (!state.nodes[i].node->Marks().deletion_candidate) plan.mark.push_back(i);
      if (judged.removed_now) plan.removals.push_back(RemovalOf(judged, state));
    }
    plan.judged.push_back(std::move(judged));
  }
  for (size_t i = 0; i < state.nodes.size(); ++i) {
    if (!unneeded[i] && !deferred[i] && state.nodes[i].node->Marks().deletion_candidate &&
        state.nodes[i].condition != NodeCondition::kBeingDeleted) {
      plan.unmark.push_back(static_cast<int>(i));
    }
  }
  if (judged_remembered != judged_at.size()) {  // nodes gone are forgotten
    absl::flat_hash_set<absl::string_view> judged;
    for (size_t i = 0; i < state.nodes.size(); ++i) {
      if (judged_now[i]) judged.insert(state.nodes[i].node->node.name);
    }
    absl::erase_if(judged_at, [&](const auto& entry) { return !judged.contains(entry.first); });
  }
  return plan;
}

}  // namespace gpua
