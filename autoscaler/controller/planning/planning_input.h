// What the steps of one loop read, built once per loop by Controller::RunOnce, and what the
// loop keeps from one loop to the next. Each step takes the input whole and reads what it
// needs of it; what a step changes is named: group sizes only through `groups`, the kept
// memory through `kept`. A step's own memory (its planner's verdicts, its nominations) stays
// an explicit member of that step.
#ifndef GPUA_AUTOSCALER_CONTROLLER_PLANNING_PLANNING_INPUT_H_
#define GPUA_AUTOSCALER_CONTROLLER_PLANNING_PLANNING_INPUT_H_

#include "absl/time/time.h"
#include "autoscaler/controller/mig/mig_layouts.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/group_resizer.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "autoscaler/controller/model/node_group_backoff.h"
#include "autoscaler/controller/planning/running_node_cache.h"
#include "base/log.h"

namespace gpua {

// Kept across loops and read by more than one step. What must survive a restart is written to
// the cluster: the MIG layouts of nodes on their way (by `mig`), and the taints and
// annotations the steps write on nodes; the rest is rebuilt from what the cluster shows.
struct LoopMemory {
  LoopMemory(KubeWriter& writer, const ControllerOptions& options, LogSink& log)
      : backoff(options.cluster_state.backoff), mig(writer, options.status, log) {}

  NodeGroupBackoff backoff;  // groups that failed to bring nodes, and until when
  RunningNodeCache nodes;    // what the planners read off running nodes
  MigLayouts mig;            // the MIG layouts of nodes asked for and not registered
};

struct PlanningInput {
  const ClusterView& view;    // one consistent view of the cluster
  const ClusterState& state;  // built on it and on the provider's answers
  GroupResizer& groups;       // the only way a step changes a group's size this loop
  LoopMemory& kept;
  absl::Time now;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_PLANNING_PLANNING_INPUT_H_
