// What a node of a simulated group is, for the bounds: its template's GPUs and labels, and
// the allocatable of a ready node in each MIG layout it may have (one kind otherwise).
#ifndef GPUA_AUTOSCALER_SIM_GROUP_SHAPE_H_
#define GPUA_AUTOSCALER_SIM_GROUP_SHAPE_H_

#include <memory>
#include <optional>
#include <vector>

#include "cloudproviders/node_group_file.h"
#include "estimator/dra/device.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/gpu/gpu_predicates.h"
#include "estimator/node.h"
#include "estimator/pod.h"

namespace gpua::sim {

struct NodeKind {
  const NamedMigLayout* layout = nullptr;  // null: not a MIG pool
  ResourceList allocatable;                // once its GPUs are advertised
};

struct GroupShape {
  const NodeGroupConfig* config = nullptr;
  std::optional<GpuInventory> gpus;  // unset: no GPUs, or none that could be read
  NodeProps props;
  std::vector<NodeKind> kinds;
  // A pool whose GPUs are DRA devices: its template's devices, and how many GPUs they are.
  std::shared_ptr<const dra::NodeDevices> devices;
  int device_gpus = 0;
};

std::vector<GroupShape> GroupShapes(const std::vector<NodeGroupConfig>& groups);

// Whether a node of the group may run the pod at all: selectors and taints, the GPU
// predicates, and room on an empty node of some kind.
bool Holds(const GroupShape& g, const PodSpec& pod, const GpuPolicy& policy);

// The physical GPUs the pod's DRA claims (PodSpec::devices) take on an empty node of the
// group, as the scheduler would allocate them there (a shared claim's count for none: other
// pods may use them too); nullopt when that node's devices cannot satisfy them; 0 for a pod
// with no claims.
std::optional<double> DeviceGpusOn(const PodSpec& pod, const GroupShape& g);

// How many of the pod one node of the group holds at most, over its kinds.
int64_t CopiesPerNode(const PodSpec& pod, const GroupShape& g);

// Whether some group may hold a gang of `size` such pods at once, within its max size.
bool SomeGroupHoldsGang(const PodSpec& pod, int size, const std::vector<GroupShape>& groups,
                        const GpuPolicy& policy);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_GROUP_SHAPE_H_
