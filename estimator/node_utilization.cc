#include "estimator/node_utilization.h"

namespace gpua {
namespace {

double Share(const Quantity& used, const Quantity& of) {
  const int64_t total = of.MilliValue();
  return total <= 0 ? 0 : static_cast<double>(used.MilliValue()) / static_cast<double>(total);
}

}  // namespace

NodeUtilization ComputeUtilization(const ResourceList& allocatable, const GpuInventory* gpus,
                                   const NamedMigLayout* layout, const std::vector<PodUse>& pods,
                                   bool ignore_daemonsets) {
  ResourceList requested;
  for (const PodUse& p : pods) {
    if (ignore_daemonsets && p.daemonset) continue;
    requested += p.pod->requests;
  }
  NodeUtilization u;
  u.gpu_node = gpus != nullptr && gpus->physical_count > 0;
  if (u.gpu_node) u.gpu = PhysicalGpuUtilization(*gpus, layout, requested);
  u.cpu = Share(requested.Get(kResourceCpu), allocatable.Get(kResourceCpu));
  u.memory = Share(requested.Get(kResourceMemory), allocatable.Get(kResourceMemory));
  return u;
}

}  // namespace gpua
