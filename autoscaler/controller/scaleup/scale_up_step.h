// Scale-up, one loop of it: brings the nominations up to date, plans the pods that may
// trigger a scale-up and asks for their nodes in rounds (a group that refuses or fails is
// left out and its pods planned again without it in the same loop, so a stockout moves to
// the next option at once), says for each pod no group can help why not, and writes the
// nominatedNodeName of pods whose node has registered.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEUP_SCALE_UP_STEP_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEUP_SCALE_UP_STEP_H_

#include <vector>

#include "autoscaler/controller/cluster_state.h"
#include "autoscaler/controller/cluster_view.h"
#include "autoscaler/controller/controller_options.h"
#include "autoscaler/controller/events.h"
#include "autoscaler/controller/group_resizer.h"
#include "autoscaler/controller/kube_writer.h"
#include "autoscaler/controller/mig_book_store.h"
#include "autoscaler/controller/mig_layout_book.h"
#include "autoscaler/controller/node_group_backoff.h"
#include "autoscaler/controller/pending_pods.h"
#include "autoscaler/controller/planning/running_node_cache.h"
#include "autoscaler/controller/scaleup/expander_choice.h"
#include "autoscaler/controller/scaleup/nominations.h"
#include "autoscaler/controller/scaleup/scale_up_actuator.h"
#include "autoscaler/controller/scaleup/scale_up_planner.h"
#include "base/log.h"

namespace gpua {

struct ScaleUpResult {
  int fit_existing = 0;      // of the first round: left to the scheduler (placeholders not counted)
  int without_scale_up = 0;  // no group can help them
  std::vector<ScaleUpOutcome> outcomes;
};

class ScaleUpStep {
 public:
  // `mig_store` keeps the MIG layouts of an increase in the cluster before it is asked for.
  ScaleUpStep(KubeWriter& writer, NodeGroupBackoff& backoff, MigBookStore& mig_store, LogSink& log,
              const ControllerOptions& options);

  // Says, once per pod and message, which unschedulable pods cannot be read.
  void ReportInvalidPods(const std::vector<PodPtr>& pods, absl::Time now);
  // One loop. `plan`: whether the cluster is healthy enough to scale. `homeless`: pods of
  // preempted nodes that need a new home before theirs goes. `placeholders`: warm capacity
  // (planning/buffer_pods.h), planned after every pod that waits. The new nodes' MIG layouts go
  // into `mig_layouts`.
  // Nodes are asked for through `groups`.
  ScaleUpResult Run(const ClusterView& view, const ClusterState& state, GroupResizer& groups,
                    const PendingPods& pending, const std::vector<PodPtr>& homeless,
                    const std::vector<PodPtr>& placeholders, bool plan, MigLayoutBook& mig_layouts,
                    RunningNodeCache& nodes, absl::Time now);

 private:
  // The pods that may trigger a scale-up, those nominated to a node by this controller
  // (placed on it first, planned again if it no longer holds them), then `homeless`, then
  // `placeholders`.
  std::vector<PodPtr> PodsToPlan(const PendingPods& pending, const std::vector<PodPtr>& homeless,
                                 const std::vector<PodPtr>& placeholders) const;
  ScaleUpResult Rounds(const ClusterView& view, const ClusterState& state, GroupResizer& groups,
                       const std::vector<PodPtr>& pods, MigLayoutBook& mig_layouts,
                       RunningNodeCache& nodes, absl::Time now);
  // Keeps the nominations the plan decided: pods on nodes on their way, pods missed.
  void Nominate(const ScaleUpDecision& decision, const ClusterState& state, absl::Time now);
  // Each nominated pod's registered node in its nominatedNodeName where that is unset;
  // cleared where a nomination ended and the field still names its node.
  void WriteNominations(const ClusterView& view, const ClusterState& state, absl::Time now);
  void SayWithoutScaleUp(const std::vector<PodWithoutScaleUp>& pods, absl::Time now);

  // Writes the book with the layouts of `requests` added, ahead of asking for them.
  void KeepLayoutsAhead(const MigLayoutBook& mig_layouts,
                        const std::vector<ScaleUpRequest>& requests);

  KubeWriter& writer_;
  MigBookStore& mig_store_;
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
