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
#include "autoscaler/controller/planning/planning_cluster.h"
#include "autoscaler/controller/planning/resource_limits.h"
#include "autoscaler/controller/scaledown/disruption.h"
#include "autoscaler/controller/scaledown/removal_budget.h"
#include "autoscaler/controller/spot/spot_capacity.h"
#include "estimator/removal_simulator.h"

namespace gpua {
namespace {

constexpr absl::string_view kNotUnderutilized = "NotUnderutilized";
// Ours: moving its pods would lose more work than the node's price pays back.
constexpr absl::string_view kDisruptionNotPaidBack = "DisruptionNotPaidBack";
// Ours: the room it has is warm capacity a CapacityBuffer asks for, with nowhere else to go.
constexpr absl::string_view kWarmCapacity = "WarmCapacity";
// Ours: it was brought up to replace other nodes, whose pods have yet to move onto it.
constexpr absl::string_view kReplacing = "ReplacingNodes";
// What a new GPU node takes to boot and advertise its GPUs, as the time a replacement and the
// nodes it replaces both run when their unneeded time is shorter (the bundled pools' p50s are
// 3-6 minutes).
constexpr absl::Duration kReplacementBoot = absl::Minutes(5);

// The nodes pods may move to: ready, not being removed; and each state node's place there.
struct SnapshotNodes {
  std::vector<Node> nodes;
  std::vector<int> index;      // state node -> snapshot node, -1 when not in it
  std::vector<double> prices;  // by snapshot node, per hour
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
  out.index.assign(state.nodes.size(), -1);
  out.nodes.reserve(state.nodes.size());
  out.prices.reserve(state.nodes.size());
  for (size_t i = 0; i < state.nodes.size(); ++i) {
    const NodeStatus& s = state.nodes[i];
    if (s.condition != NodeCondition::kReady) continue;
    const std::string& group = s.group >= 0 ? state.groups[s.group].id() : kNoGroup;
    out.index[i] = static_cast<int>(out.nodes.size());
    out.nodes.push_back(ExistingNode(s.node, view, group, {}, rooms));
    // A node of no group is never removed by us, and a replacement came for these pods:
    // moving pods there costs nothing more.
    const bool free =
        s.group < 0 || (replacement.has_value() && replacement->IsReplacementNode(s, state));
    out.prices.push_back(free ? 0 : UnitPrice(s, *state.groups[s.group].provider));
  }
  return out;
}

// What judging the nodes one after another shares: the simulation of where pods go, what
// the disruption budgets still allow, and what removals the plan may still take.
struct Judging {
  const ClusterView& view;
  const ClusterState& state;
  const DrainRules rules;
  std::vector<int> snapshot_index;
  ClusterSnapshot& snapshot;
  RemovalSimulator simulator;
  std::vector<int> budgets;
  int drains_left = -1;  // drain simulations this loop may still run; -1: no bound
  // Busy GPU nodes this loop may still try to consolidate; -1: no bound. Apart from the
  // drains, so that busy nodes never take the turns of nodes under their threshold.
  int consolidations_left = -1;
  absl::Duration payback;  // --consolidation-payback; zero: no consolidation
  RunningNodeCache& cache;
  RemovalBudget removals;
  bool cooldown = false;  // no removal starts this loop
  absl::Time now;
  // Placeholders of warm capacity the simulator holds room for.
  absl::flat_hash_map<const PodSpec*, const PodObject*> placeholders;
  const PendingReplacement* replacement = nullptr;  // under way, if any

