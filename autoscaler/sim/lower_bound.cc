#include "autoscaler/sim/lower_bound.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "autoscaler/sim/group_shape.h"
#include "autoscaler/sim/sim_devices.h"
#include "estimator/predicates.h"

namespace gpua::sim {
namespace {

double Fraction(const Quantity& part, const Quantity& whole) {
  const int64_t w = whole.MilliValue();
  return w <= 0 ? 0 : static_cast<double>(part.MilliValue()) / static_cast<double>(w);
}

// The pod's smallest share of one node of the group over the layouts it may have, with GPUs
// weighted `gpu_weight` on a GPU node; nullopt when no node of the group can hold it.
std::optional<double> ShareOf(const PodSpec& pod, const GroupShape& g, const GpuPolicy& policy,
                              double gpu_weight) {
  if (!AdmitsStatically(pod, g.props, g.config->spec.id)) return std::nullopt;
  if (g.gpus.has_value() && CheckGpuFit(pod, *g.gpus, policy).has_value()) return std::nullopt;
  const std::optional<double> device_gpus = DeviceGpusOn(pod, g);
  if (!device_gpus.has_value()) return std::nullopt;
  std::optional<double> best;
  for (const NodeKind& kind : g.kinds) {
    const ResourceList& alloc = kind.allocatable;
    if (!pod.requests.FitsWithin(alloc)) continue;
    const double rest = (Fraction(pod.requests.Get("cpu"), alloc.Get("cpu")) +
                         Fraction(pod.requests.Get("memory"), alloc.Get("memory"))) /
                        2;
    double share = rest;
    if (g.gpus.has_value()) {
      share = gpu_weight * PhysicalGpuUtilization(*g.gpus, kind.layout, pod.requests) +
              (1 - gpu_weight) * rest;
    } else if (g.device_gpus > 0) {
      share = gpu_weight * std::min(1.0, *device_gpus / g.device_gpus) + (1 - gpu_weight) * rest;
    }
    if (!best || share < *best) best = share;
  }
  return best;
}

using Cheapest = std::pair<double, const NodeGroupConfig*>;  // $/h of the pod, the group

// The group where the pod's share costs least; for a gang of `gang_size`, only groups whose
// nodes can hold the whole gang at once. No group: a null config.
Cheapest CheapestFor(const PodSpec& pod, const std::vector<GroupShape>& shapes,
                     const GpuPolicy& policy, double gpu_weight, int gang_size) {
  Cheapest best{std::numeric_limits<double>::infinity(), nullptr};
  for (const GroupShape& g : shapes) {
    const std::optional<double> share = ShareOf(pod, g, policy, gpu_weight);
    if (!share || *share * g.config->spec.price_per_hour >= best.first) continue;
    if (gang_size > 0 && CopiesPerNode(pod, g) * g.config->spec.max_size < gang_size) continue;
    best = {*share * g.config->spec.price_per_hour, g.config};
  }
  return best;
}

LowerBound BoundWith(const Trace& trace, const std::vector<GroupShape>& shapes,
                     const GpuPolicy& policy, double gpu_weight, ResolvedShapes& pods) {
  LowerBound out;
  out.gpu_weight = gpu_weight;
  std::map<int, Cheapest> cheapest;  // by shape, for pods that are not gangs
  for (const TraceArrival& a : trace.arrivals) {
    Cheapest best;
    if (a.gang) {
      best = CheapestFor(pods.Of(a), shapes, policy, gpu_weight, a.count);
    } else {
      auto it = cheapest.find(a.shape_id);
      if (it == cheapest.end()) {
        it = cheapest.emplace(a.shape_id, CheapestFor(pods.Of(a), shapes, policy, gpu_weight, 0))
                 .first;
      }
      best = it->second;
    }
    if (best.second == nullptr) {
      out.pods_without_group += a.count;
      continue;
    }
    const double cost = best.first * absl::ToDoubleHours(a.run_for) * a.count;
    out.cost_usd += cost;
    out.cost_by_group[best.second->spec.id] += cost;
  }
  return out;
}

}  // namespace

LowerBound ComputeLowerBound(const Trace& trace, const std::vector<NodeGroupConfig>& groups,
                             const GpuPolicy& policy) {
  const std::vector<GroupShape> shapes = GroupShapes(groups);
  ResolvedShapes pods(trace, groups);
  LowerBound best;
  bool first = true;
  for (double gpu_weight : {1.0, 0.9, 0.5, 1.0 / 3}) {
    LowerBound b = BoundWith(trace, shapes, policy, gpu_weight, pods);
    if (first || b.cost_usd > best.cost_usd) best = std::move(b);
    first = false;
  }
  return best;
}

}  // namespace gpua::sim
