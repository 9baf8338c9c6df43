#include "autoscaler/controller/scaledown/scale_down_step.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace gpua {

void ScaleDownStep::ContinueRemovals(const ClusterView& view, const ClusterState& state,
                                     GroupResizer& groups, absl::Time now,
                                     ScaleDownReport& report) {
  actuator_.Continue(view, state, groups, now, report);
  actuator_.StartPreempted(state.preemptions, view, state, now, report);
}

ScaleDownResult ScaleDownStep::Run(const ClusterView& view, const ClusterState& state,
                                   GroupResizer& groups, int pods_for_existing_nodes,
                                   int nodes_added, const std::vector<PodPtr>& placeholders,
                                   RunningNodeCache& nodes, absl::Time now,
                                   ScaleDownReport& report) {
  ScaleDownClock& clock = kept_.clock;
  if (nodes_added > 0) clock.last_scale_up = now;
  // After a restart the newest node says when the last scale-up came.
  for (const NodeStatus& s : state.nodes) {
    if (s.group >= 0 && s.node->created != absl::InfinitePast()) {
      clock.last_scale_up = std::max(clock.last_scale_up, s.node->created);
    }
  }
  const ScaleDownPlan plan =
      planner_.Plan(view, state, pods_for_existing_nodes, placeholders, now, nodes, kept_);
  ScaleDownResult result;
  result.status = plan.status;
  result.next_due = plan.next_due;
  result.cooldown = plan.cooldown;
  absl::flat_hash_map<absl::string_view, int> unremovable;  // a few reasons, many nodes
  for (const NodeJudgement& j : plan.judged) {
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
  actuator_.Start(plan.removals, view, state, groups, now, report);
  if (!report.deleted.empty()) clock.last_delete = now;
  if (report.rolled_back > 0) clock.last_failure = now;
  result.gpu_use.assign(state.nodes.size(), -1);
  result.idle_cause.assign(state.nodes.size(), IdleCause::kOther);
  for (const NodeJudgement& j : plan.judged) {
    if (j.utilization_known) result.gpu_use[j.node] = j.utilization.gpu;
    result.idle_cause[j.node] = IdleCauseOf(j);
  }
  return result;
}

}  // namespace gpua
