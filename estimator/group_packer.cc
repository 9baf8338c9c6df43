#include "estimator/group_packer.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "estimator/node_filler.h"
#include "estimator/placement.h"
#include "estimator/predicates.h"

namespace gpua {
namespace {

ResourceVector Padded(ResourceVector v, size_t size) {
  if (v.size() < size) v.resize(size, 0);
  return v;
}

std::string NodeLimitReason(const PreparedTemplate& t, int limit) {
  return absl::StrCat("node group ", t.group->id, " can add no more nodes (", limit,
                      " new node(s) allowed)");
}

constexpr absl::string_view kBudgetReason =
    "the estimate's work budget ran out before this pod was placed";

// The expanders compare what pods request with what nodes offer; the pod count is not a
// resource they weigh.
void DropPodsSlot(ResourceVector& v) {
  if (v.size() > ResourceCatalog::kPods) v[ResourceCatalog::kPods] = 0;
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
  t.allocatable = snapshot.catalog().ToVector(group.node_template.allocatable);
  for (const PodSpec& ds : group.node_template.daemonset_pods) {
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
      const int64_t have = At(t.allocatable, slot);
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

GroupPacking PackByPattern(const std::vector<PodClass>& classes, const std::vector<size_t>& order,
                           const PreparedTemplate& t, const ResourceCatalog& catalog,
                           const PackLimits& limits) {
  GroupPacking r;
  const size_t dims = std::max<size_t>(catalog.size(), ResourceCatalog::kPods + 1);
  ResourceVector capacity = Padded(t.allocatable, dims);
  SubtractFrom(capacity, t.daemonset_requests);
  std::vector<size_t> item_class;  // the classes an empty node takes, in packing order
  std::vector<ResourceVector> requests;
  std::vector<int64_t> available;
  for (size_t ci : order) {
    ResourceVector request = Padded(classes[ci].request, dims);
    if (auto reason = CheckResources(catalog, request, capacity)) {
      r.reasons[ci] = *std::move(reason);
      continue;
    }
    item_class.push_back(ci);
    requests.push_back(std::move(request));
    available.push_back(classes[ci].remaining());
  }
  FillItems items(requests, capacity, available);
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
      leave_the_rest(NodeLimitReason(t, limits.max_new_nodes));
      break;
    }
    if (steps >= limits.max_checks) {
      leave_the_rest(kBudgetReason);
      break;
    }
    GroupPacking::Pattern pattern;
    pattern.pods = FillNode(items, available, seed, limits.fill_search, &steps);
    pattern.repeat = limits.max_new_nodes - r.new_nodes;
    for (const auto& [i, copies] : pattern.pods) {
      pattern.repeat = std::min(pattern.repeat, available[i] / copies);
    }
    for (auto& [i, copies] : pattern.pods) {
      const int64_t placed = copies * pattern.repeat;
      available[i] -= placed;
      items.Consume(i, placed);
      r.pod_count += placed;
      AddInto(r.requested, requests[i], placed);
      i = item_class[i];  // the recipe names classes, not items
    }
    r.new_nodes += static_cast<int>(pattern.repeat);
    r.patterns.push_back(std::move(pattern));
  }
  DropPodsSlot(r.requested);
  return r;
}

void TakePatternMembers(const GroupPacking& packing, std::vector<PodClass>& classes,
                        std::vector<std::vector<int>>* nodes) {
  nodes->reserve(nodes->size() + static_cast<size_t>(packing.new_nodes));
  for (const GroupPacking::Pattern& pattern : packing.patterns) {
    for (int64_t n = 0; n < pattern.repeat; ++n) {
      nodes->emplace_back();
      for (const auto& [ci, copies] : pattern.pods) classes[ci].TakeMembers(copies, &nodes->back());
    }
  }
}

void AddPatternNodes(const GroupPacking& packing, const std::vector<PodClass>& classes,
                     const PreparedTemplate& t, ClusterSnapshot& snapshot) {
  int64_t n = 0;
  for (const GroupPacking::Pattern& pattern : packing.patterns) {
    for (int64_t r = 0; r < pattern.repeat; ++r) {
      const size_t index =
          snapshot.AddNodeFromTemplate(absl::StrCat(t.node_name, "-", n++), t.props, t.allocatable,
                                       t.daemonset_pods, t.daemonset_requests);
      for (const auto& [ci, copies] : pattern.pods) {
        snapshot.AddPods(index, classes[ci].pod, classes[ci].request, copies);
      }
    }
  }
}

GroupPacking PackPodByPod(std::vector<PodClass>& classes, const std::vector<size_t>& order,
                          const PreparedTemplate& t, ClusterSnapshot& snapshot,
                          const PackLimits& limits, std::vector<std::vector<int>>* nodes) {
  GroupPacking r;
  std::vector<size_t> new_nodes;
  int64_t checks = 0;
  for (size_t ci : order) {
    PodClass& c = classes[ci];
    const int64_t before = c.remaining();
    std::optional<std::string> why_not;
    for (size_t k = 0; k < new_nodes.size() && c.remaining() > 0 && checks < limits.max_checks;
         ++k) {
      const int64_t placed = PlaceOnNode(c, snapshot, new_nodes[k], false, &checks, &why_not);
      c.TakeMembers(placed, &(*nodes)[k]);
    }
    while (c.remaining() > 0) {
      if (checks >= limits.max_checks) {
        r.reasons[ci] = std::string(kBudgetReason);
        break;
      }
      if (static_cast<int>(new_nodes.size()) >= limits.max_new_nodes) {
        r.hit_node_limit = true;
        r.reasons[ci] = NodeLimitReason(t, limits.max_new_nodes);
        break;
      }
      snapshot.Fork();
      const size_t index =
          snapshot.AddNodeFromTemplate(absl::StrCat(t.node_name, "-", new_nodes.size()), t.props,
                                       t.allocatable, t.daemonset_pods, t.daemonset_requests);
      const int64_t placed = PlaceOnNode(c, snapshot, index, false, &checks, &why_not);
      if (placed == 0) {  // not even an empty node takes it: the reason is final
        snapshot.Revert();
        r.reasons[ci] = why_not.value_or("does not fit an empty node");
        break;
      }
      snapshot.Commit();
      new_nodes.push_back(index);
      nodes->emplace_back();
      c.TakeMembers(placed, &nodes->back());
    }
    const int64_t placed = before - c.remaining();
    r.pod_count += placed;
    AddInto(r.requested, c.request, placed);
  }
  r.new_nodes = static_cast<int>(new_nodes.size());
  DropPodsSlot(r.requested);
  return r;
}

}  // namespace gpua
