// Scale-up, one loop of it: brings the nominations up to date, plans the pods that may
// trigger a scale-up and asks for their nodes in rounds (a group that refuses or fails is
// left out and its pods planned again without it in the same loop, so a stockout moves to
// the next option at once), says for each pod no group can help why not, and writes the
// nominatedNodeName of pods whose node has registered.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEUP_SCALE_UP_STEP_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEUP_SCALE_UP_STEP_H_

#include <vector>

#include "autoscaler/controller/increase/scale_up_actuator.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/events.h"
#include "autoscaler/controller/model/group_resizer.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "autoscaler/controller/model/node_group_backoff.h"
#include "autoscaler/controller/model/pending_pods.h"
#include "autoscaler/controller/planning/planning_input.h"
#include "autoscaler/controller/scaleup/expander_choice.h"
#include "autoscaler/controller/scaleup/nominations.h"
#include "autoscaler/controller/scaleup/scale_up_planner.h"
#include "base/log.h"

namespace gpua {

struct ScaleUpResult {
  int fit_existing = 0;      // of the first round: left to the scheduler (placeholders not counted)
  int without_scale_up = 0;  // no group can help them
  std::vector<ScaleUpOutcome> outcomes;
};

// The pods a loop's scale-up plans for, after those this controller nominated to nodes.
struct PodsToScaleFor {
  const PendingPods& pending;
  // Pods of preempted nodes that need a new home before theirs goes.
  const std::vector<PodPtr>& homeless;
  // Warm capacity (planning/buffer_pods.h), planned after every pod that waits.
  const std::vector<PodPtr>& placeholders;
  // Nodes this loop asked for before scale-up (a broken node's replacement), by group: planned
  // as on their way, and counted against the groups' max sizes.
  std::map<std::string, int> added_earlier = {};
};

class ScaleUpStep {
 public:
  ScaleUpStep(KubeWriter& writer, LogSink& log, const ControllerOptions& options);

  // Says, once per pod and message, which unschedulable pods cannot be read.
  void ReportInvalidPods(const std::vector<PodPtr>& pods, absl::Time now);
  // One loop: plans only when the state is healthy, keeps nominations either way. Nodes are
  // asked for through the one ScaleUpActuator.
  ScaleUpResult Run(const PlanningInput& in, const PodsToScaleFor& pods);

 private:
  // The pods that may trigger a scale-up, those nominated to a node by this controller
  // (placed on it first, planned again if it no longer holds them), then `homeless`, then
  // `placeholders`.
  std::vector<PodPtr> PodsToPlan(const PodsToScaleFor& pods) const;
  ScaleUpResult Rounds(const PlanningInput& in, const std::vector<PodPtr>& pods,
                       const std::map<std::string, int>& added_earlier);
  // Keeps the nominations the plan decided: pods on nodes on their way, pods missed.
  void Nominate(const ScaleUpDecision& decision, const ClusterState& state, absl::Time now);
  // Each nominated pod's registered node in its nominatedNodeName where that is unset;
  // cleared where a nomination ended and the field still names its node.
  void WriteNominations(const ClusterView& view, const ClusterState& state, absl::Time now);
  void SayWithoutScaleUp(const std::vector<PodWithoutScaleUp>& pods, absl::Time now);

  KubeWriter& writer_;
  LogSink& log_;
  ScaleUpPlanner planner_;
  ScaleUpMemory kept_;       // what the planner keeps from loop to loop
  Nominations nominations_;  // pods promised nodes on their way, kept across loops
  ScaleUpActuator actuator_;
  ExpanderChoice expanders_;
  PodEventMemory pod_events_;
  PodEventMemory nomination_warnings_;  // failed nominatedNodeName writes, said now and then
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEUP_SCALE_UP_STEP_H_
