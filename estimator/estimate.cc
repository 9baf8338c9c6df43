#include "estimator/estimate.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "estimator/existing_placement.h"
#include "estimator/gpu/gpu_predicates.h"
#include "estimator/group_packer.h"
#include "estimator/placement.h"
#include "estimator/pod_class.h"
#include "estimator/predicates.h"
#include "estimator/static_admissions.h"

namespace gpua {
namespace {

ResourceList ToResourceList(const ResourceCatalog& catalog, const ResourceVector& v) {
  ResourceList list;
  for (size_t slot = 0; slot < v.size(); ++slot) {
    if (v[slot] != 0)
      list.Set(catalog.Name(static_cast<int>(slot)),
               catalog.ToQuantity(static_cast<int>(slot), v[slot]));
  }
  return list;
}

// One node group through the rounds of an estimate.
struct GroupRound {
  PreparedTemplate t;
  std::vector<size_t> admitted;  // classes its nodes admit (labels, taints)
  absl::flat_hash_map<size_t, std::string> not_admitted;  // class -> why not
  // The latest what-if while still valid; for a used group, what it was scaled up by.
  std::optional<GroupPacking> trial;
  bool trial_by_pattern = false;
  int trial_limit = 0;
  bool used = false;
  int nodes_added = 0;  // by this plan, for gangs and the group's own round
};

// A by-pattern packing whose nodes are not in the snapshot yet.
struct PendingNodes {
  size_t group;
  GroupPacking packing;
  int first_node;
};

class Estimator {
 public:
  Estimator(const std::vector<NodeGroupSpec>& groups, ClusterSnapshot& snapshot,
            std::vector<PodClass>& classes, const EstimateOptions& options)
      : snapshot_(snapshot), classes_(classes), options_(options) {
    for (const NodeGroupSpec& g : groups) states_.push_back(Admit(g));
    nodes_left_ = options.max_new_nodes;
    if (options.max_nodes_total > 0) {
      nodes_left_ =
          std::min(nodes_left_, options.max_nodes_total - static_cast<int>(snapshot.size()));
    }
  }

  // Scales up the group the expander likes best, then again for the pods left, until no
  // group takes any.
  void Run(Expander& expander, ScaleUpPlan& plan) {
    PlanGangs(expander, plan);
    while (true) {
      std::vector<ScaleUpOption> options;
      std::vector<size_t> option_group;
      for (size_t g = 0; g < states_.size(); ++g) {
        if (states_[g].used) continue;
        options.push_back(Option(g));
        option_group.push_back(g);
      }
      const int chosen = ChooseOption(expander, options);
      if (chosen < 0) break;
      plan.groups.push_back(ScaleUp(option_group[chosen]));
    }
    MergeByGroup(plan);
  }

  // By class: how many groups' nodes admit it.
  std::vector<int> AdmittingGroups() const {
    std::vector<int> count(classes_.size(), 0);
    for (const GroupRound& s : states_) {
      for (size_t ci : s.admitted) ++count[ci];
    }
    return count;
  }

  // Why a pod of class `ci` that stayed pending is not in group `g`.
  std::string Reason(size_t g, size_t ci) const {
    const GroupRound& s = states_[g];
    if (auto it = gang_reasons_.find({g, ci}); it != gang_reasons_.end()) return it->second;
    if (auto it = s.not_admitted.find(ci); it != s.not_admitted.end()) return it->second;
    if (s.trial.has_value()) {
      if (auto it = s.trial->reasons.find(ci); it != s.trial->reasons.end()) return it->second;
    }
    return s.used ? "node group was already scaled up for other pods in this plan"
                  : "no node of the group was added";
  }

 private:
  GroupRound Admit(const NodeGroupSpec& g) {
    GroupRound s;
    s.t = PrepareTemplate(g, snapshot_);
    for (size_t ci = 0; ci < classes_.size(); ++ci) {
      const PodSpec& pod = *classes_[ci].pod;
      std::optional<std::string> reason;
      if (!s.t.unusable.ok()) {
        reason = std::string(s.t.unusable.message());
      } else if (!(reason = CheckNodeStatic(pod, *s.t.props, s.t.node_name)) && s.t.gpu) {
        reason = CheckGpuFit(pod, *s.t.gpu, options_.gpu_policy);
      }
      if (reason) {
        s.not_admitted[ci] = *std::move(reason);
      } else {
        s.admitted.push_back(ci);
      }
    }
    return s;
  }

