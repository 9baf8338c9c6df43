// What GPUs a node (or a pool's template) has and how they are shared, and so which GPU
// resources the device plugin will advertise on it. gpu_inventory_reader.h reads one from a
// node's or template's labels, annotations and allocatable.
#ifndef GPUA_ESTIMATOR_GPU_GPU_INVENTORY_H_
#define GPUA_ESTIMATOR_GPU_GPU_INVENTORY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "estimator/gpu/gpu_resource.h"
#include "estimator/gpu/mig_geometry.h"
#include "estimator/labels.h"
#include "estimator/resource_list.h"

namespace gpua {

inline constexpr absl::string_view kAnnotationPrefix = "gpu-autoscaler.io/";

// The name a node's GPU sharing goes by in output: its partitioning when the GPUs are
// partitioned (a time-sliced MIG pool is "mig"), else how whole GPUs are shared.
enum class GpuSharing { kExclusive, kTimeSlicing, kMps, kMig, kAmdPartition };
absl::string_view GpuSharingName(GpuSharing sharing);

// The label the GPU operator's MIG manager reads for a node's layout.
inline constexpr char kMigConfigLabel[] = "nvidia.com/mig.config";
// GPU Feature Discovery's label for the GPU model.
inline constexpr char kGpuProductLabel[] = "nvidia.com/gpu.product";

// What each physical GPU is, and how many a node has.
struct GpuHardware {
  GpuVendor vendor = GpuVendor::kNvidia;  // NVIDIA or AMD: the vendors whose sharing we model
  std::string model;                      // the product name as the labels give it
  int count = 0;
  int64_t memory_mib = 0;      // per GPU; 0 when unknown
  std::string driver_version;  // NVIDIA driver, when known
};

// How each physical GPU is divided before pods get it. Two axes, not one mode: a MIG
// device can itself be time-sliced, so partitioning and sharing (GpuShares) are apart.
struct WholeGpus {};
struct MigPartitions {
  const MigModel* model = nullptr;
  bool mixed = false;                   // mixed strategy: a resource per profile
  std::vector<NamedMigLayout> layouts;  // never empty; one: fixed; several: the manager chooses
  bool reconfigurable() const { return layouts.size() > 1; }
};
struct AmdPartitions {
  int per_gpu = 1;       // logical GPUs per device: SPX 1 .. CPX 8
  std::string resource;  // "cpx_nps4" under mixed naming, else empty (amd.com/gpu)
};
using GpuPartitioning = std::variant<WholeGpus, MigPartitions, AmdPartitions>;

// How each GPU, or each MIG device, is shared among containers.
enum class ShareMode { kExclusive, kTimeSlicing, kMps };
struct GpuShares {
  ShareMode mode = ShareMode::kExclusive;
  int replicas = 1;      // shares per GPU (or per MIG device); 1 when exclusive
  bool renamed = false;  // shares advertised as <resource>.shared
  bool fail_requests_greater_than_one = false;
};

// A node's (or template's) GPUs: immutable once read, and cheap to copy; what follows from
// them (advertised resources, unit shares, resource names) is worked out once, when built,
// and shared by the copies. ReadGpuInventory (gpu_inventory_reader.h) builds them.
class GpuInventory {
 public:
  // Valid parts: the reader checks them (a MIG partitioning has a model and a layout).
  GpuInventory(GpuHardware hardware, GpuPartitioning partitioning, GpuShares shares);

  const GpuHardware& hardware() const { return body_->hardware; }
  GpuVendor vendor() const { return body_->hardware.vendor; }
  const std::string& model() const { return body_->hardware.model; }
  int physical_count() const { return body_->hardware.count; }
  int64_t memory_mib() const { return body_->hardware.memory_mib; }
  const std::string& driver_version() const { return body_->hardware.driver_version; }
  const GpuPartitioning& partitioning() const { return body_->partitioning; }
  const GpuShares& shares() const { return body_->shares; }
  GpuSharing sharing() const;

  // The MIG partitioning, or null for GPUs not cut into MIG devices.
  const MigPartitions* mig() const { return std::get_if<MigPartitions>(&body_->partitioning); }
  // The MIG layouts this pool's nodes may have; empty when not MIG.
  const std::vector<NamedMigLayout>& mig_layouts() const;
  bool reconfigurable() const { return mig() != nullptr && mig()->reconfigurable(); }

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
  std::shared_ptr<const ResourceList> SharedAdvertised(
      const NamedMigLayout* layout = nullptr) const;
  // What a node of these GPUs offers once its device plugin runs: `allocatable` (a node's or
  // template's) with its GPU resources replaced by what this inventory advertises with the
  // layout named `mig_layout` (LayoutNamed). The one place that turns GPUs into allocatable.
  ResourceList NodeAllocatable(const ResourceList& allocatable, absl::string_view mig_layout) const;
  // The resource names a pod asks for to get (a share of) these GPUs, in any layout.
  const std::vector<std::string>& ResourceNames() const { return body_->resource_names; }
  // Per advertised resource (with `layout` for a MIG node), the part of one physical GPU a
  // unit stands for: 1/R of a GPU for a time-sliced share, 3/8 for a 3g MIG device.
  using Shares = std::shared_ptr<const std::map<std::string, double>>;
  Shares UnitShares(const NamedMigLayout* layout = nullptr) const;

 private:
  struct Body {
    GpuHardware hardware;
    GpuPartitioning partitioning;
    GpuShares shares;
    std::vector<std::string> resource_names;
    // By layout slot: 0 for no layout, 1 + i for mig_layouts()[i].
    std::vector<std::shared_ptr<const ResourceList>> advertised;
    std::vector<Shares> unit_shares;
  };
  // The slot of `layout`; nullopt for a layout not of this inventory (worked out afresh).
  std::optional<size_t> SlotOf(const NamedMigLayout* layout) const;

  std::shared_ptr<const Body> body_;
};

// How much of a node's physical GPUs pods use, 0 to 1, from what they request: a node whose
// shares or MIG devices are all free is an idle GPU node, whatever small cpu pods remain.
double PhysicalGpuUtilization(const GpuInventory& gpus, const NamedMigLayout* layout,
                              const ResourceList& requested);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_GPU_GPU_INVENTORY_H_
