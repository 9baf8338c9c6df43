// Physical GPUs billed and not used, by group and by what keeps them (idle_cause.h): the cost
// scale-down is there to cut, and what gpu_autoscaler_idle_gpus reports. A ready node's use is
// what scale-down found when it judged the node this loop, else worked out here; a node not
// ready uses none.
#ifndef GPUA_AUTOSCALER_CONTROLLER_METRICS_IDLE_GPUS_H_
#define GPUA_AUTOSCALER_CONTROLLER_METRICS_IDLE_GPUS_H_

#include <map>
#include <string>
#include <vector>

#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/planning/running_node_cache.h"
#include "autoscaler/controller/scaledown/idle_cause.h"

namespace gpua {

// `known_gpu_use`: by state node, the GPU use scale-down found (-1 where it did not judge);
// `causes`: by state node, why scale-down keeps it (a node starting or being removed is filed
// as such whatever it says; a node it does not say is kOther). Groups without GPUs are left
// out.
std::map<std::string, IdleGpuCount> IdleGpus(const ClusterView& view, const ClusterState& state,
                                             const std::vector<double>& known_gpu_use,
                                             const std::vector<IdleCause>& causes,
                                             RunningNodeCache& nodes);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_METRICS_IDLE_GPUS_H_
