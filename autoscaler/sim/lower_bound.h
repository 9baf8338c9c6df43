// The clairvoyant lower bound on what a trace must cost: every pod billed only while it runs,
// with no wait and no idle node, for its share of the cheapest node that can hold it. Its
// share of a node is a weighted mean of the fractions of the node's cpu, memory and (for a
// GPU node) physical GPUs it asks for, the weights fixed per group. Whatever the autoscaler
// does, the pods on a node never ask for more than all of each resource, so their shares never
// add up past the node, and the bound is never above a simulated cost, whatever the weights.
// The bound reported is the largest over a few weightings of a GPU node's GPUs against its
// cpu and memory (GPUs alone, nine tenths, half, a third), so a workload of whole-GPU jobs is
// not made to look wasteful by their small cpu requests.
#ifndef GPUA_AUTOSCALER_SIM_LOWER_BOUND_H_
#define GPUA_AUTOSCALER_SIM_LOWER_BOUND_H_

#include <map>
#include <string>
#include <vector>

#include "autoscaler/sim/trace.h"
#include "cloudproviders/node_group_file.h"
#include "estimator/gpu/gpu_predicates.h"

namespace gpua::sim {

struct LowerBound {
  double cost_usd = 0;
  double gpu_weight = 0;                        // of the weighting that gave the bound
  std::map<std::string, double> cost_by_group;  // where each shape is cheapest
  int64_t pods_without_group = 0;               // fit no group's nodes at all (gangs: not whole)
};

LowerBound ComputeLowerBound(const Trace& trace, const std::vector<NodeGroupConfig>& groups,
                             const GpuPolicy& policy = {});

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_LOWER_BOUND_H_
