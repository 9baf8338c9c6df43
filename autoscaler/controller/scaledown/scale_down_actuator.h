// Scale-down, the acting half. A removal starts by writing its intent on the node (the
// ToBeDeletedByClusterAutoscaler taint, whose value is when, and the reason annotation),
// then evicts the node's pods through the Eviction API (PodDisruptionBudgets decide; a
// refusal is asked again next loop, never forced) with at most --max-graceful-termination-sec
// of grace, and deletes the node through its group once no pod is left. Every loop moves each
// removal under way on from what the cluster shows, so a restart resumes it: a drain that
// has not finished in time is undone (taint and annotation removed, ScaleDownFailed), a
// provider that fails to delete leaves the taint for the next loop. A preempted node's
// drain is bounded by the notice instead, and the node is deleted when it runs out; a broken
// node's (reason "repair") by --repair-drain-time.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_SCALE_DOWN_ACTUATOR_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_SCALE_DOWN_ACTUATOR_H_

#include <map>
#include <string>
#include <vector>

#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/group_resizer.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "autoscaler/controller/model/preemptions.h"
#include "autoscaler/controller/planning/planning_input.h"
#include "autoscaler/controller/scaledown/scale_down_planner.h"
#include "base/log.h"

namespace gpua {

struct RemovedNode {
  std::string node;
  std::string reason;  // empty, underutilized, unready, preempted
};

struct ScaleDownReport {
  std::vector<RemovedNode> deleted;
  std::map<std::string, int> evictions;  // evicted, blocked (by a budget), failed
  int started = 0;
  int rolled_back = 0;
  int delete_errors = 0;
  // Groups asked for a node to replace others (consolidation), one entry per node.
  std::vector<std::string> replacements;
};

class ScaleDownActuator {
 public:
  ScaleDownActuator(KubeWriter& writer, LogSink& log, const ScaleDownOptions& options,
                    const StatusOptions& status)
      : writer_(writer), log_(log), options_(options), status_(status) {}

  // The DeletionCandidate taints: on the nodes found unneeded (valued with when), off the
  // nodes no longer so.
  void Mark(const ScaleDownPlan& plan, const ClusterState& state);
  // Starts the plan's removals and the preempted nodes' drains.
  // Nodes are deleted through `groups`.
  void Start(const std::vector<NodeRemoval>& removals, const PlanningInput& in,
             ScaleDownReport& report);
  // Drains the state's preempted nodes.
  void StartPreempted(const PlanningInput& in, ScaleDownReport& report);
  // Moves every removal under way (nodes carrying the taint) on.
  void Continue(const PlanningInput& in, ScaleDownReport& report);

 private:
  bool Begin(const NodeStatus& s, const std::string& reason, absl::Time now);
  // The most grace a pod gets, by the removal's reason: a preempted or broken node's drain is
  // bounded by its own time.
  absl::Duration MaxGrace(absl::string_view reason) const;
  // Evicts what is left; true when nothing is.
  bool Drain(const NodeStatus& s, const ClusterView& view, absl::Duration max_grace,
             ScaleDownReport& report);
  // Deletes the node, marked at `marked_at`, through its group; false when the provider refused.
  bool Delete(const NodeStatus& s, const PlanningInput& in, const std::string& reason,
              absl::Time marked_at, ScaleDownReport& report);
  void RollBack(const NodeStatus& s, const std::string& why, ScaleDownReport& report);

  KubeWriter& writer_;
  LogSink& log_;
  const ScaleDownOptions& options_;
  const StatusOptions& status_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_SCALE_DOWN_ACTUATOR_H_