  PackLimits Limits(size_t g) const {
    const NodeGroupSpec& group = *states_[g].t.group;
    PackLimits limits;
    limits.max_new_nodes = std::max(
        0, std::min(group.max_size - group.target_size - states_[g].nodes_added, nodes_left_));
    for (const ResourceBudget& b : budgets_) {
      auto it = b.per_node.find(group.id);
      if (it == b.per_node.end() || it->second <= 0) continue;
      const int64_t fits = std::max<int64_t>(0, b.left / it->second);
      if (fits < limits.max_new_nodes) {
        limits.max_new_nodes = static_cast<int>(fits);
        limits.limited_by = b.name;
      }
    }
    limits.first_node = states_[g].nodes_added;
    limits.max_checks = options_.max_checks_per_group;
    limits.fill_search = options_.fill_search_steps;
    return limits;
  }

  // The admitted classes with pods left, in packing order; whether all are placeable by
  // resources alone.
  std::vector<size_t> Order(size_t g, bool* by_pattern) const {
    std::vector<size_t> candidates;
    *by_pattern = true;
    for (size_t ci : states_[g].admitted) {
      if (classes_[ci].remaining() == 0 || classes_[ci].pod->gang.has_value()) continue;
      candidates.push_back(ci);
      *by_pattern = *by_pattern && classes_[ci].isolated;
    }
    return PackingOrder(classes_, candidates, states_[g].t, snapshot_.catalog());
  }

  ScaleUpOption Option(size_t g) {
    GroupRound& s = states_[g];
    const PackLimits limits = Limits(g);
    if (!s.trial.has_value() || s.trial_limit != limits.max_new_nodes) {
      bool by_pattern = false;
      const std::vector<size_t> order = Order(g, &by_pattern);
      if (by_pattern) {
        s.trial = PackByPattern(classes_, order, s.t, snapshot_.catalog(), limits);
      } else {
        std::vector<PodClass> scratch = classes_;
        AddPendingNodes();
        snapshot_.Fork();
        s.trial = PackPodByPod(scratch, order, s.t, snapshot_, limits).packing;
        snapshot_.Revert();
      }
      s.trial_by_pattern = by_pattern;
      s.trial_limit = limits.max_new_nodes;
    }
    return ToOption(g, *s.trial);
  }

  GroupPlan ScaleUp(size_t g) {
    GroupRound& s = states_[g];
    std::vector<size_t> before(classes_.size());
    for (size_t ci = 0; ci < classes_.size(); ++ci) before[ci] = classes_[ci].next;
    std::vector<PlannedNode> nodes;
    if (s.trial_by_pattern) {
      TakePatternMembers(*s.trial, classes_, s.t, &nodes);
      not_in_snapshot_.push_back({g, *s.trial, s.nodes_added});
    } else {  // packing pod by pod again gives the same nodes, now for real
      bool by_pattern = false;
      const std::vector<size_t> order = Order(g, &by_pattern);
      AddPendingNodes();
      NodesPacked packed = PackPodByPod(classes_, order, s.t, snapshot_, Limits(g));
      s.trial = std::move(packed.packing);
      nodes = std::move(packed.nodes);
    }
    s.used = true;
    Invalidate(before);
    return Added(g, std::move(nodes));
  }

  // Accounts for new nodes of group g and lists them as a plan.
  GroupPlan Added(size_t g, std::vector<PlannedNode> nodes) {
    states_[g].nodes_added += static_cast<int>(nodes.size());
    nodes_left_ -= static_cast<int>(nodes.size());
    for (ResourceBudget& b : budgets_) {
      auto it = b.per_node.find(states_[g].t.group->id);
      if (it != b.per_node.end()) b.left -= it->second * static_cast<int64_t>(nodes.size());
    }
    GroupPlan plan;
    plan.group_id = states_[g].t.group->id;
    for (PlannedNode& node : nodes) {
      plan.pods.insert(plan.pods.end(), node.pods.begin(), node.pods.end());
      plan.nodes.push_back(std::move(node));
    }
    return plan;
  }

  // A group scaled up for gangs and then for other pods is one scale-up of it.
  static void MergeByGroup(ScaleUpPlan& plan) {
    std::vector<GroupPlan> merged;
    for (GroupPlan& g : plan.groups) {
      auto it = std::find_if(merged.begin(), merged.end(),
                             [&](const GroupPlan& m) { return m.group_id == g.group_id; });
      if (it == merged.end()) {
        merged.push_back(std::move(g));
        continue;
      }
      it->pods.insert(it->pods.end(), g.pods.begin(), g.pods.end());
      for (PlannedNode& n : g.nodes) it->nodes.push_back(std::move(n));
    }
    plan.groups = std::move(merged);
  }