  // `targets` holds the target nodes, `index` each state node's place among them.
  Judging(const ClusterView& v, const ClusterState& s, const DrainRules& r, SnapshotNodes targets,
          ClusterSnapshot& target_snapshot, RunningNodeCache& c, StaticAdmissions& admissions,
          RemovalBudget budget)
      : view(v),
        state(s),
        rules(r),
        snapshot_index(std::move(targets.index)),
        snapshot(target_snapshot),
        simulator(snapshot, admissions),
        budgets(BudgetsAllowed(v)),
        cache(c),
        removals(std::move(budget)) {
    simulator.SetNodePrices(std::move(targets.prices));
    for (size_t i = 0; i < snapshot.size(); ++i) {
      if (snapshot.node(i).props->unschedulable) simulator.Exclude(i);  // cordoned
    }
    // Pods go to nodes that stay before candidates, as the scheduler prefers them too.
    for (size_t i = 0; i < s.nodes.size(); ++i) {
      if (snapshot_index[i] >= 0 && s.nodes[i].node->Marks().deletion_candidate) {
        simulator.Avoid(static_cast<size_t>(snapshot_index[i]));
      }
    }
  }
};

int64_t MinutesOrZero(absl::Duration d) { return absl::ToInt64Minutes(d); }

// How long a node must stay unneeded before it goes: its group's unneeded or unready time.
absl::Duration UnneededWait(const NodeStatus& s, const ClusterState& state) {
  const AutoscalingOptions& o = state.groups[s.group].provider->options;
  return s.condition == NodeCondition::kUnready ? o.scale_down_unready_time
                                                : o.scale_down_unneeded_time;
}

// Whether a busy node (at or over its threshold) is worth trying to consolidate this loop.
bool MayConsolidate(const NodeJudgement& judged, const Judging& j) {
  return j.payback > absl::ZeroDuration() && judged.utilization.gpu_node;
}

// The node-time the moving pods lose; zero when consolidation is off (nothing weighs it).
absl::Duration LostNodeTime(const NodeStatus& s, const ProviderGroup& g,
                            const std::vector<PodPtr>& moving, const Judging& j, absl::Time at) {
  if (j.payback <= absl::ZeroDuration() || moving.empty()) return absl::ZeroDuration();
  const GpuInventory* gpus = NodeGpus(s, g);
  const DrainedNode node{&s.node->node.allocatable, gpus,
                         gpus == nullptr ? nullptr : gpus->LayoutNamed(s.mig_layout)};
  return DisruptionNodeTime(moving, node, at);
}

// How long after a replacement is asked for a node it replaces drains: its unneeded time,
// which counts from the ask, or the new node's boot when that is longer.
absl::Duration ReplacedDrainDelay(const NodeStatus& s, const ClusterState& state) {
  return std::max(UnneededWait(s, state), kReplacementBoot);
}

// What the moving pods lose, against the payback window; empty: the drain pays back.
std::string UnpaidDisruption(absl::Duration lost, const Judging& j) {
  if (j.payback <= absl::ZeroDuration() || lost < j.payback) return "";
  return absl::StrCat("its pods would lose ",
                      absl::FormatDuration(absl::Trunc(lost, absl::Seconds(1))),
                      " of node time, not paid back by the ", absl::FormatDuration(j.payback),
                      " of its price it saves");
}

// One node's judging, its steps in the order they run. Each step lets the node on (nullopt)
// or ends its judging: the node stays, with a reason, or waits for a later loop's turn.
class NodeJudge {
 public:
  NodeJudge(int i, Judging& j)
      : j_(j),
        s_(j.state.nodes[i]),
        g_(*j.state.groups[s_.group].provider),
        at_(j.snapshot_index[i]),
        unready_(s_.condition == NodeCondition::kUnready) {
    out_.node = i;
  }

  NodeJudgement Run() {
    for (auto step :
         {&NodeJudge::Excluded, &NodeJudge::WeighUse, &NodeJudge::TakePods, &NodeJudge::MayGo}) {
      if (Ended ended = (this->*step)()) return *std::move(ended);
    }
    return SimulateRemoval();
  }

 private:
  using Ended = std::optional<NodeJudgement>;

  // It stays, as room for the nodes judged after it. A busy node tried for consolidation
  // stays NotUnderutilized, with why it could not go.
  NodeJudgement Stays(absl::string_view reason, std::string detail) {
    if (at_ >= 0) j_.simulator.Avoid(static_cast<size_t>(at_), false);
    out_.reason = consolidating_ ? kNotUnderutilized : reason;
    (consolidating_ ? out_.consolidation : out_.detail) = std::move(detail);
    return std::move(out_);
  }

  // This loop's simulations were spent on other nodes: judged again in a later loop. A
  // marked node keeps its mark and its clock meanwhile, and counts against what its group
  // may lose.
  NodeJudgement Deferred() {
    out_.deferred = true;
    if (s_.node->Marks().deletion_candidate) j_.removals.Take(out_.node, false, false);
    return std::move(out_);
  }

  // What no judging of its pods changes: the annotation, a replacement's node, unreadable pods.
  Ended Excluded() {
    if (s_.node->Marks().scale_down_disabled) {
      return Stays("ScaleDownDisabledAnnotation", "the node is annotated scale-down-disabled");
    }
    if (j_.replacement != nullptr && j_.replacement->IsReplacementNode(s_, j_.state)) {
      return Stays(kReplacing, absl::StrCat("it was brought up to replace ",
                                            absl::StrJoin(j_.replacement->replaced, ", "),
                                            ", whose pods have yet to move onto it"));
    }
    if (!j_.view.nodes_with_unreadable_pods.empty() &&
        j_.view.nodes_with_unreadable_pods.contains(s_.node->node.name)) {
      return Stays(BlockReasonName(BlockReason::kUnreadable),
                   "a pod on the node cannot be read, so it is not known to be free");
    }
    return std::nullopt;
  }

