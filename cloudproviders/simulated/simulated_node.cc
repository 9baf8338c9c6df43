#include "cloudproviders/simulated/simulated_node.h"

#include "estimator/gpu/gpu_resource.h"

namespace gpua {

ResourceList AdvertisedAllocatable(const NodeTemplate& t,
                                   const std::optional<GpuInventory>& inventory,
                                   absl::string_view mig_layout, bool gpus_ready) {
  if (!inventory.has_value()) return t.allocatable;
  ResourceList allocatable;
  for (const auto& [res, q] : t.allocatable) {
    const auto kind = ClassifyGpuResource(res);
    if (kind.has_value() && kind->vendor == inventory->vendor) continue;  // the device plugin's
    allocatable.Set(res, q);
  }
  if (!gpus_ready) return allocatable;
  const NamedMigLayout* layout = nullptr;
  for (const NamedMigLayout& l : inventory->mig_layouts) {
    if (layout == nullptr || l.name == mig_layout) layout = &l;
  }
  return allocatable + inventory->Advertised(layout);
}

}  // namespace gpua
