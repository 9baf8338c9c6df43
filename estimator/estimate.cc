#include "estimator/estimate.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "estimator/gpu/gpu_predicates.h"
#include "estimator/group_packer.h"
#include "estimator/placement.h"
#include "estimator/pod_class.h"
#include "estimator/predicates.h"

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

// Places what fits on existing and upcoming nodes, first fit in node order.
void PlaceOnExisting(std::vector<PodClass>& classes, ClusterSnapshot& snapshot, ScaleUpPlan& plan) {
  const size_t existing = snapshot.size();
  int64_t checks = 0;
  for (PodClass& c : classes) {
    for (size_t n = 0; n < existing && c.remaining() > 0; ++n) {
      std::optional<std::string> ignored;
      const int64_t placed = PlaceOnNode(c, snapshot, n, true, &checks, &ignored);
      for (int64_t i = 0; i < placed; ++i) {
        plan.on_existing.push_back({c.members[c.next++], snapshot.node(n).name});
      }
    }
  }
}

// One node group through the rounds of an estimate.
struct GroupState {
  PreparedTemplate t;
  std::vector<size_t> admitted;  // classes its nodes admit (labels, taints)
  absl::flat_hash_map<size_t, std::string> not_admitted;  // class -> why not
  // The latest what-if while still valid; for a used group, what it was scaled up by.
  std::optional<GroupPacking> trial;
  bool trial_by_pattern = false;
  int trial_limit = 0;
  bool used = false;
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
    while (true) {
      std::vector<ScaleUpOption> options;
      std::vector<size_t> option_group;
      for (size_t g = 0; g < states_.size(); ++g) {
        if (states_[g].used) continue;
        options.push_back(Option(g));
        option_group.push_back(g);
      }
      const int chosen = ChooseOption(expander, options);
      if (chosen < 0) return;
      plan.groups.push_back(ScaleUp(option_group[chosen]));
    }
  }

  // Why a pod of class `ci` that stayed pending is not in group `g`.
  std::string Reason(size_t g, size_t ci) const {
    const GroupState& s = states_[g];
    if (auto it = s.not_admitted.find(ci); it != s.not_admitted.end()) return it->second;
    if (s.trial.has_value()) {
      if (auto it = s.trial->reasons.find(ci); it != s.trial->reasons.end()) return it->second;
    }
    return s.used ? "node group was already scaled up for other pods in this plan"
                  : "no node of the group was added";
  }

 private:
  GroupState Admit(const NodeGroupSpec& g) {
    GroupState s;
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
    limits.max_new_nodes = std::max(0, std::min(group.max_size - group.target_size, nodes_left_));
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
      if (classes_[ci].remaining() == 0) continue;
      candidates.push_back(ci);
      *by_pattern = *by_pattern && classes_[ci].isolated;
    }
    return PackingOrder(classes_, candidates, states_[g].t, snapshot_.catalog());
  }

  ScaleUpOption Option(size_t g) {
    GroupState& s = states_[g];
    const PackLimits limits = Limits(g);
    if (!s.trial.has_value() || s.trial_limit != limits.max_new_nodes) {
      bool by_pattern = false;
      const std::vector<size_t> order = Order(g, &by_pattern);
      if (by_pattern) {
        s.trial = PackByPattern(classes_, order, s.t, snapshot_.catalog(), limits);
      } else {
        std::vector<PodClass> scratch = classes_;
        std::vector<PlannedNode> nodes;
        AddPendingNodes();
        snapshot_.Fork();
        s.trial = PackPodByPod(scratch, order, s.t, snapshot_, limits, &nodes);
        snapshot_.Revert();
      }
      s.trial_by_pattern = by_pattern;
      s.trial_limit = limits.max_new_nodes;
    }
    ScaleUpOption option;
    option.group = s.t.group;
    option.new_nodes = s.trial->new_nodes;
    option.pod_count = s.trial->pod_count;
    option.pods_requests = ToResourceList(snapshot_.catalog(), s.trial->requested);
    option.nodes_allocatable = ToResourceList(snapshot_.catalog(), s.trial->offered);
    return option;
  }

  GroupPlan ScaleUp(size_t g) {
    GroupState& s = states_[g];
    std::vector<size_t> before(classes_.size());
    for (size_t ci = 0; ci < classes_.size(); ++ci) before[ci] = classes_[ci].next;
    std::vector<PlannedNode> nodes;
    if (s.trial_by_pattern) {
      TakePatternMembers(*s.trial, classes_, s.t, &nodes);
      not_in_snapshot_.push_back(g);
    } else {  // packing pod by pod again gives the same nodes, now for real
      bool by_pattern = false;
      const std::vector<size_t> order = Order(g, &by_pattern);
      AddPendingNodes();
      s.trial = PackPodByPod(classes_, order, s.t, snapshot_, Limits(g), &nodes);
    }
    s.used = true;
    nodes_left_ -= static_cast<int>(nodes.size());
    Invalidate(before);
    GroupPlan plan;
    plan.group_id = s.t.group->id;
    for (PlannedNode& node : nodes) {
      plan.pods.insert(plan.pods.end(), node.pods.begin(), node.pods.end());
      plan.nodes.push_back(std::move(node));
    }
    return plan;
  }

  // Pod-by-pod packing looks at the pods around; the nodes of groups scaled up by pattern
  // join the snapshot only then, so that plans without such pods never build them.
  void AddPendingNodes() {
    for (size_t g : not_in_snapshot_) {
      AddPatternNodes(*states_[g].trial, classes_, states_[g].t, snapshot_);
    }
    not_in_snapshot_.clear();
  }

  // Drops the what-ifs that the last scale-up changed: those of groups admitting a class
  // that lost pods, and every pod-by-pod one (it saw the snapshot, which has new nodes).
  void Invalidate(const std::vector<size_t>& next_before) {
    for (GroupState& s : states_) {
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
  std::vector<GroupState> states_;
  std::vector<size_t> not_in_snapshot_;  // groups scaled up by pattern, nodes not added yet
  int nodes_left_ = 0;
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
  ScaleUpPlan plan;
  snapshot.Fork();
  std::vector<PodClass> classes = BuildClasses(pending, snapshot);
  PlaceOnExisting(classes, snapshot, plan);
  Estimator estimator(groups, snapshot, classes, options);
  estimator.Run(expander, plan);

  for (size_t i = 0; i < pending.size(); ++i) {
    if (pending[i].invalid.ok()) continue;
    auto reasons = std::make_shared<GroupReasons>();
    for (const NodeGroupSpec& g : groups) {
      (*reasons)[g.id] = std::string(pending[i].invalid.message());
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
