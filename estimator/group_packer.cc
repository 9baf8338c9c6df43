#include "estimator/group_packer.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "estimator/dra/resource_slice.h"
#include "estimator/dra/template_slices.h"
#include "estimator/gpu/gpu_inventory_reader.h"
#include "estimator/gpu/gpu_resource.h"
#include "estimator/node_filler.h"
#include "estimator/placement.h"
#include "estimator/predicates.h"

namespace gpua {
namespace {

ResourceVector Padded(ResourceVector v, size_t size) {
  if (v.size() < size) v.resize(size, 0);
  return v;
}

std::string NodeLimitReason(const PreparedTemplate& t, const PackLimits& limits) {
  return absl::StrCat("node group ", t.group->id, " can add no more nodes (", limits.max_new_nodes,
                      " new node(s) allowed",
                      limits.limited_by.empty() ? "" : absl::StrCat(" by ", limits.limited_by),
                      ")");
}

constexpr absl::string_view kBudgetReason =
    "the estimate's work budget ran out before this pod was placed";

// The expanders compare what pods request with what nodes offer; the pod count is not a
// resource they weigh.
void DropPodsSlot(ResourceVector& v) {
  if (v.size() > ResourceCatalog::kPods) v[ResourceCatalog::kPods] = 0;
}

}  // namespace

namespace {

// The inventory's unit shares, by catalog slot.
std::vector<double> UnitSharesBySlot(const GpuInventory& gpu, const NamedMigLayout* layout,
                                     ResourceCatalog& catalog) {
  std::vector<double> share;
  for (const auto& [name, value] : *gpu.UnitShares(layout)) {
    const size_t slot = static_cast<size_t>(catalog.Intern(name));
    if (share.size() <= slot) share.resize(slot + 1, 0);
    share[slot] = value;
  }
  return share;
}

}  // namespace

PreparedTemplate PrepareTemplate(const NodeGroupSpec& group, ClusterSnapshot& snapshot) {
  PreparedTemplate t;
  t.group = &group;
  t.node_name = absl::StrCat("template-node-for-", group.id);
  t.props = std::make_shared<NodeProps>();
  t.props->labels = group.node_template.labels;
  t.props->taints = group.node_template.taints;
  t.props->group_id = group.id;
  t.props->devices = dra::AssembleShared(group.node_template.resource_slices);
  ResourceCatalog& catalog = snapshot.catalog();
  const NodeTemplate& tmpl = group.node_template;
  t.gpu = group.gpus;
  const bool dra_gpus = dra::GpusAreDevices(t.props->devices != nullptr, tmpl.allocatable);
  if (t.gpu == nullptr && !dra_gpus) {
    absl::StatusOr<std::optional<GpuInventory>> gpu =
        ReadGpuInventory(tmpl.labels, tmpl.annotations, tmpl.allocatable,
                         absl::StrCat("node group ", group.id, ": template"));
    if (!gpu.ok()) t.unusable = gpu.status();
    if (gpu.ok() && gpu->has_value()) t.gpu = std::make_shared<const GpuInventory>(**gpu);
  }
  if (t.gpu == nullptr) {
    t.variants.push_back({"", catalog.ToVector(tmpl.allocatable), {}});
  } else {
    t.props->gpu = t.gpu;
    // A reconfigurable MIG pool's nodes come in each of its layouts; any other in one.
    std::vector<std::string> layouts = {""};
    if (t.gpu->reconfigurable()) {
      layouts.clear();
      for (const NamedMigLayout& l : t.gpu->mig_layouts()) layouts.push_back(l.name);
    }
    for (std::string& name : layouts) {
      TemplateVariant v;
      v.allocatable = catalog.ToVector(t.gpu->NodeAllocatable(tmpl.allocatable, name));
      v.gpu_share = UnitSharesBySlot(*t.gpu, t.gpu->LayoutNamed(name), catalog);
      v.mig_layout = std::move(name);
      t.variants.push_back(std::move(v));
    }
  }
  for (const TemplateVariant& v : t.variants) {
    if (t.largest.size() < v.allocatable.size()) t.largest.resize(v.allocatable.size(), 0);
    for (size_t slot = 0; slot < v.allocatable.size(); ++slot) {
      t.largest[slot] = std::max(t.largest[slot], v.allocatable[slot]);
    }
  }
  for (const PodSpec& ds : tmpl.daemonset_pods) {
    t.daemonset_pods.push_back(&ds);
    AddInto(t.daemonset_requests, snapshot.PodRequest(ds));
  }
  return t;
}

std::vector<size_t> PackingOrder(const std::vector<PodClass>& classes,
                                 const std::vector<size_t>& candidates, const PreparedTemplate& t,
                                 const ResourceCatalog& catalog) {
  absl::flat_hash_map<size_t, std::pair<double, double>> key;  // (GPU share, other share)
  for (size_t ci : candidates) {
    std::pair<double, double>& k = key[ci];
    const ResourceVector& request = classes[ci].request;
    for (size_t slot = 0; slot < request.size(); ++slot) {
      if (slot == ResourceCatalog::kPods) continue;
      const int64_t have = At(t.largest, slot);
      const double share =
          have > 0 ? static_cast<double>(request[slot]) / static_cast<double>(have) : 0;
      double& into = catalog.IsGpu(static_cast<int>(slot)) ? k.first : k.second;
      into = std::max(into, share);
    }
  }
  std::vector<size_t> order = candidates;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key[a] > key[b]; });
  return order;
}

