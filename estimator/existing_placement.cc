#include "estimator/existing_placement.h"

#include <algorithm>

#include "estimator/placement.h"
#include "estimator/predicates.h"

namespace gpua {

// Members of the gang already on the snapshot's nodes.
int64_t GangMembersOnNodes(const ClusterSnapshot& snapshot, const std::string& name) {
  int64_t n = 0;
  for (const SimNode& node : snapshot.nodes()) {
    for (const PodSpec* p : node.pods) n += p->gang.has_value() && p->gang->name == name;
  }
  return n;
}

// The gangs among `classes`, by name (a stable order), each with its classes in the order
// `order` lists them (class order when null).
std::map<std::string, std::vector<size_t>> GangClasses(const std::vector<PodClass>& classes,
                                                       const std::vector<size_t>* order) {
  std::map<std::string, std::vector<size_t>> gangs;
  const auto add = [&](size_t ci) {
    if (classes[ci].pod->gang.has_value()) gangs[classes[ci].pod->gang->name].push_back(ci);
  };
  if (order != nullptr) {
    for (size_t ci : *order) add(ci);
  } else {
    for (size_t ci = 0; ci < classes.size(); ++ci) add(ci);
  }
  return gangs;
}

namespace {

// The nodes placement may use: the first `existing` of the snapshot (those that exist or are
// coming), and the GPU policy their GPUs are checked under.
struct ExistingScope {
  ClusterSnapshot& snapshot;
  size_t existing;
  const GpuPolicy& policy;
};

// Places what of class `c` fits on the first `existing` nodes, first fit in node order.
void PlaceClassOnExisting(PodClass& c, const ExistingScope& scope, StaticAdmissions& admissions,
                          std::vector<ExistingPlacement>& placed) {
  ClusterSnapshot& snapshot = scope.snapshot;
  const size_t existing = scope.existing;
  const GpuPolicy& policy = scope.policy;
  int64_t checks = 0;
  for (const uint32_t n : admissions.Admitting(*c.pod)) {
    if (n >= existing || c.remaining() == 0) break;
    // Most nodes of a busy cluster have no room: the cheap test first, and no reasons
    // (nobody reads why an existing node did not take a pod).
    if (!Fits(c.request, snapshot.node(n).free)) continue;
    const NodeProps& props = *snapshot.node(n).props;
    if (props.gpu && CheckGpuFit(*c.pod, *props.gpu, policy)) continue;
    std::optional<std::string> ignored;
    const int64_t copies = PlaceOnNode(c, snapshot, n, &checks, &ignored);
    for (int64_t i = 0; i < copies; ++i)
      placed.push_back({c.members[c.next++], snapshot.node(n).name, static_cast<int>(n)});
  }
}

// Places the nominated members of class `c` on their own nodes (of the first `existing`), puts
// those placed first among its members, and reports those their node no longer holds.
void PlaceClassOnNominated(PodClass& c, const std::vector<int>& nominated,
                           const ExistingScope& scope, std::vector<ExistingPlacement>& placed,
                           std::vector<MissedNomination>& missed) {
  ClusterSnapshot& snapshot = scope.snapshot;
  const size_t existing = scope.existing;
  const GpuPolicy& policy = scope.policy;
  std::map<int, std::vector<int>> by_node;  // node -> members nominated to it
  for (size_t m = c.next; m < c.members.size(); ++m) {
    const int pod = c.members[m];
    const int node = static_cast<size_t>(pod) < nominated.size() ? nominated[pod] : -1;
    if (node >= 0 && static_cast<size_t>(node) < existing) by_node[node].push_back(pod);
  }
  if (by_node.empty()) return;
  std::vector<int> first;  // the members placed here
  int64_t checks = 0;
  for (const auto& [node, members] : by_node) {
    PodClass mine = c;
    mine.members = members;
    mine.next = 0;
    std::optional<std::string> why;
    const NodeProps& props = *snapshot.node(node).props;
    if (props.gpu) why = CheckGpuFit(*c.pod, *props.gpu, policy);
    if (!why.has_value()) {
      why = CheckNodeStatic(*c.pod, props, snapshot.node(node).name);
      checks += why.has_value();
    }
    const int64_t copies = why.has_value() ? 0 : PlaceOnNode(mine, snapshot, node, &checks, &why);
    for (int64_t i = 0; i < copies; ++i) {
      first.push_back(members[i]);
      placed.push_back({members[i], snapshot.node(node).name, node});
    }
    for (size_t i = copies; i < members.size(); ++i) {
      missed.push_back({members[i], node, why.value_or("the node has no room for it")});
    }
  }
  std::vector<int> rest;
  for (size_t m = c.next; m < c.members.size(); ++m) {
    if (std::find(first.begin(), first.end(), c.members[m]) == first.end()) {
      rest.push_back(c.members[m]);
    }
  }
  c.members.resize(c.next);
  c.members.insert(c.members.end(), first.begin(), first.end());
  c.members.insert(c.members.end(), rest.begin(), rest.end());
  c.next += first.size();
}

// The nominated pods first, each on its own node; a gang's nominated members all or none.
void PlaceNominated(std::vector<PodClass>& classes, const std::vector<int>& nominated,
                    const ExistingScope& scope, ScaleUpPlan& plan) {
  ClusterSnapshot& snapshot = scope.snapshot;
  if (nominated.empty()) return;
  for (PodClass& c : classes) {
    if (c.pod->gang.has_value()) continue;
    PlaceClassOnNominated(c, nominated, scope, plan.on_existing, plan.missed);
  }
  for (const auto& [name, members] : GangClasses(classes)) {
    snapshot.Fork();
    std::vector<std::pair<size_t, PodClass>> before;
    std::vector<ExistingPlacement> placed;
    std::vector<MissedNomination> missed;
    for (size_t ci : members) {
      before.emplace_back(ci, classes[ci]);
      PlaceClassOnNominated(classes[ci], nominated, scope, placed, missed);
    }
    if (missed.empty()) {
      snapshot.Commit();
      plan.on_existing.insert(plan.on_existing.end(), placed.begin(), placed.end());
      continue;
    }
    snapshot.Revert();  // planned as a gang again, whole
    for (auto& [ci, c] : before) classes[ci] = std::move(c);
    for (MissedNomination& m : missed) {
      m.why =
          absl::StrCat("gang ", name, " no longer fits its nominated nodes whole (", m.why, ")");
    }
    plan.missed.insert(plan.missed.end(), missed.begin(), missed.end());
  }
}

// The classes most constrained first: fewest groups that admit them (`admitting_groups`, by
// class), then fewest existing and upcoming nodes; otherwise in class order.
std::vector<size_t> MostConstrainedFirst(const std::vector<PodClass>& classes,
                                         const std::vector<int>& admitting_groups,
                                         StaticAdmissions& admissions, size_t existing) {
  std::vector<std::pair<std::pair<int, size_t>, size_t>> keyed;
  keyed.reserve(classes.size());
  for (size_t ci = 0; ci < classes.size(); ++ci) {
    const std::vector<uint32_t>& nodes = admissions.Admitting(*classes[ci].pod);
    const size_t on_existing = static_cast<size_t>(
        std::lower_bound(nodes.begin(), nodes.end(), static_cast<uint32_t>(existing)) -
        nodes.begin());
    keyed.push_back({{admitting_groups[ci], on_existing}, ci});
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<size_t> order;
  order.reserve(keyed.size());
  for (const auto& k : keyed) order.push_back(k.second);
  return order;
}

}  // namespace

// Places what fits on existing and upcoming nodes: nominated pods on their own nodes, then
// the others first fit in node order, most constrained first; gangs are placed there whole
// or not at all.
void PlaceOnExisting(std::vector<PodClass>& classes, const std::vector<int>& admitting_groups,
                     const ExistingNodes& nodes, const EstimateOptions& options,
                     ScaleUpPlan& plan) {
  ClusterSnapshot& snapshot = nodes.snapshot;
  StaticAdmissions& admissions = nodes.admissions;
  const size_t existing = snapshot.size();
  admissions.Begin(snapshot);  // over the first `existing` nodes, which stay
  const ExistingScope scope{snapshot, existing, options.gpu_policy};
  PlaceNominated(classes, options.nominated, scope, plan);
  const std::vector<size_t> order =
      MostConstrainedFirst(classes, admitting_groups, admissions, existing);
  for (size_t ci : order) {
    PodClass& c = classes[ci];
    if (c.pod->gang.has_value()) continue;
    PlaceClassOnExisting(c, scope, admissions, plan.on_existing);
  }
  // A gang whose nodes are coming up (or that fits beside others) needs no new node: were
  // it planned only on new nodes, each loop would ask for more while the first ones boot.
  for (const auto& [name, members] : GangClasses(classes, &order)) {
    const GangRef& gang = *classes[members[0]].pod->gang;
    int64_t pending = 0;
    for (size_t ci : members) pending += classes[ci].remaining();
    const int64_t needed =
        gang.min_member > 0 ? gang.min_member - GangMembersOnNodes(snapshot, name) : pending;
    if (needed <= 0 || pending < needed) continue;  // PlanGang says why
    snapshot.Fork();
    std::vector<size_t> next_before;
    std::vector<ExistingPlacement> placed;
    for (size_t ci : members) {
      next_before.push_back(classes[ci].next);
      PlaceClassOnExisting(classes[ci], scope, admissions, placed);
    }
    if (static_cast<int64_t>(placed.size()) >= needed) {
      snapshot.Commit();
      plan.on_existing.insert(plan.on_existing.end(), placed.begin(), placed.end());
      continue;
    }
    snapshot.Revert();
    for (size_t i = 0; i < members.size(); ++i) classes[members[i]].next = next_before[i];
  }
}

}  // namespace gpua
