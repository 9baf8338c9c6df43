#include "autoscaler/sim/lower_bound.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "cloudproviders/simulated/simulated_node.h"
#include "estimator/cluster_snapshot.h"
#include "estimator/predicates.h"

namespace gpua::sim {
namespace {

double Fraction(const Quantity& part, const Quantity& whole) {
  const int64_t w = whole.MilliValue();
  return w <= 0 ? 0 : static_cast<double>(part.MilliValue()) / static_cast<double>(w);
}

struct GroupShape {
  const NodeGroupConfig* config;
  std::optional<GpuInventory> gpus;
  NodeProps props;
};

std::vector<GroupShape> GroupShapes(const std::vector<NodeGroupConfig>& groups) {
  std::vector<GroupShape> out;
  for (const NodeGroupConfig& c : groups) {
    const NodeTemplate& t = c.spec.node_template;
    GroupShape g{&c, std::nullopt, {}};
    auto gpus = ReadGpuInventory(t.labels, t.annotations, t.allocatable, c.spec.id);
    if (gpus.ok()) g.gpus = *gpus;
    g.props.labels = t.labels;
    g.props.taints = t.taints;
    out.push_back(std::move(g));
  }
  return out;
}

// The pod's smallest share of one node of the group over the layouts it may have, with GPUs
// weighted `gpu_weight` on a GPU node; nullopt when no node of the group can hold it.
std::optional<double> ShareOf(const PodSpec& pod, const GroupShape& g, const GpuPolicy& policy,
                              double gpu_weight) {
  if (!AdmitsStatically(pod, g.props, g.config->spec.id)) return std::nullopt;
  if (g.gpus.has_value() && CheckGpuFit(pod, *g.gpus, policy).has_value()) return std::nullopt;
  std::vector<const NamedMigLayout*> layouts = {nullptr};
  if (g.gpus.has_value() && !g.gpus->mig_layouts().empty()) {
    layouts.clear();
    for (const NamedMigLayout& l : g.gpus->mig_layouts()) layouts.push_back(&l);
  }
  std::optional<double> best;
  for (const NamedMigLayout* layout : layouts) {
    const ResourceList alloc = AdvertisedAllocatable(g.config->spec.node_template, g.gpus,
                                                     layout ? layout->name : "", true);
    if (!pod.requests.FitsWithin(alloc)) continue;
    const double rest = (Fraction(pod.requests.Get("cpu"), alloc.Get("cpu")) +
                         Fraction(pod.requests.Get("memory"), alloc.Get("memory"))) /
                        2;
    const double share = g.gpus.has_value()
                             ? gpu_weight * PhysicalGpuUtilization(*g.gpus, layout, pod.requests) +
                                   (1 - gpu_weight) * rest
                             : rest;
    if (!best || share < *best) best = share;
  }
  return best;
}

// How many of the pod one node of the group holds at most, over its layouts.
int64_t CopiesPerNode(const PodSpec& pod, const GroupShape& g) {
  std::vector<std::string> layouts = {""};
  if (g.gpus.has_value() && !g.gpus->mig_layouts().empty()) {
    layouts.clear();
    for (const NamedMigLayout& l : g.gpus->mig_layouts()) layouts.push_back(l.name);
  }
  int64_t most = 0;
  for (const std::string& layout : layouts) {
    const ResourceList alloc =
        AdvertisedAllocatable(g.config->spec.node_template, g.gpus, layout, true);
    int64_t copies = std::numeric_limits<int64_t>::max();
    for (const auto& [name, q] : pod.requests) {
      const int64_t want = q.MilliValue();
      if (want > 0) copies = std::min(copies, alloc.Get(name).MilliValue() / want);
    }
    if (copies != std::numeric_limits<int64_t>::max()) most = std::max(most, copies);
  }
  return most;
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
                     const GpuPolicy& policy, double gpu_weight) {
  LowerBound out;
  out.gpu_weight = gpu_weight;
  std::map<int, Cheapest> cheapest;  // by shape, for pods that are not gangs
  for (const TraceArrival& a : trace.arrivals) {
    Cheapest best;
    if (a.gang) {
      best = CheapestFor(a.shape->spec, shapes, policy, gpu_weight, a.count);
    } else {
      auto it = cheapest.find(a.shape_id);
      if (it == cheapest.end()) {
        it = cheapest.emplace(a.shape_id, CheapestFor(a.shape->spec, shapes, policy, gpu_weight, 0))
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
  LowerBound best;
  bool first = true;
  for (double gpu_weight : {1.0, 0.9, 0.5, 1.0 / 3}) {
    LowerBound b = BoundWith(trace, shapes, policy, gpu_weight);
    if (first || b.cost_usd > best.cost_usd) best = std::move(b);
    first = false;
  }
  return best;
}

}  // namespace gpua::sim