  // Gangs go first, each all or nothing and in one group: the plan holds at least its
  // minMember pods, or none of them and one reason per group.
  void PlanGangs(Expander& expander, ScaleUpPlan& plan) {
    for (const auto& [name, members] : GangClasses(classes_)) {
      PlanGang(name, members, expander, plan);
    }
  }

  void PlanGang(const std::string& name, const std::vector<size_t>& members, Expander& expander,
                ScaleUpPlan& plan) {
    const GangRef& gang = *classes_[members[0]].pod->gang;
    int64_t pending = 0;
    for (size_t ci : members) pending += classes_[ci].remaining();
    const int64_t running = RunningMembers(name);
    const int64_t needed = gang.min_member > 0 ? gang.min_member - running : pending;
    if (needed <= 0) return;  // enough run already: the rest are not held back
    const std::string head = absl::StrCat("gang ", name, " needs ", needed, " pod(s) together");
    if (pending < needed) {
      SetGangReason(members, absl::StrCat(head, "; only ", pending, " are pending"));
      return;
    }
    std::vector<ScaleUpOption> options;
    std::vector<std::pair<size_t, GroupPacking>> trials;
    for (size_t g = 0; g < states_.size(); ++g) {
      std::string why_not;
      std::optional<GroupPacking> trial = GangTrial(g, members, gang, needed, &why_not);
      if (!trial.has_value()) {
        for (size_t ci : members) gang_reasons_[{g, ci}] = absl::StrCat(head, ": ", why_not);
        continue;
      }
      options.push_back(ToOption(g, *trial));
      trials.emplace_back(g, *std::move(trial));
    }
    const int chosen = ChooseOption(expander, options);
    if (chosen < 0) return;
    const size_t g = trials[chosen].first;
    std::vector<PlannedNode> nodes;
    if (AllIsolated(members)) {
      TakePatternMembers(trials[chosen].second, classes_, states_[g].t, &nodes);
      not_in_snapshot_.push_back({g, std::move(trials[chosen].second), states_[g].nodes_added});
    } else {
      AddPendingNodes();
      nodes =
          PackPodByPod(classes_, GangOrder(g, members), states_[g].t, snapshot_, Limits(g)).nodes;
    }
    for (size_t ci : members) {
      for (size_t other = 0; other < states_.size(); ++other) gang_reasons_.erase({other, ci});
    }
    plan.groups.push_back(Added(g, std::move(nodes)));
  }

  // What group g would do for the gang, or why it cannot hold it whole.
  std::optional<GroupPacking> GangTrial(size_t g, const std::vector<size_t>& members,
                                        const GangRef& gang, int64_t needed, std::string* why_not) {
    const GroupRound& s = states_[g];
    for (size_t ci : members) {
      if (auto it = s.not_admitted.find(ci); it != s.not_admitted.end()) {
        *why_not = it->second;
        return std::nullopt;
      }
    }
    if (!gang.required_label.empty() && !s.t.props->labels.contains(gang.required_label)) {
      *why_not = absl::StrCat("its nodes must share label ", gang.required_label,
                              " and the group's nodes have none");
      return std::nullopt;
    }
    GroupPacking trial;
    if (AllIsolated(members)) {
      trial = PackByPattern(classes_, GangOrder(g, members), s.t, snapshot_.catalog(), Limits(g));
    } else {
      std::vector<PodClass> scratch = classes_;
      AddPendingNodes();
      snapshot_.Fork();
      trial = PackPodByPod(scratch, GangOrder(g, members), s.t, snapshot_, Limits(g)).packing;
      snapshot_.Revert();
    }
    if (trial.pod_count < needed) {
      std::string detail;
      for (const auto& [ci, reason] : trial.reasons) detail = reason;
      *why_not = absl::StrCat("one node group holds only ", trial.pod_count, " of them",
                              detail.empty() ? "" : absl::StrCat(" (", detail, ")"));
      return std::nullopt;
    }
    return trial;
  }

  std::vector<size_t> GangOrder(size_t g, const std::vector<size_t>& members) const {
    std::vector<size_t> left;
    for (size_t ci : members) {
      if (classes_[ci].remaining() > 0) left.push_back(ci);
    }
    return PackingOrder(classes_, left, states_[g].t, snapshot_.catalog());
  }

  bool AllIsolated(const std::vector<size_t>& members) const {
    return std::all_of(members.begin(), members.end(),
                       [&](size_t ci) { return classes_[ci].isolated; });
  }

  int64_t RunningMembers(const std::string& name) const {
    return GangMembersOnNodes(snapshot_, name);
  }

