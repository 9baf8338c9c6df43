#include "autoscaler/sim/group_shape.h"

#include <algorithm>
#include <limits>

#include "autoscaler/sim/sim_devices.h"
#include "cloudproviders/simulated/simulated_node.h"
#include "estimator/dra/allocator.h"
#include "estimator/dra/resource_slice.h"
#include "estimator/dra/template_slices.h"
#include "estimator/gpu/gpu_inventory_reader.h"
#include "estimator/predicates.h"

namespace gpua::sim {

std::vector<GroupShape> GroupShapes(const std::vector<NodeGroupConfig>& groups) {
  std::vector<GroupShape> out;
  out.reserve(groups.size());
  for (const NodeGroupConfig& c : groups) {
    const NodeTemplate& t = c.spec.node_template;
    GroupShape& g = out.emplace_back();
    g.config = &c;
    auto gpus = ReadGpuInventory(t.labels, t.annotations, t.allocatable, c.spec.id);
    if (dra::GpusAreDevices(!t.resource_slices.empty(), t.allocatable)) {
      g.devices = dra::AssembleShared(t.resource_slices);
      g.device_gpus = dra::WholeGpuDevices(t.resource_slices);
    } else if (gpus.ok()) {
      g.gpus = *gpus;
    }
    g.props.labels = t.labels;
    g.props.taints = t.taints;
    if (g.gpus.has_value() && !g.gpus->mig_layouts().empty()) {
      for (const NamedMigLayout& l : g.gpus->mig_layouts()) {
        g.kinds.push_back({&l, AdvertisedAllocatable(t, g.gpus, l.name, true)});
      }
    } else {
      g.kinds.push_back({nullptr, AdvertisedAllocatable(t, g.gpus, "", true)});
    }
  }
  return out;
}

std::optional<double> DeviceGpusOn(const PodSpec& pod, const GroupShape& g) {
  if (pod.devices == nullptr) return 0.0;
  if (g.devices == nullptr) return std::nullopt;
  dra::AllocationRequest request;
  request.classes = pod.devices->classes.get();
  for (const dra::PodClaim& c : pod.devices->claims) {
    if (!c.unresolved.ok() || c.spec == nullptr) return std::nullopt;
    request.claims.push_back(c.spec.get());
  }
  const dra::DeviceUse empty(g.devices);
  absl::StatusOr<std::vector<std::vector<dra::DevicePick>>> picks =
      dra::Allocate(request, empty, nullptr);
  if (!picks.ok()) return std::nullopt;
  double gpus = 0;
  for (size_t i = 0; i < picks->size(); ++i) {
    if (!pod.devices->claims[i].shared) gpus += SimDevices::PhysicalGpus(*g.devices, (*picks)[i]);
  }
  return gpus;
}

bool Holds(const GroupShape& g, const PodSpec& pod, const GpuPolicy& policy) {
  if (!AdmitsStatically(pod, g.props, g.config->spec.id)) return false;
  if (g.gpus.has_value() && CheckGpuFit(pod, *g.gpus, policy).has_value()) return false;
  if (!DeviceGpusOn(pod, g).has_value()) return false;
  for (const NodeKind& k : g.kinds) {
    if (pod.requests.FitsWithin(k.allocatable)) return true;
  }
  return false;
}

int64_t CopiesPerNode(const PodSpec& pod, const GroupShape& g) {
  int64_t most = 0;
  for (const NodeKind& kind : g.kinds) {
    int64_t copies = std::numeric_limits<int64_t>::max();
    for (const auto& [name, q] : pod.requests) {
      const int64_t want = q.MilliValue();
      if (want > 0) copies = std::min(copies, kind.allocatable.Get(name).MilliValue() / want);
    }
    if (copies != std::numeric_limits<int64_t>::max()) most = std::max(most, copies);
  }
  return most;
}

bool SomeGroupHoldsGang(const PodSpec& pod, int size, const std::vector<GroupShape>& groups,
                        const GpuPolicy& policy) {
  for (const GroupShape& g : groups) {
    if (Holds(g, pod, policy) && CopiesPerNode(pod, g) * g.config->spec.max_size >= size) {
      return true;
    }
  }
  return false;
}

}  // namespace gpua::sim
