#include "autoscaler/controller/scaledown/node_judge.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autoscaler/controller/planning/node_use.h"
#include "autoscaler/controller/scaledown/disruption.h"

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

}  // namespace

Judging::Judging(const PlanningInput& in, const DrainRules& r, TargetPlaces places,
                 ScaleDownMemory& kept, RemovalBudget budget)
    : view(in.view),
      state(in.state),
      rules(r),
      snapshot_index(std::move(places.index)),
      snapshot(kept.snapshot),
      simulator(snapshot, kept.admissions),
      budgets(BudgetsAllowed(in.view)),
      cache(in.kept.nodes),
      removals(std::move(budget)),
      now(in.now) {
  simulator.SetNodePrices(std::move(places.prices));
  for (size_t i = 0; i < snapshot.size(); ++i) {
    if (snapshot.node(i).props->unschedulable) simulator.Exclude(i);  // cordoned
  }
  // Pods go to nodes that stay before candidates, as the scheduler prefers them too.
  for (size_t i = 0; i < state.nodes.size(); ++i) {
    if (snapshot_index[i] >= 0 && state.nodes[i].node->Marks().deletion_candidate) {
      simulator.Avoid(static_cast<size_t>(snapshot_index[i]));
    }
  }
}

absl::Duration UnneededWait(const NodeStatus& s, const ClusterState& state) {
  const AutoscalingOptions& o = state.groups[s.group].provider->options;
  return s.condition == NodeCondition::kUnready ? o.scale_down_unready_time
                                                : o.scale_down_unneeded_time;
}

absl::Duration ReplacedDrainDelay(const NodeStatus& s, const ClusterState& state) {
  return std::max(UnneededWait(s, state), kReplacementBoot);
}

NodeJudgement JudgeNode(int node, Judging& judging) { return NodeJudge(node, judging).Run(); }

std::string NodeJudgement::Detail() const {
  if (reason != kNotUnderutilized) return detail;
  return absl::StrCat(
      utilization.gpu_node ? "GPU" : "cpu/memory", " use ",
      static_cast<int>(utilization.value() * 100), "% is not under ",
      static_cast<int>(threshold * 100), "%",
      consolidation.empty() ? "" : ", and it cannot be consolidated: ", consolidation);
}

}  // namespace gpua
