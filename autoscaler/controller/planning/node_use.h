// How used a running node is, as scale-down judges it and the idle-GPU metric reports it:
// its GPUs in physical GPUs (its own inventory, else its group template's; a DRA node's by its
// devices), others by max(cpu, memory).
#ifndef GPUA_AUTOSCALER_CONTROLLER_PLANNING_NODE_USE_H_
#define GPUA_AUTOSCALER_CONTROLLER_PLANNING_NODE_USE_H_

#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/planning/running_node_cache.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/node_utilization.h"

namespace gpua {

// A node's GPUs: its own inventory, else its group template's; null for a node without GPUs.
const GpuInventory* NodeGpus(const NodeStatus& node, const ProviderGroup& group);

// The physical GPUs of one node of `group`: its template's device-plugin GPUs, else its
// template's whole-GPU DRA devices; 0 for a group without GPUs.
int GroupGpus(const ProviderGroup& group);

// How used a node of `group` is; kept in `cache` while nothing on the node changes.
NodeUtilization UtilizationOf(const NodeStatus& node, const ProviderGroup& group,
                              const ClusterView& view, bool ignore_daemonsets,
                              RunningNodeCache& cache);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_PLANNING_NODE_USE_H_
