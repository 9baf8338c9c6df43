// The node-group file's warm capacity (`warm: {nodes, schedule}`) as a real cluster says it:
// CapacityBuffers and the PodTemplates they name, which the simulated cluster serves so that
// the controller keeps them exactly as it would a user's. A node's worth is one placeholder
// per unit the group's nodes advertise (a whole GPU, a time-slice or MPS share, a MIG device of
// the first layout the group lists, or for a group without GPUs its whole cpu and memory),
// each pinned to the group by its template's labels and tolerating its taints.
#ifndef GPUA_AUTOSCALER_SIM_WARM_BUFFERS_H_
#define GPUA_AUTOSCALER_SIM_WARM_BUFFERS_H_

#include <optional>
#include <vector>

#include "autoscaler/controller/model/cluster_view.h"
#include "cloudproviders/node_group_file.h"
#include "estimator/gpu/gpu_inventory.h"

namespace gpua::sim {

inline constexpr char kWarmNamespace[] = "gpu-autoscaler-warm";

struct WarmObjects {
  std::vector<CapacityBufferPtr> buffers;
  std::vector<PodTemplatePtr> templates;
};

// Nothing for a group without warm settings.
WarmObjects WarmBuffersOf(const NodeGroupConfig& group, const std::optional<GpuInventory>& gpus);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_WARM_BUFFERS_H_