  // A ready node's use against its threshold; at or over it, a GPU node may be tried for
  // consolidation if this loop has a turn left.
  Ended WeighUse() {
    if (unready_) return std::nullopt;
    out_.utilization =
        UtilizationOf(s_, g_, j_.view, g_.options.ignore_daemonsets_utilization, j_.cache);
    out_.utilization_known = true;
    const double threshold = out_.utilization.gpu_node
                                 ? g_.options.scale_down_gpu_utilization_threshold
                                 : g_.options.scale_down_utilization_threshold;
    if (out_.utilization.value() < threshold) return std::nullopt;
    out_.threshold = threshold;
    if (!MayConsolidate(out_, j_)) return Stays(kNotUnderutilized, "");
    if (j_.consolidations_left == 0) {
      if (!s_.node->Marks().deletion_candidate) return Stays(kNotUnderutilized, "");
      return Deferred();
    }
    if (j_.consolidations_left > 0) --j_.consolidations_left;
    consolidating_ = true;
    return std::nullopt;
  }

  // The pods that move, under the drain rules, and the disruptions their budgets allow.
  Ended TakePods() {
    std::vector<std::vector<int>> budgets_of;
    for (const PodPtr& p : j_.view.PodsOn(s_.node->node.name)) {
      const PodDrainFacts facts = DrainFactsFor(j_.view, *p);
      const PodVerdict v = JudgePodForDrain(facts, j_.rules, j_.budgets);
      if (v.fate == PodFate::kBlocks) return Stays(BlockReasonName(v.reason), v.message);
      if (v.fate != PodFate::kMoves) continue;
      // Its gang would restart on nodes this simulation does not place: gangs move only
      // whole, which consolidation does not attempt.
      if (consolidating_ && p->spec.gang.has_value()) {
        return Stays("GangMember", absl::StrCat("pod ", p->spec.Key(), " is a member of gang ",
                                                p->spec.gang->name, ", which moves only whole"));
      }
      out_.to_evict.push_back(p);
      moving_.push_back(&p->spec);
      budgets_of.push_back(facts.budgets);
    }
    // Two pods of one budget on the node spend two of its disruptions.
    budgets_left_ = j_.budgets;
    for (const std::vector<int>& bs : budgets_of) {
      for (int b : bs) {
        if (--budgets_left_[b] < 0) {
          return Stays("NotEnoughPdb", "its pods need more disruptions than a budget allows");
        }
      }
    }
    return std::nullopt;
  }

  // Whether it may go at all, settled before its pods are moved: a node that stays is room.
  Ended MayGo() {
    // An unready node's pods are not doing their work anyway.
    if (!unready_) out_.lost = LostNodeTime(s_, g_, out_.to_evict, j_, j_.now);
    if (std::string unpaid = UnpaidDisruption(out_.lost, j_); !unpaid.empty()) {
      return Stays(kDisruptionNotPaidBack, std::move(unpaid));
    }
    if (std::optional<RemovalBudget::Refusal> refused = j_.removals.Refuses(out_.node)) {
      return Stays(refused->reason, std::move(refused->detail));
    }
    if (!moving_.empty() && !consolidating_) {
      if (j_.drains_left == 0) return Deferred();
      if (j_.drains_left > 0) --j_.drains_left;
    }
    return std::nullopt;
  }

  // Its pods moved in the simulation: a candidate the budget allows goes now or when its
  // time comes, taking its pods' new room and no pods of the nodes judged after it.
  NodeJudgement SimulateRemoval() {
    out_.unneeded_since = s_.node->Marks().candidate_since.value_or(j_.state.now);
    // A node a replacement is for has been unneeded since the replacement was asked for: it
    // only waited for the room the new node brings.
    if (j_.replacement != nullptr && j_.replacement->Replaces(s_.node->node.name)) {
      out_.unneeded_since = std::min(out_.unneeded_since, j_.replacement->asked_at);
    }
    const bool empty = out_.to_evict.empty();
    out_.removed_now = !j_.cooldown && out_.unneeded_since + UnneededWait(s_, j_.state) <= j_.now &&
                       j_.removals.MayStartNow(empty);
    std::string why;
    if (at_ >= 0 && !j_.simulator.TryRemove(static_cast<size_t>(at_), moving_, &why)) {
      out_.removed_now = false;
      return NoPlaceForPods(std::move(why));
    }
    j_.removals.Take(out_.node, out_.removed_now, empty);
    if (out_.removed_now) j_.budgets = std::move(budgets_left_);
    out_.unneeded = true;
    out_.consolidated = consolidating_;
    return std::move(out_);
  }

