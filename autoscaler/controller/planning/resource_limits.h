// The cluster-wide maximums a scale-up may not pass (--max-nodes-total, --cores-total,
// --memory-total, --gpu-total) as the estimator's budgets: what is left of each, counting
// registered nodes, nodes on their way and nodes asked for earlier in the loop, and what one
// new node of each group takes of it.
#ifndef GPUA_AUTOSCALER_CONTROLLER_PLANNING_RESOURCE_LIMITS_H_
#define GPUA_AUTOSCALER_CONTROLLER_PLANNING_RESOURCE_LIMITS_H_

#include <map>
#include <string>
#include <vector>

#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/controller_options.h"
#include "estimator/estimate.h"

namespace gpua {

class RunningNodeCache;

// What one node counts for against the limits.
struct NodeUsage {
  int64_t cores = 0;
  int64_t memory_bytes = 0;
  int64_t gpus = 0;
  std::string gpu_type;  // the node's value of the provider's GPU label
};

NodeUsage UsageOf(const Labels& labels, const Labels& annotations, const ResourceList& capacity,
                  const std::string& gpu_label);
// A registered node's: its capacity (allocatable when it reports none).
NodeUsage UsageOf(const NodeObject& node, const std::string& gpu_label);

// `running`: the running nodes' usage, kept across loops.
std::vector<ResourceBudget> LimitBudgets(const ClusterLimits& limits, const ClusterState& state,
                                         const std::map<std::string, int>& added,
                                         RunningNodeCache& running);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_PLANNING_RESOURCE_LIMITS_H_
