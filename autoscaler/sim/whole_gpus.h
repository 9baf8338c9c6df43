// The same week with no GPU shared: what `simulate --whole-gpus` runs, to price what sharing
// saves (or costs). Each NVIDIA pool that shares its GPUs (time-slicing, MPS, MIG) advertises
// its physical GPUs whole, as nvidia.com/gpu; a pod's request for shares or MIG devices asks
// for the GPUs they are a part of, rounded up (two quarter-GPU shares: one GPU; a 3g.20gb
// device: one GPU), the part being the largest any pool gives that resource, of the same GPU
// model (a MIG slice of an A100 becomes an A100, not a cheaper T4). A request for
// nvidia.com/gpu stays as it is, also where a pool time-slices without renaming its shares.
// AMD partitions stay as they are.
#ifndef GPUA_AUTOSCALER_SIM_WHOLE_GPUS_H_
#define GPUA_AUTOSCALER_SIM_WHOLE_GPUS_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "autoscaler/sim/trace.h"
#include "cloudproviders/node_group_file.h"

namespace gpua::sim {

// An error names the group whose template could not be read or rewritten.
absl::StatusOr<std::vector<NodeGroupConfig>> WithWholeGpus(std::vector<NodeGroupConfig> groups);
// `groups`: as configured, for the part of a GPU each shared resource is.
Trace WithWholeGpus(const Trace& trace, const std::vector<NodeGroupConfig>& groups);

// An NVIDIA share or MIG resource as the pools that advertise it have it.
struct SharedGpuResource {
  double part = 0;                 // the largest part of a physical GPU one unit is
  std::set<std::string> products;  // those pools' nvidia.com/gpu.product labels
  bool unlabelled = false;         // some such pool has no product label
};
std::map<std::string, SharedGpuResource> SharedGpuResources(
    const std::vector<NodeGroupConfig>& groups);

// The pod asking for the whole GPUs its shares and MIG devices are a part of, rounded up (a
// resource `shared` lacks counts a GPU a unit), on the GPU models that served them: a
// required node affinity on nvidia.com/gpu.product, where every such pool has that label.
PodSpec WholeGpuPod(const PodSpec& pod, const std::map<std::string, SharedGpuResource>& shared);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_WHOLE_GPUS_H_
