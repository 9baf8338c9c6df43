// What GPUs a node (or a pool's template) has and how they are shared, and so which GPU
// resources the device plugin will advertise on it. Read, in this order, from our own
// template annotations (what makes scale-from-zero right: a template has no labels from the
// node's agents), NVIDIA GPU Feature Discovery labels, GKE's labels, and the advertised
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
#ifndef GPUA_ESTIMATOR_GPU_GPU_INVENTORY_H_
#define GPUA_ESTIMATOR_GPU_GPU_INVENTORY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/memo.h"
#include "estimator/gpu/gpu_resource.h"
#include "estimator/gpu/mig_geometry.h"
#include "estimator/labels.h"
#include "estimator/resource_list.h"

namespace gpua {

inline constexpr absl::string_view kAnnotationPrefix = "gpu-autoscaler.io/";

enum class GpuSharing { kExclusive, kTimeSlicing, kMps, kMig, kAmdPartition };
absl::string_view GpuSharingName(GpuSharing sharing);

// The label the GPU operator's MIG manager reads for a node's layout.
inline constexpr char kMigConfigLabel[] = "nvidia.com/mig.config";

struct GpuInventory {
  GpuVendor vendor = GpuVendor::kNvidia;  // NVIDIA or AMD: the vendors whose sharing we model
  std::string model;                      // the product name as the labels give it
  int physical_count = 0;
  int64_t memory_mib = 0;  // per GPU; 0 when unknown
  GpuSharing sharing = GpuSharing::kExclusive;
  int replicas = 1;      // shares per GPU (or per MIG device)
  bool renamed = false;  // shares advertised as <resource>.shared
  bool fail_requests_greater_than_one = false;
  // MIG
  const MigModel* mig_model = nullptr;
  bool mig_mixed = false;                   // mixed strategy: a resource per profile
  std::vector<NamedMigLayout> mig_layouts;  // one: fixed; several: the manager may choose
  // AMD
  int amd_partitions = 1;              // logical GPUs per device: SPX 1 .. CPX 8
  std::string amd_partition_resource;  // "cpx_nps4" under mixed naming, else empty
  std::string driver_version;          // NVIDIA driver, when known

  bool reconfigurable() const { return mig_layouts.size() > 1; }
  // `allocatable` without this vendor's GPU resources: what a node of these GPUs offers
  // besides what its device plugin advertises (a template at zero often lists none, or the
  // wrong ones, its labels and annotations saying what will be advertised).
  ResourceList WithoutGpus(const ResourceList& allocatable) const;
  // A node's MIG layout: the one named `name` (its nvidia.com/mig.config), else the first;
  // null for an inventory without layouts. The one rule every reader of a node's MIG
  // devices uses.
  const NamedMigLayout* LayoutNamed(absl::string_view name) const;
  // The resources the device plugin advertises, with `layout` for a MIG node.
  ResourceList Advertised(const NamedMigLayout* layout = nullptr) const;
  // The same, shared: worked out once for no layout or each of this inventory's own.
  std::shared_ptr<const ResourceList> SharedAdvertised(
      const NamedMigLayout* layout = nullptr) const;
  // The resource names a pod asks for to get (a share of) these GPUs. Worked out once per
  // inventory: every placement check asks. Change a copy, not an inventory already asked.
  const std::vector<std::string>& ResourceNames() const;
  // Per advertised resource (with `layout` for a MIG node), the part of one physical GPU a
  // unit stands for: 1/R of a GPU for a time-sliced share, 3/8 for a 3g MIG device. Kept for
  // the last layout of this inventory's own asked for, and shared rather than copied.
  using Shares = std::shared_ptr<const std::map<std::string, double>>;
  Shares UnitShares(const NamedMigLayout* layout = nullptr) const;

  Memo<std::vector<std::string>> resource_names;  // ResourceNames
  // UnitShares by index into mig_layouts, -1 for none.
  KeyedMemo<int, Shares> unit_shares;
  MemoMap<int, std::shared_ptr<const ResourceList>> advertised;  // SharedAdvertised, the same way

 private:
  // The index of `layout` in mig_layouts: -1 for none, -2 for one of another inventory.
  int LayoutIndex(const NamedMigLayout* layout) const;
};

// How much of a node's physical GPUs pods use, 0 to 1, from what they request: a node whose
// shares or MIG devices are all free is an idle GPU node, whatever small cpu pods remain.
double PhysicalGpuUtilization(const GpuInventory& gpus, const NamedMigLayout* layout,
                              const ResourceList& requested);

// Reads the inventory of a node or template; nullopt when it has no GPUs. Errors name
// `what` (e.g. "node group h100: template") and the label, annotation or resource at fault.
// Whether a node's labels say it has GPUs of some vendor: NVIDIA GPU Feature Discovery's
// nvidia.com/gpu.* labels, AMD's node labeller's amd.com/gpu.* (or beta.amd.com/gpu.*).
bool LabelsNameGpus(const Labels& labels);

absl::StatusOr<std::optional<GpuInventory>> ReadGpuInventory(const Labels& labels,
                                                             const Labels& annotations,
                                                             const ResourceList& allocatable,
                                                             absl::string_view what);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_GPU_GPU_INVENTORY_H_
