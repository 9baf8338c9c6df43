#include "autoscaler/controller/scaleup/scale_up_planner.h"

#include "autoscaler/controller/planning/planning_cluster.h"
#include "autoscaler/controller/planning/resource_limits.h"

namespace gpua {
namespace {

// By pending pod: the planning node it is nominated to, -1 for none.
std::vector<int> NominatedNodes(const std::vector<PodPtr>& pending, const Nominations& nominations,
                                const PlanningCluster& cluster) {
  std::vector<int> out;
  if (nominations.size() == 0) return out;
  out.assign(pending.size(), -1);
  for (size_t i = 0; i < pending.size(); ++i) {
    const NodeSlot* slot = nominations.SlotOf(pending[i]->spec.uid);
    if (slot == nullptr) continue;
    if (slot->state_node >= 0) {
      out[i] = cluster.node_of_state[slot->state_node];
    } else if (slot->upcoming < static_cast<int>(cluster.upcoming_nodes[slot->group].size())) {
      out[i] = cluster.upcoming_nodes[slot->group][slot->upcoming];
    }
  }
  return out;
}

}  // namespace

ScaleUpDecision ScaleUpPlanner::Plan(const PlanningInput& in, const ScaleUpRound& round,
                                     ScaleUpMemory& kept) const {
  const std::vector<PodPtr>& pending = round.pending;
  const ClusterState& state = in.state;
  RunningNodeCache& nodes = in.kept.nodes;
  ScaleUpDecision decision;
  if (pending.empty()) return decision;
  PlanningCluster cluster =
      BuildPlanningCluster(in.view, state, round.earlier, options_.ignored_taints, nodes);
  std::vector<const PodSpec*> pods;  // the informers' own: what is kept on them lasts
  pods.reserve(pending.size());
  for (const PodPtr& p : pending) pods.push_back(&p->spec);

  EstimateOptions options;
  options.max_new_nodes = options_.max_nodes_per_scaleup;
  options.budgets = LimitBudgets(limits_, state, round.earlier.added, nodes);
  options.nominated = NominatedNodes(pending, round.nominations, cluster);
  const std::vector<PlanningNodeRef> refs = std::move(cluster.refs);
  kept.snapshot.Reset(std::move(cluster.nodes));
  const ScaleUpPlan plan =
      Estimate(pods, cluster.groups, {kept.snapshot, kept.admissions}, round.expander, options);

  for (const ExistingPlacement& e : plan.on_existing) {
    decision.fit_existing.push_back(pending[e.pod]);
    const PlanningNodeRef& ref = refs[e.node_index];
    const bool nominated_here =
        !options.nominated.empty() && options.nominated[e.pod] == e.node_index;
    if (ref.group >= 0 && (ref.on_its_way() || nominated_here)) {
      decision.on_their_way.push_back({pending[e.pod], {ref.group, ref.state_node, ref.upcoming}});
    }
  }
  for (const MissedNomination& m : plan.missed) decision.missed.push_back({pending[m.pod], m.why});
  for (const GroupPlan& g : plan.groups) {
    if (g.new_nodes() == 0) continue;
    ScaleUpRequest r;
    r.group = g.group_id;
    r.delta = g.new_nodes();
    for (int p : g.pods) r.pods.push_back(pending[p]);
    for (const PlannedNode& n : g.nodes) {
      if (!n.mig_layout.empty()) r.mig_layouts.push_back(n.mig_layout);
      std::vector<PodPtr>& on_node = r.node_pods.emplace_back();
      for (int p : n.pods) on_node.push_back(pending[p]);
    }
    decision.requests.push_back(std::move(r));
  }
  // The groups that could not grow at all are reasons too: every pod hears of every group.
  std::map<const GroupReasons*, std::shared_ptr<const GroupReasons>> completed;
  for (const UnschedulablePod& u : plan.unschedulable) {
    std::shared_ptr<const GroupReasons>& reasons = completed[u.reasons.get()];
    if (reasons == nullptr) {
      auto all = std::make_shared<GroupReasons>(*u.reasons);
      for (const auto& [group, why] : cluster.left_out) (*all)[group] = why;
      reasons = std::move(all);
    }
    decision.without.push_back({pending[u.pod], reasons});
  }
  return decision;
}

}  // namespace gpua
