// The GPU rules a pool's template imposes beyond counting resources: what the device plugin
// would refuse at admission (more than one share per container with failRequestsGreaterThanOne
// or MPS), MPS's memory per share, and the driver's CUDA version. A pod that breaks one would
// be scheduled and then fail on the node, so no node is added for it.
#ifndef GPUA_ESTIMATOR_GPU_GPU_PREDICATES_H_
#define GPUA_ESTIMATOR_GPU_GPU_PREDICATES_H_

#include <optional>
#include <string>

#include "estimator/gpu/gpu_inventory.h"
#include "estimator/pod.h"

namespace gpua {

struct GpuPolicy {
  // CUDA minor version compatibility: 12.x runs on any driver from 525.60.13 on.
  bool cuda_minor_version_compat = false;
};

// Why `pod` cannot use these GPUs, or nullopt. Pods that ask for none of the pool's GPU
// resources pass.
std::optional<std::string> CheckGpuFit(const PodSpec& pod, const GpuInventory& gpus,
                                       const GpuPolicy& policy);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_GPU_GPU_PREDICATES_H_
