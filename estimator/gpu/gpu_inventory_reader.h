// Reading a node's (or a pool's template's) GPU inventory (gpu_inventory.h). Read, in this order,
// from our own template annotations (what makes scale-from-zero right: a template has no labels
// from the node's agents), NVIDIA GPU Feature Discovery labels, GKE's labels, and the advertised
// resources themselves. A template whose GPU labels contradict its allocatable is an error,
// never a guess.
//
// Our annotations (all optional; each overrides what labels say):
//   gpu-autoscaler.io/gpu-vendor        nvidia | amd
//   gpu-autoscaler.io/gpu-model         e.g. NVIDIA-H100-80GB-HBM3 or H100-80GB
//   gpu-autoscaler.io/gpu-count         physical GPUs
//   gpu-autoscaler.io/gpu-memory-mib    memory per GPU
//   gpu-autoscaler.io/gpu-sharing       none | time-slicing | mps | mig | partition (AMD)
//   gpu-autoscaler.io/gpu-replicas      shares per GPU (time-slicing, MPS; MIG devices too)
//   gpu-autoscaler.io/gpu-renamed       true: shares are advertised as <resource>.shared
//   gpu-autoscaler.io/gpu-fail-requests-greater-than-one   true: one share per container
//   gpu-autoscaler.io/mig-strategy      single | mixed
//   gpu-autoscaler.io/mig-layouts       one named layout (fixed), or several the pool's MIG
//                                       manager can apply (reconfigurable), comma-separated
//   gpu-autoscaler.io/amd-partition     spx | dpx | qpx | cpx (compute partitions per GPU)
//   gpu-autoscaler.io/amd-memory-partition   nps1 | nps4 (names the resource when mixed)
//   gpu-autoscaler.io/amd-naming        single (amd.com/gpu) | mixed (amd.com/cpx_nps4)
//   gpu-autoscaler.io/driver-version    NVIDIA driver, e.g. 550.54.14
#ifndef GPUA_ESTIMATOR_GPU_GPU_INVENTORY_READER_H_
#define GPUA_ESTIMATOR_GPU_GPU_INVENTORY_READER_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/labels.h"
#include "estimator/resource_list.h"

namespace gpua {

// Whether a node's labels say it has GPUs of some vendor: NVIDIA GPU Feature Discovery's
// nvidia.com/gpu.* labels, AMD's node labeller's amd.com/gpu.* (or beta.amd.com/gpu.*).
bool LabelsNameGpus(const Labels& labels);

// Reads the inventory of a node or template; nullopt when it has no GPUs. Errors name
// `what` (e.g. "node group h100: template") and the label, annotation or resource at fault.
absl::StatusOr<std::optional<GpuInventory>> ReadGpuInventory(const Labels& labels,
                                                             const Labels& annotations,
                                                             const ResourceList& allocatable,
                                                             absl::string_view what);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_GPU_GPU_INVENTORY_READER_H_
