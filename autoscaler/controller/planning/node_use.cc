#include "autoscaler/controller/planning/node_use.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "estimator/dra/allocator.h"
#include "estimator/dra/template_slices.h"

namespace gpua {
namespace {

// A node with only other devices (NICs, say) is judged by its cpu and memory.
bool HasGpuDriver(const dra::NodeDevices& devices) {
  for (const dra::DevicePool& pool : devices.pools) {
    if (dra::IsGpuDriver(pool.driver)) return true;
  }
  return false;
}

}  // namespace

const GpuInventory* NodeGpus(const NodeStatus& s, const ProviderGroup& g) {
  const absl::StatusOr<std::shared_ptr<const GpuInventory>>& own = s.node->Gpus();
  return own.ok() && *own != nullptr ? own->get() : g.gpus.get();
}

int GroupGpus(const ProviderGroup& g) {
  if (g.gpus != nullptr) return g.gpus->physical_count();
  return g.node_template.has_value() ? dra::WholeGpuDevices(g.node_template->resource_slices) : 0;
}

NodeUtilization UtilizationOf(const NodeStatus& s, const ProviderGroup& g, const ClusterView& view,
                              bool ignore_daemonsets, RunningNodeCache& cache) {
  const NodeObject& n = *s.node;
  const absl::StatusOr<std::shared_ptr<const GpuInventory>>& own = n.Gpus();
  const bool own_gpus = own.ok() && *own != nullptr;
  const GpuInventory* gpus = own_gpus ? own->get() : g.gpus.get();
  const auto compute = [&] {
    const NamedMigLayout* layout = gpus == nullptr ? nullptr : gpus->LayoutNamed(s.mig_layout);
    const std::vector<PodPtr>& on_node = view.PodsOn(n.node.name);
    std::vector<PodUse> pods;
    pods.reserve(on_node.size());
    for (const PodPtr& p : on_node) {
      if (p->finished()) continue;
      pods.push_back({&p->spec, p->daemonset(), p->mirror});
    }
    return ComputeUtilization(n.node.allocatable, gpus, layout, pods, ignore_daemonsets);
  };
  // The group's inventory belongs to this loop's provider snapshot: nothing kept is keyed by it.
  NodeUtilization use =
      !own_gpus && gpus != nullptr
          ? compute()
          : cache.UtilizationOf(s.node, view, {gpus, s.mig_layout, ignore_daemonsets}, compute);
  // A node with DRA GPUs is judged by its devices, as a GPU node by its GPUs; claims are
  // allocated without its pods changing, so this part is not kept.
  const NodeDeviceState* devices = view.DevicesOf(n.node.name);
  if (devices == nullptr || devices->devices == nullptr || !HasGpuDriver(*devices->devices)) {
    return use;
  }
  dra::DeviceUse taken(devices->devices);
  if (devices->allocated != nullptr) taken.TakeAllocated(*devices->allocated);
  const double device_use = taken.Utilization();
  use.gpu = use.gpu_node ? std::max(use.gpu, device_use) : device_use;
  use.gpu_node = true;
  return use;
}

}  // namespace gpua