  // Its pods fit on no node that stays: warm capacity it holds, or a node one new node might
  // replace.
  NodeJudgement NoPlaceForPods(std::string why) {
    auto warm = j_.placeholders.find(j_.simulator.last_unplaced());
    if (warm != j_.placeholders.end()) {
      return Stays(kWarmCapacity,
                   absl::StrCat("it holds warm capacity of CapacityBuffer ",
                                warm->second->capacity_buffer, " that no other node has room for"));
    }
    out_.replaceable = !unready_ && out_.utilization.gpu_node && !j_.simulator.Received(at_) &&
                       std::none_of(out_.to_evict.begin(), out_.to_evict.end(),
                                    [](const PodPtr& p) { return p->spec.gang.has_value(); });
    if (out_.replaceable) {
      out_.lost_when_replaced =
          LostNodeTime(s_, g_, out_.to_evict, j_, j_.now + ReplacedDrainDelay(s_, j_.state));
    }
    return Stays("NoPlaceToMovePods", std::move(why));
  }

  Judging& j_;
  const NodeStatus& s_;
  const ProviderGroup& g_;
  const int at_;  // its place in the target snapshot, -1 when not there
  const bool unready_;
  bool consolidating_ = false;  // a busy node tried for consolidation
  NodeJudgement out_;
  std::vector<const PodSpec*> moving_;
  std::vector<int> budgets_left_;  // the budgets' disruptions left if it goes
};

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
uint32_t GpusInUse(const NodeStatus& s, const ClusterState& state, const ClusterView& view,
                   RunningNodeCache& nodes) {
  const ProviderGroup& g = *state.groups[s.group].provider;
  if (g.gpus == nullptr || s.condition != NodeCondition::kReady) return 0;
  const double used =
      UtilizationOf(s, g, view, g.options.ignore_daemonsets_utilization, nodes).gpu *
      g.gpus->physical_count();
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

std::string NodeJudgement::Detail() const {
  if (reason != kNotUnderutilized) return detail;
  return absl::StrCat(
      utilization.gpu_node ? "GPU" : "cpu/memory", " use ",
      static_cast<int>(utilization.value() * 100), "% is not under ",
      static_cast<int>(threshold * 100), "%",
      consolidation.empty() ? "" : ", and it cannot be consolidated: ", consolidation);
}

const GpuInventory* NodeGpus(const NodeStatus& s, const ProviderGroup& g) {
  const absl::StatusOr<std::shared_ptr<const GpuInventory>>& own = s.node->Gpus();
  return own.ok() && *own != nullptr ? own->get() : g.gpus.get();
}

NodeUtilization UtilizationOf(const NodeStatus& s, const ProviderGroup& g, const ClusterView& view,
                              bool ignore_daemonsets, RunningNodeCache& cache) {
  const NodeObject& n = *s.node;
  const absl::StatusOr<std::shared_ptr<const GpuInventory>>& own = n.Gpus();
  const bool own_gpus = own.ok() && *own != nullptr;
  const GpuInventory* gpus = own_gpus ? own->get() : g.gpus.get();
  const auto compute = [&] {
    const NamedMigLayout* layout = gpus == nullptr ? nullptr : gpus->LayoutNamed(s.mig_layout);
    const std::vector<PodPtr>& on_node = view.PodsOn(n.node.name);
    std::vector<PodUse> pods;
    pods.reserve(on_node.size());
    for (const PodPtr& p : on_node) {
      if (p->finished()) continue;
      pods.push_back({&p->spec, p->daemonset(), p->mirror});
    }
    return ComputeUtilization(n.node.allocatable, gpus, layout, pods, ignore_daemonsets);
  };
  // The group's inventory belongs to this loop's provider snapshot: nothing kept is keyed by it.
  if (!own_gpus && gpus != nullptr) return compute();
  return cache.UtilizationOf(s.node, view, {gpus, s.mig_layout, ignore_daemonsets}, compute);
}

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
                                    GpusInUse(s, state, view, nodes)
                              : (uint64_t{1} << 63) | judged_rank;
    const uint64_t low = (uint64_t{!marked.has_value()} << 63) |
                         (uint64_t{state.groups[s.group].provider->gpus == nullptr} << 62) |
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
  Judging j(view, state, rules, std::move(targets), kept.snapshot, nodes, kept.admissions,
            RemovalBudget(state, options_, limits_, DrainsUnderWay(view, state), nodes));
  j.cooldown = !plan.cooldown.empty();
  j.now = now;
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
    NodeJudgement judged = NodeJudge(i, j).Run();
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
