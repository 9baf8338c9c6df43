#include "autoscaler/controller/scaledown/scale_down_step.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "autoscaler/controller/model/events.h"
#include "autoscaler/controller/planning/planning_cluster.h"
#include "autoscaler/controller/planning/resource_limits.h"

namespace gpua {
namespace {

// Past a replacement's expected course, before it is given up: a few loops for the drains of
// the nodes it replaces to start.
constexpr absl::Duration kReplacementSlack = absl::Minutes(5);

}  // namespace

void ScaleDownStep::ContinueRemovals(const PlanningInput& in, ScaleDownReport& report) {
  actuator_.Continue(in, report);
  actuator_.StartPreempted(in, report);
}

void ScaleDownStep::StartRepairs(const std::vector<int>& nodes, const PlanningInput& in,
                                 ScaleDownReport& report) {
  std::vector<NodeRemoval> removals;
  removals.reserve(nodes.size());
  for (int n : nodes) removals.push_back({n, kRepairReason, {}, "the node is broken"});
  actuator_.Start(removals, in, report);
}

ScaleDownResult ScaleDownStep::Run(const PlanningInput& in, const AfterScaleUp& loop,
                                   ScaleDownReport& report) {
  const ClusterView& view = in.view;
  const ClusterState& state = in.state;
  const absl::Time now = in.now;
  CooldownStarts& starts = kept_.cooldown_starts;
  if (loop.nodes_added > 0) starts.last_scale_up = now;
  // After a restart the newest node says when the last scale-up came.
  for (const NodeStatus& s : state.nodes) {
    if (s.group >= 0 && s.node->created != absl::InfinitePast()) {
      starts.last_scale_up = std::max(starts.last_scale_up, s.node->created);
    }
  }
  // A restart, or a new leader, carries on the replacement the last one began.
  if (KeptReplacement recalled = replacement_store_.Recall(view); !kept_.replacement.has_value()) {
    kept_.replacement = std::move(recalled.pending);
  }
  EndReplacement(state, now);
  const ScaleDownPlan plan = planner_.Plan(in, loop, kept_);
  ScaleDownResult result;
  result.status = plan.status;
  result.next_due = plan.next_due;
  result.cooldown = plan.cooldown;
  absl::flat_hash_map<absl::string_view, int> unremovable;  // a few reasons, many nodes
  result.node_verdicts.reserve(plan.judged.size());
  for (const NodeJudgement& j : plan.judged) {
    result.node_verdicts.emplace_back(state.nodes[j.node].node->node.name, j.unneeded);
    if (j.unneeded) {
      ++result.unneeded;
    } else {
      ++unremovable[j.reason];
      if (log_.V(2)) {  // every node, every loop: the line is built only when written
        log_.Info(
            absl::StrCat("Node ", state.nodes[j.node].node->node.name, " stays: ", j.Detail()), 2);
      }
    }
  }
  for (const auto& [reason, n] : unremovable) result.unremovable[std::string(reason)] += n;
  actuator_.Mark(plan, state);
  actuator_.Start(plan.removals, in, report);
  if (!report.deleted.empty()) starts.last_delete = now;
  if (report.rolled_back > 0) starts.last_failure = now;
  // Not while a scale-up acts: the pods that wait come first, and the group sizes move.
  if (plan.cooldown.empty() && loop.nodes_added == 0 && !plan.replaceable.empty() &&
      now >= kept_.no_replacement_until) {
    StartReplacement(in, plan, report);
  }
  (void)replacement_store_.Keep({kept_.replacement});  // a failure is tried again next loop
  result.gpu_use.assign(state.nodes.size(), -1);
  result.idle_cause.assign(state.nodes.size(), IdleCause::kOther);
  for (const NodeJudgement& j : plan.judged) {
    if (j.utilization_known) result.gpu_use[j.node] = j.utilization.gpu;
    result.idle_cause[j.node] = IdleCauseOf(j);
  }
  return result;
}

void ScaleDownStep::EndReplacement(const ClusterState& state, absl::Time now) {
  std::optional<PendingReplacement>& pending = kept_.replacement;
  if (!pending.has_value()) return;
  const bool some_left =
      std::any_of(pending->replaced.begin(), pending->replaced.end(), [&](const std::string& n) {
        auto it = state.node_index.find(n);
        return it != state.node_index.end() &&
               state.nodes[it->second].condition != NodeCondition::kBeingDeleted;
      });
  // A group backed off since has failed to bring the node (a stockout): it is not coming.
  const GroupState* group = state.FindGroup(pending->group);
  const bool failed = group == nullptr || group->backoff.has_value();
  if (some_left && !failed && now < pending->until) return;
  if (some_left) {
    kept_.no_replacement_until = now + (pending->until - pending->asked_at);
    log_.Warning(absl::StrCat(
        "Consolidation: gave up replacing ", absl::StrJoin(pending->replaced, ", "), "; ",
        failed ? absl::StrCat("group ", pending->group, " failed to bring the node")
               : absl::StrCat("they did not go in time, and the new node of group ", pending->group,
                              " is judged like any other from now"),
        "; no replacement starts before ",
        absl::FormatTime("%H:%M:%S", kept_.no_replacement_until, absl::UTCTimeZone())));
  }
  pending.reset();
}

void ScaleDownStep::StartReplacement(const PlanningInput& in, const ScaleDownPlan& plan,
                                     ScaleDownReport& report) {
  const ClusterState& state = in.state;
  const absl::Time now = in.now;
  ReplacementSearch search;
  search.payback = options_.scale_down.consolidation_payback;
  search.packing.budgets = LimitBudgets(options_.limits, state, {}, in.kept.nodes);
  std::optional<NodeReplacement> found = PlanReplacement(
      plan.replaceable, GrowableGroups(in.view, state, options_.scale_up.ignored_taints), search);
  if (!found.has_value()) return;
  const GroupState* group = state.FindGroup(found->group);
  if (group == nullptr) return;  // the search only names groups it was given
  PendingReplacement pending{found->group, {}, now, now};
  absl::Duration wait;  // the longest unneeded time of the nodes replaced
  for (const ReplaceableNode& n : found->replaced) {
    pending.replaced.push_back(n.name);
    const NodeStatus& s = state.nodes[n.node];
    wait = std::max(wait, state.groups[s.group].provider->options.scale_down_unneeded_time);
  }
  // Time for the new node to come, the replaced nodes' unneeded time, and their drains' start.
  pending.until = now + group->provider->options.max_node_provision_time + wait + kReplacementSlack;
  (void)replacement_store_.Keep({pending});  // ahead of the ask, as the MIG book
  ScaleUpRequest ask;
  ask.group = found->group;
  ask.delta = 1;
  if (!found->mig_layout.empty()) ask.mig_layouts = {found->mig_layout};
  ask.replaces = found->Describe();
  if (!increases_.Execute({ask}, in, {}).front().status.ok()) {
    kept_.cooldown_starts.last_failure = now;  // a failed scale-down's cooldown
    return;
  }
  kept_.replacement = std::move(pending);
  report.replacements.push_back(found->group);
}

}  // namespace gpua
