// The one answer to "is this resource a GPU?", for every part of the program: packing
// (GPUs weigh first), a template's GPU inventory checked against its allocatable, what
// `inspect` shows, scale-down's GPU utilization and the "GPUs not yet advertised" check.
//
// A GPU resource is one a device plugin advertises for (a share of) an accelerator:
//   nvidia.com/gpu                      NVIDIA, whole GPU (or a share, or a MIG device under
//                                       the single strategy: the node's sharing says which)
//   nvidia.com/gpu.shared               NVIDIA, time-sliced or MPS share (renamed)
//   nvidia.com/mig-<profile>[.shared]   NVIDIA, MIG device (mixed strategy), e.g. mig-1g.10gb,
//                                       mig-1g.6gb.me, mig-1c.3g.40gb
//   amd.com/gpu                         AMD, whole GPU (or a partition under single naming)
//   amd.com/<spx|dpx|qpx|cpx>_<nps..>   AMD, compute partition (mixed naming), e.g. cpx_nps4
//   gpu.intel.com/i915, gpu.intel.com/xe   Intel GPU
//   habana.ai/gaudi, habana.ai/gaudi2, ...  Intel Gaudi (Habana) accelerator
// Nothing else is: not nvidia.com/foo, not example.com/gpu, and not the Intel plugin's
// accounting resources (gpu.intel.com/millicores, memory.max, tiles).
#ifndef GPUA_ESTIMATOR_GPU_GPU_RESOURCE_H_
#define GPUA_ESTIMATOR_GPU_GPU_RESOURCE_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "estimator/resource_list.h"

namespace gpua {

enum class GpuVendor { kNvidia, kAmd, kIntel, kHabana };
absl::string_view GpuVendorName(GpuVendor vendor);

enum class GpuResourceKind {
  kWholeGpu,      // nvidia.com/gpu, amd.com/gpu, gpu.intel.com/i915, habana.ai/gaudi
  kSharedGpu,     // nvidia.com/gpu.shared
  kMigSlice,      // nvidia.com/mig-<profile>, also with .shared
  kAmdPartition,  // amd.com/cpx_nps4
};

struct GpuResource {
  GpuVendor vendor;
  GpuResourceKind kind;
  bool operator==(const GpuResource&) const = default;
};

// What `name` is, or nullopt when it is not a GPU resource.
std::optional<GpuResource> ClassifyGpuResource(absl::string_view name);
inline bool IsGpuResource(absl::string_view name) { return ClassifyGpuResource(name).has_value(); }
// The GPU resources of a list (a node's allocatable, a pod's requests).
ResourceList GpuPart(const ResourceList& list);
// True when the requests ask for more than zero of some GPU resource.
bool AsksForGpus(const ResourceList& requests);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_GPU_GPU_RESOURCE_H_
