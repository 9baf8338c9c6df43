#include "estimator/estimate.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "estimator/predicates.h"

namespace gpua {
namespace {

// Pods the scheduler cannot tell apart, planned together.
struct PodClass {
  const PodSpec* pod = nullptr;  // the first member stands for all
  std::vector<int> members;      // indices into the pending pods, in input order
  size_t next = 0;               // members before this one are placed
  ResourceVector request;
  bool isolated = false;  // placeable by resources alone
  size_t remaining() const { return members.size() - next; }
};

std::vector<PodClass> BuildClasses(const std::vector<PodSpec>& pending, ClusterSnapshot& snapshot) {
  std::vector<PodClass> classes;
  absl::flat_hash_map<std::string, size_t> by_key;
  for (size_t i = 0; i < pending.size(); ++i) {
    const PodSpec& pod = pending[i];
    if (!pod.invalid.ok()) continue;
    auto [it, inserted] = by_key.try_emplace(EquivalenceKey(pod), classes.size());
    if (inserted) {
      PodClass c;
      c.pod = &pod;
      c.request = snapshot.PodRequest(pod);
      classes.push_back(std::move(c));
    }
    classes[it->second].members.push_back(static_cast<int>(i));
  }
  return classes;
}

// Anti-affinity of any pod (placed or pending) that selects `pod` makes placement depend on
// where that pod is, so `pod` cannot be placed by resources alone.
bool SomeoneRepels(const PodSpec& pod, const ClusterSnapshot& snapshot,
                   const std::vector<PodClass>& classes) {
  const auto repels = [&](const PodSpec& other) {
    for (const PodAffinityTerm& t : other.anti_affinity) {
      if (other.TermSelects(t, pod)) return true;
    }
    return false;
  };
  for (const PodClass& c : classes) {
    if (repels(*c.pod)) return true;
  }
  for (const SimNode& n : snapshot.nodes()) {
    for (const PodSpec* p : n.pods) {
      if (repels(*p)) return true;
    }
  }
  return false;
}

// Places as many of the class's remaining pods as node `index` takes; returns how many.
int64_t PlaceOnNode(PodClass& c, ClusterSnapshot& snapshot, size_t index, int64_t* checks,
                    std::optional<std::string>* last_reason) {
  const SimNode& node = snapshot.node(index);
  if (auto reason = CheckNodeStatic(*c.pod, *node.props, node.name)) {
    ++*checks;
    *last_reason = std::move(reason);
    return 0;
  }
  if (c.isolated) {
    ++*checks;
    const int64_t copies = CopiesThatFit(c.request, node.free, static_cast<int64_t>(c.remaining()));
    if (copies == 0) {
      *last_reason = CheckResources(snapshot.catalog(), c.request, node);
      return 0;
    }
    snapshot.AddPods(index, c.pod, c.request, copies);
    return copies;
  }
  int64_t placed = 0;
  while (placed < static_cast<int64_t>(c.remaining())) {
    ++*checks;
    std::optional<std::string> reason = CheckResources(snapshot.catalog(), c.request, node);
    if (!reason) reason = CheckPodInteractions(*c.pod, snapshot, index);
    if (reason) {
      *last_reason = std::move(reason);
      break;
    }
    snapshot.AddPods(index, c.pod, c.request);
    ++placed;
  }
  return placed;
}

// Records which members went to `node` (their plan index) and advances the class.
void TakeMembers(PodClass& c, int64_t count, std::vector<int>* into) {
  for (int64_t i = 0; i < count; ++i) into->push_back(c.members[c.next++]);
}

// What a new node of a group looks like, prepared once per group.
struct PreparedTemplate {
  const NodeGroupSpec* group;
  std::shared_ptr<NodeProps> props;
  ResourceVector allocatable;
  std::vector<const PodSpec*> daemonset_pods;
  ResourceVector daemonset_requests;
};

PreparedTemplate Prepare(const NodeGroupSpec& group, ClusterSnapshot& snapshot) {
  PreparedTemplate t{&group, std::make_shared<NodeProps>(), {}, {}, {}};
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

// Pods first whose GPU share of the group's node is largest, then by their largest share of
// any other resource: the first-fit-decreasing order, GPUs weighing first.
std::vector<size_t> PackingOrder(const std::vector<PodClass>& classes, const PreparedTemplate& t,
                                 const ResourceCatalog& catalog) {
  std::vector<std::pair<double, double>> key(classes.size());
  for (size_t i = 0; i < classes.size(); ++i) {
    for (size_t slot = 0; slot < classes[i].request.size(); ++slot) {
      if (slot == ResourceCatalog::kPods) continue;
      const int64_t have = At(t.allocatable, slot);
      const double share =
          have > 0 ? static_cast<double>(classes[i].request[slot]) / static_cast<double>(have) : 0;
      auto& k = catalog.IsGpu(static_cast<int>(slot)) ? key[i].first : key[i].second;
      k = std::max(k, share);
    }
  }
  std::vector<size_t> order(classes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key[a] > key[b]; });
  return order;
}

ResourceList ToResourceList(const ResourceCatalog& catalog, const ResourceVector& v) {
  ResourceList list;
  for (size_t slot = 0; slot < v.size(); ++slot) {
    if (v[slot] != 0)
      list.Set(catalog.Name(static_cast<int>(slot)),
               catalog.ToQuantity(static_cast<int>(slot), v[slot]));
  }
  return list;
}

struct GroupResult {
  ScaleUpOption option;
  GroupPlan plan;
  absl::flat_hash_map<size_t, std::string> reasons;  // class -> why its rest stayed out
};

// Packs the classes' remaining pods onto new nodes of one group, first fit decreasing.
// Leaves the new nodes in the snapshot; the caller forks and reverts around it.
GroupResult SimulateGroup(std::vector<PodClass>& classes, const PreparedTemplate& t,
                          ClusterSnapshot& snapshot, int node_cap, int64_t max_checks) {
  GroupResult r;
  ResourceVector requested;  // by the pods placed, for the expanders
  r.option.group = t.group;
  r.plan.group_id = t.group->id;
  std::vector<size_t> new_nodes;
  int64_t checks = 0;
  const std::string template_name = absl::StrCat("template-node-for-", t.group->id);
  for (size_t ci : PackingOrder(classes, t, snapshot.catalog())) {
    PodClass& c = classes[ci];
    if (c.remaining() == 0) continue;
    const size_t next_before = c.next;
    absl::Cleanup count_requested = [&] {
      AddInto(requested, c.request, static_cast<int64_t>(c.next - next_before));
    };
    if (auto reason = CheckNodeStatic(*c.pod, *t.props, template_name)) {
      r.reasons[ci] = *std::move(reason);
      continue;
    }
    std::optional<std::string> last_reason;
    for (size_t k = 0; k < new_nodes.size() && c.remaining() > 0 && checks < max_checks; ++k) {
      const int64_t placed = PlaceOnNode(c, snapshot, new_nodes[k], &checks, &last_reason);
      TakeMembers(c, placed, &r.plan.nodes[k].pods);
    }
    while (c.remaining() > 0) {
      if (checks >= max_checks) {
        r.reasons[ci] = "the estimate's work budget ran out before this pod was placed";
        break;
      }
      if (static_cast<int>(new_nodes.size()) >= node_cap) {
        r.reasons[ci] = absl::StrCat("node group ", t.group->id, " can add no more nodes (",
                                     node_cap, " new node(s) allowed)");
        break;
      }
      snapshot.Fork();
      const size_t index =
          snapshot.AddNodeFromTemplate(absl::StrCat(template_name, "-", new_nodes.size()), t.props,
                                       t.allocatable, t.daemonset_pods, t.daemonset_requests);
      const int64_t placed = PlaceOnNode(c, snapshot, index, &checks, &last_reason);
      if (placed == 0) {  // not even an empty node takes it: the reason is final
        snapshot.Revert();
        r.reasons[ci] = last_reason.value_or("does not fit an empty node");
        break;
      }
      snapshot.Commit();
      new_nodes.push_back(index);
      r.plan.nodes.emplace_back();
      TakeMembers(c, placed, &r.plan.nodes.back().pods);
    }
  }
  for (const PlannedNode& n : r.plan.nodes) {
    r.plan.pods.insert(r.plan.pods.end(), n.pods.begin(), n.pods.end());
  }
  r.option.new_nodes = r.plan.new_nodes();
  r.option.pods = r.plan.pods;
  if (requested.size() > ResourceCatalog::kPods) requested[ResourceCatalog::kPods] = 0;
  r.option.pods_requests = ToResourceList(snapshot.catalog(), requested);
  ResourceVector offered;
  AddInto(offered, t.allocatable, r.option.new_nodes);
  r.option.nodes_allocatable = ToResourceList(snapshot.catalog(), offered);
  return r;
}

// Places what fits on existing and upcoming nodes, first fit in node order.
void PlaceOnExisting(std::vector<PodClass>& classes, ClusterSnapshot& snapshot, ScaleUpPlan& plan) {
  const size_t existing = snapshot.size();
  int64_t checks = 0;
  for (PodClass& c : classes) {
    for (size_t n = 0; n < existing && c.remaining() > 0; ++n) {
      std::optional<std::string> ignored;
      const int64_t placed = PlaceOnNode(c, snapshot, n, &checks, &ignored);
      for (int64_t i = 0; i < placed; ++i) {
        plan.on_existing.push_back({c.members[c.next++], snapshot.node(n).name});
      }
    }
  }
}

}  // namespace

int ScaleUpPlan::total_new_nodes() const {
  int n = 0;
  for (const GroupPlan& g : groups) n += g.new_nodes();
  return n;
}

ScaleUpPlan Estimate(const std::vector<PodSpec>& pending, const std::vector<NodeGroupSpec>& groups,
                     ClusterSnapshot& snapshot, Expander& expander,
                     const EstimateOptions& options) {
  ScaleUpPlan plan;
  snapshot.Fork();
  std::vector<PodClass> classes = BuildClasses(pending, snapshot);
  for (PodClass& c : classes) {
    c.isolated = IsolatedFromOtherPods(*c.pod) && !SomeoneRepels(*c.pod, snapshot, classes);
  }
  PlaceOnExisting(classes, snapshot, plan);

  std::vector<PreparedTemplate> templates;
  for (const NodeGroupSpec& g : groups) templates.push_back(Prepare(g, snapshot));

  std::vector<bool> used(groups.size(), false);
  std::vector<absl::flat_hash_map<size_t, std::string>> reasons(groups.size());
  int nodes_left = options.max_new_nodes;
  if (options.max_nodes_total > 0) {
    nodes_left = std::min(nodes_left, options.max_nodes_total - static_cast<int>(snapshot.size()));
  }
  while (true) {
    std::vector<ScaleUpOption> opts;
    std::vector<size_t> opt_group;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (used[g]) continue;
      const int headroom = groups[g].max_size - groups[g].target_size;
      const int cap = std::max(0, std::min(headroom, nodes_left));
      std::vector<PodClass> trial = classes;
      snapshot.Fork();
      GroupResult r =
          SimulateGroup(trial, templates[g], snapshot, cap, options.max_checks_per_group);
      snapshot.Revert();
      reasons[g] = std::move(r.reasons);
      opts.push_back(std::move(r.option));
      opt_group.push_back(g);
    }
    const int chosen = ChooseOption(expander, opts);
    if (chosen < 0) break;
    // Simulate the chosen group again for real: the same input gives the same packing.
    const size_t g = opt_group[chosen];
    const int cap = std::max(0, std::min(groups[g].max_size - groups[g].target_size, nodes_left));
    GroupResult r =
        SimulateGroup(classes, templates[g], snapshot, cap, options.max_checks_per_group);
    reasons[g] = std::move(r.reasons);
    used[g] = true;
    nodes_left -= r.plan.new_nodes();
    plan.groups.push_back(std::move(r.plan));
  }

  for (size_t i = 0; i < pending.size(); ++i) {
    if (pending[i].invalid.ok()) continue;
    UnschedulablePod u{static_cast<int>(i), {}};
    for (const NodeGroupSpec& g : groups) {
      u.reasons[g.id] = std::string(pending[i].invalid.message());
    }
    plan.unschedulable.push_back(std::move(u));
  }
  for (size_t ci = 0; ci < classes.size(); ++ci) {
    const PodClass& c = classes[ci];
    for (size_t m = c.next; m < c.members.size(); ++m) {
      UnschedulablePod u{c.members[m], {}};
      for (size_t g = 0; g < groups.size(); ++g) {
        auto it = reasons[g].find(ci);
        u.reasons[groups[g].id] = it != reasons[g].end()
                                      ? it->second
                                      : (used[g] ? "node group was already scaled up for "
                                                   "other pods in this plan"
                                                 : "no node of the group was added");
      }
      plan.unschedulable.push_back(std::move(u));
    }
  }
  std::sort(plan.unschedulable.begin(), plan.unschedulable.end(),
            [](const UnschedulablePod& a, const UnschedulablePod& b) { return a.pod < b.pod; });
  snapshot.Revert();
  return plan;
}

}  // namespace gpua
