#include "autoscaler/controller/planning/node_use.h"

#include <memory>
#include <vector>

namespace gpua {

const GpuInventory* NodeGpus(const NodeStatus& s, const ProviderGroup& g) {
  const absl::StatusOr<std::shared_ptr<const GpuInventory>>& own = s.node->Gpus();
  return own.ok() && *own != nullptr ? own->get() : g.gpus.get();
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
  if (!own_gpus && gpus != nullptr) return compute();
  return cache.UtilizationOf(s.node, view, {gpus, s.mig_layout, ignore_daemonsets}, compute);
}

}  // namespace gpua
