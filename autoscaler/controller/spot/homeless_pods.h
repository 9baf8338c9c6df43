// The pods of preempted nodes that must find a new home before theirs goes: nodes found
// preempted this loop, and those whose preemption drain is under way. A pod whose controller
// will recreate it asks for itself once evicted; these are planned for now, so the new node
// is on its way before the old one is gone. Pods without a controller are not coming back.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SPOT_HOMELESS_PODS_H_
#define GPUA_AUTOSCALER_CONTROLLER_SPOT_HOMELESS_PODS_H_

#include <vector>

#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/cluster_view.h"

namespace gpua {

std::vector<PodPtr> HomelessPods(const ClusterView& view, const ClusterState& state);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SPOT_HOMELESS_PODS_H_