namespace {

// How much physical GPU a node fill uses: how a reconfigurable MIG pool picks the layout
// that packs the pending pods into the fewest GPUs.
double GpuUse(const Fill& fill, const std::vector<ResourceVector>& requests,
              const TemplateVariant& v) {
  double use = 0;
  for (const auto& [i, copies] : fill) {
    for (size_t slot = 0; slot < requests[i].size() && slot < v.gpu_share.size(); ++slot) {
      use += static_cast<double>(copies * requests[i][slot]) * v.gpu_share[slot];
    }
  }
  return use;
}

// How many kinds of GPU device a node of shape `v` still has free after `fill`. Between
// layouts on which the pending pods use as much GPU, the one whose spare devices serve the
// most kinds of later pod wins: a notebook asking for a 2g slice then fits the node a 1g
// notebook opened, rather than opening a node of its own (each such node then lives as long
// as its longest pod).
int FreeGpuKinds(const Fill& fill, const std::vector<ResourceVector>& requests,
                 const ResourceVector& capacity, const TemplateVariant& v) {
  ResourceVector left = capacity;
  for (const auto& [i, copies] : fill) SubtractFrom(left, requests[i], copies);
  int kinds = 0;
  for (size_t slot = 0; slot < v.gpu_share.size() && slot < left.size(); ++slot) {
    if (v.gpu_share[slot] > 0 && left[slot] > 0) ++kinds;
  }
  return kinds;
}

}  // namespace

GroupPacking PackByPattern(const std::vector<PodClass>& classes, const std::vector<size_t>& order,
                           const PreparedTemplate& t, const ResourceCatalog& catalog,
                           const PackLimits& limits) {
  GroupPacking r;
  const size_t dims = std::max<size_t>(catalog.size(), ResourceCatalog::kPods + 1);
  std::vector<ResourceVector> capacity;  // per variant
  for (const TemplateVariant& v : t.variants) {
    capacity.push_back(Padded(v.allocatable, dims));
    SubtractFrom(capacity.back(), t.daemonset_requests);
  }
  std::vector<size_t> item_class;  // the classes an empty node takes, in packing order
  std::vector<ResourceVector> requests;
  std::vector<int64_t> available;
  for (size_t ci : order) {
    ResourceVector request = Padded(classes[ci].request, dims);
    std::optional<std::string> reason;
    for (const ResourceVector& c : capacity) {
      reason = CheckResources(catalog, request, c);
      if (!reason) break;
    }
    if (reason) {
      r.reasons[ci] = *std::move(reason);
      continue;
    }
    item_class.push_back(ci);
    requests.push_back(std::move(request));
    available.push_back(classes[ci].remaining());
  }
  std::vector<FillItems> items;
  for (const ResourceVector& c : capacity) items.emplace_back(requests, c, available);
  const auto leave_the_rest = [&](absl::string_view reason) {
    for (size_t i = 0; i < item_class.size(); ++i) {
      if (available[i] > 0) r.reasons[item_class[i]] = std::string(reason);
    }
  };
  int64_t steps = 0;
  size_t seed = 0;  // the largest item with pods left opens the next node
  while (true) {
    while (seed < item_class.size() && available[seed] == 0) ++seed;
    if (seed == item_class.size()) break;
    if (r.new_nodes >= limits.max_new_nodes) {
      r.hit_node_limit = true;
      leave_the_rest(NodeLimitReason(t, limits));
      break;
    }
    if (steps >= limits.max_checks) {
      leave_the_rest(kBudgetReason);
      break;
    }
    GroupPacking::Pattern pattern;
    double best_use = -1;
    int best_kinds = -1;
    for (size_t v = 0; v < items.size(); ++v) {
      if (!Fits(requests[seed], capacity[v])) continue;
      Fill fill = FillNode(items[v], available, seed, limits.fill_search, &steps);
      const double use = GpuUse(fill, requests, t.variants[v]);
      const bool same_use = std::abs(use - best_use) < 1e-9;
      const int kinds = FreeGpuKinds(fill, requests, capacity[v], t.variants[v]);
      if ((!same_use && use > best_use) || (same_use && kinds > best_kinds)) {
        best_use = use;
        best_kinds = kinds;
        pattern.pods = std::move(fill);
        pattern.variant = v;
      }
    }
    pattern.repeat = limits.max_new_nodes - r.new_nodes;
    for (const auto& [i, copies] : pattern.pods) {
      pattern.repeat = std::min(pattern.repeat, available[i] / copies);
    }
    for (auto& [i, copies] : pattern.pods) {
      const int64_t placed = copies * pattern.repeat;
      available[i] -= placed;
      for (FillItems& fi : items) fi.Consume(i, placed);
      r.pod_count += placed;
      AddInto(r.requested, requests[i], placed);
      i = item_class[i];  // the recipe names classes, not items
    }
    r.new_nodes += static_cast<int>(pattern.repeat);
    AddInto(r.offered, t.variants[pattern.variant].allocatable, pattern.repeat);
    r.patterns.push_back(std::move(pattern));
  }
  DropPodsSlot(r.requested);
  return r;
}