  void SetGangReason(const std::vector<size_t>& members, const std::string& reason) {
    for (size_t g = 0; g < states_.size(); ++g) {
      for (size_t ci : members) gang_reasons_[{g, ci}] = reason;
    }
  }

  ScaleUpOption ToOption(size_t g, const GroupPacking& packing) const {
    ScaleUpOption option;
    option.group = states_[g].t.group;
    option.new_nodes = packing.new_nodes;
    option.pod_count = packing.pod_count;
    option.pods_requests = ToResourceList(snapshot_.catalog(), packing.requested);
    option.nodes_allocatable = ToResourceList(snapshot_.catalog(), packing.offered);
    return option;
  }

  // Pod-by-pod packing looks at the pods around; the nodes of groups scaled up by pattern
  // join the snapshot only then, so that plans without such pods never build them.
  void AddPendingNodes() {
    for (const PendingNodes& p : not_in_snapshot_) {
      AddPatternNodes(p.packing, classes_, states_[p.group].t, p.first_node, snapshot_);
    }
    not_in_snapshot_.clear();
  }

  // Drops the what-ifs that the last scale-up changed: those of groups admitting a class
  // that lost pods, and every pod-by-pod one (it saw the snapshot, which has new nodes).
  void Invalidate(const std::vector<size_t>& next_before) {
    for (GroupRound& s : states_) {
      if (s.used || !s.trial.has_value()) continue;
      bool changed = !s.trial_by_pattern;
      for (size_t ci : s.admitted) {
        if (changed) break;
        changed = classes_[ci].next != next_before[ci];
      }
      if (changed) s.trial.reset();
    }
  }

  ClusterSnapshot& snapshot_;
  std::vector<PodClass>& classes_;
  const EstimateOptions& options_;
  std::vector<GroupRound> states_;
  std::vector<PendingNodes> not_in_snapshot_;
  std::map<std::pair<size_t, size_t>, std::string> gang_reasons_;  // (group, class) -> why
  int nodes_left_ = 0;
  std::vector<ResourceBudget> budgets_ = options_.budgets;  // what is left of each limit
};

}  // namespace

int ScaleUpPlan::total_new_nodes() const {
  int n = 0;
  for (const GroupPlan& g : groups) n += g.new_nodes();
  return n;
}

ScaleUpPlan Estimate(const std::vector<PodSpec>& pending, const std::vector<NodeGroupSpec>& groups,
                     ClusterSnapshot& snapshot, Expander& expander,
                     const EstimateOptions& options) {
  std::vector<const PodSpec*> pods;
  pods.reserve(pending.size());
  for (const PodSpec& p : pending) pods.push_back(&p);
  StaticAdmissions admissions;
  return Estimate(pods, groups, {snapshot, admissions}, expander, options);
}

ScaleUpPlan Estimate(const std::vector<const PodSpec*>& pending,
                     const std::vector<NodeGroupSpec>& groups, ExistingNodes existing,
                     Expander& expander, const EstimateOptions& options) {
  ClusterSnapshot& snapshot = existing.snapshot;
  ScaleUpPlan plan;
  snapshot.Fork();
  std::vector<PodClass> classes = BuildClasses(pending, snapshot);
  Estimator estimator(groups, snapshot, classes, options);
  PlaceOnExisting(classes, estimator.AdmittingGroups(), existing, options, plan);
  estimator.Run(expander, plan);

  for (size_t i = 0; i < pending.size(); ++i) {
    if (pending[i]->invalid.ok()) continue;
    auto reasons = std::make_shared<GroupReasons>();
    for (const NodeGroupSpec& g : groups) {
      (*reasons)[g.id] = std::string(pending[i]->invalid.message());
    }
    plan.unschedulable.push_back({static_cast<int>(i), std::move(reasons)});
  }
  for (size_t ci = 0; ci < classes.size(); ++ci) {
    const PodClass& c = classes[ci];
    if (c.remaining() == 0) continue;
    auto reasons = std::make_shared<GroupReasons>();
    for (size_t g = 0; g < groups.size(); ++g) (*reasons)[groups[g].id] = estimator.Reason(g, ci);
    for (size_t m = c.next; m < c.members.size(); ++m) {
      plan.unschedulable.push_back({c.members[m], reasons});
    }
  }
  std::sort(plan.unschedulable.begin(), plan.unschedulable.end(),
            [](const UnschedulablePod& a, const UnschedulablePod& b) { return a.pod < b.pod; });
  snapshot.Revert();
  return plan;
}

}  // namespace gpua
