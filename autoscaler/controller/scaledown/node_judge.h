// One node's judging for scale-down, its steps in the order they run: what no judging of its
// pods changes (the scale-down-disabled annotation, a replacement's node, unreadable pods);
// its use against its threshold, a busy GPU node tried for consolidation; the pods that move
// under the drain rules and their disruption budgets; whether it may go at all (what its pods
// would lose against --consolidation-payback, what its group and the cluster may lose, the
// loop's drain simulations); and last the removal simulation, which moves its pods onto the
// nodes that stay. The planner (scale_down_planner.h) judges the nodes one after another on
// one shared Judging, in its order.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_NODE_JUDGE_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_NODE_JUDGE_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/planning/drain_facts.h"
#include "autoscaler/controller/planning/planning_input.h"
#include "autoscaler/controller/planning/running_node_cache.h"
#include "autoscaler/controller/scaledown/pending_replacement.h"
#include "autoscaler/controller/scaledown/removal_budget.h"
#include "autoscaler/controller/scaledown/scale_down_memory.h"
#include "estimator/cluster_snapshot.h"
#include "estimator/node_utilization.h"
#include "estimator/removal_simulator.h"

namespace gpua {

struct NodeJudgement {
  int node = -1;  // index into ClusterState::nodes
  bool unneeded = false;
  absl::Time unneeded_since = absl::InfiniteFuture();
  // Why it is not unneeded (cluster-autoscaler's unremovable reasons: NotUnderutilized,
  // ScaleDownDisabledAnnotation, NoPlaceToMovePods, NotEnoughPdb, ...), a name that lives as
  // long as the program, and in words.
  absl::string_view reason;
  std::string Detail() const;
  // The words for any reason but NotUnderutilized, whose words Detail() makes from the
  // utilization and `threshold` when asked: every busy node is judged every loop.
  std::string detail;
  double threshold = 0;
  NodeUtilization utilization;
  bool utilization_known = false;  // worked out (not for unready nodes, nor ones cut short)
  std::vector<PodPtr> to_evict;    // the pods that move
  bool removed_now = false;        // its removal starts this loop
  // Its pods would move, but this loop's drain simulations were spent on other nodes
  // (--scale-down-non-empty-candidates-count): judged again in a later loop, its mark kept.
  bool deferred = false;
  // At or over its threshold, it goes because its pods fit on the nodes that stay and lose
  // less than --consolidation-payback (scaledown/disruption.h).
  bool consolidated = false;
  // A busy GPU node that was tried for consolidation and stays: why (Detail() adds it).
  std::string consolidation;
  // The node-time its moving pods would lose (scaledown/disruption.h); zero when not worked out.
  absl::Duration lost;
  // A ready GPU node whose pods would all move (no gang among them) but fit on no node that
  // stays: one new node might replace it (replacement_planner.h).
  bool replaceable = false;
  // For a replaceable node: what its pods would lose when drained after a replacement came.
  absl::Duration lost_when_replaced;
};

// Where the nodes pods may move to stand: each state node's place among them (-1 when not
// there), and each one's price per hour of a unit it offers, 0 for a node moving pods there
// costs nothing more.
struct TargetPlaces {
  std::vector<int> index;
  std::vector<double> prices;
};

// What judging the nodes one after another shares: the simulation of where pods go, what
// the disruption budgets still allow, and what removals the plan may still take.
struct Judging {
  const ClusterView& view;
  const ClusterState& state;
  const DrainRules rules;
  std::vector<int> snapshot_index;  // each state node's place in `snapshot`, -1 when not there
  ClusterSnapshot& snapshot;
  RemovalSimulator simulator;
  std::vector<int> budgets;
  int drains_left = -1;  // drain simulations this loop may still run; -1: no bound
  // Busy GPU nodes this loop may still try to consolidate; -1: no bound. Apart from the
  // drains, so that busy nodes never take the turns of nodes under their threshold.
  int consolidations_left = -1;
  absl::Duration payback;  // --consolidation-payback; zero: no consolidation
  RunningNodeCache& cache;
  RemovalBudget removals;
  bool cooldown = false;  // no removal starts this loop
  absl::Time now;
  // Placeholders of warm capacity the simulator holds room for.
  absl::flat_hash_map<const PodSpec*, const PodObject*> placeholders;
  const PendingReplacement* replacement = nullptr;  // under way, if any

  // The target nodes are in `kept.snapshot`, placed as `places` says.
  Judging(const PlanningInput& in, const DrainRules& r, TargetPlaces places, ScaleDownMemory& kept,
          RemovalBudget budget);
};

// Judges state node `node` on `judging`, which it updates: the simulated moves, the budgets
// and the removals a node that goes takes.
NodeJudgement JudgeNode(int node, Judging& judging);

// How long a node must stay unneeded before it goes: its group's unneeded or unready time.
absl::Duration UnneededWait(const NodeStatus& s, const ClusterState& state);

// How long after a replacement is asked for a node it replaces drains: its unneeded time,
// which counts from the ask, or the new node's boot when that is longer.
absl::Duration ReplacedDrainDelay(const NodeStatus& s, const ClusterState& state);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_NODE_JUDGE_H_