void TakePatternMembers(const GroupPacking& packing, std::vector<PodClass>& classes,
                        const PreparedTemplate& t, std::vector<PlannedNode>* nodes) {
  nodes->reserve(nodes->size() + static_cast<size_t>(packing.new_nodes));
  for (const GroupPacking::Pattern& pattern : packing.patterns) {
    for (int64_t n = 0; n < pattern.repeat; ++n) {
      nodes->push_back({{}, t.variants[pattern.variant].mig_layout});
      for (const auto& [ci, copies] : pattern.pods) {
        classes[ci].TakeMembers(copies, &nodes->back().pods);
      }
    }
  }
}

void AddPatternNodes(const GroupPacking& packing, const std::vector<PodClass>& classes,
                     const PreparedTemplate& t, int first_node, ClusterSnapshot& snapshot) {
  int64_t n = first_node;
  for (const GroupPacking::Pattern& pattern : packing.patterns) {
    for (int64_t r = 0; r < pattern.repeat; ++r) {
      const size_t index = snapshot.AddNodeFromTemplate(
          absl::StrCat(t.node_name, "-", n++), t.props, t.variants[pattern.variant].allocatable,
          t.daemonset_pods, t.daemonset_requests);
      for (const auto& [ci, copies] : pattern.pods) {
        snapshot.AddPods(index, classes[ci].pod, classes[ci].request, copies);
      }
    }
  }
}

NodesPacked PackPodByPod(std::vector<PodClass>& classes, const std::vector<size_t>& order,
                         const PreparedTemplate& t, ClusterSnapshot& snapshot,
                         const PackLimits& limits) {
  NodesPacked out;
  GroupPacking& r = out.packing;
  std::vector<size_t> new_nodes;
  int64_t checks = 0;
  for (size_t ci : order) {
    PodClass& c = classes[ci];
    const int64_t before = c.remaining();
    std::optional<std::string> why_not;
    for (size_t k = 0; k < new_nodes.size() && c.remaining() > 0 && checks < limits.max_checks;
         ++k) {
      const int64_t placed = PlaceOnNode(c, snapshot, new_nodes[k], &checks, &why_not);
      c.TakeMembers(placed, &out.nodes[k].pods);
    }
    while (c.remaining() > 0) {
      if (checks >= limits.max_checks) {
        r.reasons[ci] = std::string(kBudgetReason);
        break;
      }
      if (static_cast<int>(new_nodes.size()) >= limits.max_new_nodes) {
        r.hit_node_limit = true;
        r.reasons[ci] = NodeLimitReason(t, limits);
        break;
      }
      snapshot.Fork();
      const size_t index = snapshot.AddNodeFromTemplate(
          absl::StrCat(t.node_name, "-", limits.first_node + new_nodes.size()), t.props,
          t.variants[0].allocatable, t.daemonset_pods, t.daemonset_requests);
      const int64_t placed = PlaceOnNode(c, snapshot, index, &checks, &why_not);
      if (placed == 0) {  // not even an empty node takes it: the reason is final
        snapshot.Revert();
        r.reasons[ci] = why_not.value_or("does not fit an empty node");
        break;
      }
      snapshot.Commit();
      new_nodes.push_back(index);
      out.nodes.push_back({{}, t.variants[0].mig_layout});
      c.TakeMembers(placed, &out.nodes.back().pods);
    }
    const int64_t placed = before - c.remaining();
    r.pod_count += placed;
    AddInto(r.requested, c.request, placed);
  }
  r.new_nodes = static_cast<int>(new_nodes.size());
  AddInto(r.offered, t.variants[0].allocatable, r.new_nodes);
  DropPodsSlot(r.requested);
  return out;
}

}  // namespace gpua
