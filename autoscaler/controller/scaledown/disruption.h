// What draining a node costs the work on it, so that consolidation moves pods only when the
// node's saved price pays the loss back within --consolidation-payback. Measured as time of
// the node being drained: each moving pod's share of it (the largest part of its GPUs, cpu
// or memory the pod requests) times what the pod loses. The node's price is on both sides of
// "saving over the payback window exceeds the loss", so the rule needs no price: a node may
// be consolidated when the node-time its pods lose is under the payback window.
//
// What a pod loses: a Job's pod, a pod of no controller and a gang's member start again from
// nothing, so they lose the time they have run (status.startTime; a gang's member restarts
// its whole gang, counted as min-member times this member's loss); a pod of a Deployment,
// StatefulSet or other long-running controller serves again once restarted, and loses
// kServiceRestart.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_DISRUPTION_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_DISRUPTION_H_

#include <vector>

#include "absl/time/time.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/resource_list.h"

namespace gpua {

// A served pod's restart: stopping, starting elsewhere and loading its model again.
inline constexpr absl::Duration kServiceRestart = absl::Minutes(2);

// What `pod` loses when it is moved at `now`, in its own time (before its share is applied).
absl::Duration WorkLost(const PodObject& pod, absl::Time now);

// The node whose pods move: its allocatable and, for a GPU node, its inventory and layout.
struct DrainedNode {
  const ResourceList* allocatable = nullptr;
  const GpuInventory* gpus = nullptr;
  const NamedMigLayout* layout = nullptr;
};

// The node-time the moving pods lose: the sum of each one's share of `node` times WorkLost.
absl::Duration DisruptionNodeTime(const std::vector<PodPtr>& moving, const DrainedNode& node,
                                  absl::Time now);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_DISRUPTION_H_
