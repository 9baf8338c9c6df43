// How used a node is, as scale-down judges it. A GPU node is judged by its GPUs alone, in
// physical GPUs (a time-sliced share or a MIG slice counts for the part of a GPU it uses),
// so a GPU node whose GPU work has ended is idle whatever small cpu pods remain; any other
// node by the larger of its cpu and memory requests over allocatable, as
// cluster-autoscaler does.
#ifndef GPUA_ESTIMATOR_NODE_UTILIZATION_H_
#define GPUA_ESTIMATOR_NODE_UTILIZATION_H_

#include <vector>

#include "estimator/gpu/gpu_inventory.h"
#include "estimator/pod.h"

namespace gpua {

struct NodeUtilization {
  bool gpu_node = false;
  double gpu = 0;  // of the physical GPUs, 0 to 1
  double cpu = 0;
  double memory = 0;
  // What is compared with the threshold: gpu for a GPU node, max(cpu, memory) otherwise.
  double value() const { return gpu_node ? gpu : (cpu > memory ? cpu : memory); }
};

struct PodUse {
  const PodSpec* pod = nullptr;
  bool daemonset = false;
  bool mirror = false;
};

// `gpus`: the node's inventory, if it has GPUs; `layout`: its MIG layout, if any.
// `ignore_daemonsets`: DaemonSet pods do not count (a group's ignoreDaemonSetsUtilization).
NodeUtilization ComputeUtilization(const ResourceList& allocatable, const GpuInventory* gpus,
                                   const NamedMigLayout* layout, const std::vector<PodUse>& pods,
                                   bool ignore_daemonsets);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_NODE_UTILIZATION_H_
