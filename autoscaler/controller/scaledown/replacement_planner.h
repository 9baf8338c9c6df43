// Consolidation by replacement, where removing nodes one at a time stops: GPU nodes whose
// pods fit nowhere that stays may still go together when ONE new node of some group holds all
// their pods for less an hour than they cost (Karpenter's replace, with our payback rule).
// Only the new node is asked for here. The nodes it replaces go through the ordinary
// scale-down once it is ready and their pods have somewhere to go, so every guard of a
// removal (PDBs, the drain rules, the unneeded time, the removal budget) guards them too. A
// MIG node's layout changes only when it is empty, so a new node in a better layout is also
// how MIG nodes fragmented by theirs are packed again.
//
// The search: candidates in order of what moving their pods costs (lost node-time times
// price, least first); the first one, two, ... up to `max_nodes` of them, each set against
// every group cheaper than the set. All the set's pods go onto the new node, none onto nodes
// that stay (those were tried and held none of them), which keeps it one packing per group
// and set. Pods are never moved from capacity that stays onto spot capacity its cloud may
// reclaim: they were put there by a user who chose to, or because spot was out (on the bundled
// week, where both hold, such moves cost more than they saved). The largest saving wins, the
// fewest nodes on a tie. A replacement pays back when
// its saving per hour over the payback window exceeds what it costs: the price of the
// node-time the moving pods lose, and the new node's price while the old ones still run.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_REPLACEMENT_PLANNER_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_REPLACEMENT_PLANNER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "estimator/estimate.h"
#include "estimator/node.h"
#include "estimator/pod.h"

namespace gpua {

// A node whose pods would all move, but fit on no node that stays.
struct ReplaceableNode {
  int node = -1;  // index into ClusterState::nodes
  std::string name;
  double price_per_hour = 0;
  std::vector<const PodSpec*> pods;  // the pods that move
  // The node-time they lose (disruption.h) when drained after the new node came: a Job's
  // pod loses the time it will have run by then.
  absl::Duration lost;
  // How long after the ask it drains: meanwhile it and the new node both run.
  absl::Duration drain_after;
  bool spot = false;  // on spot capacity (spot/spot_capacity.h)
};

struct ReplacementSearch {
  absl::Duration payback;   // --consolidation-payback
  int max_nodes = 3;        // replaced by one new node at most
  EstimateOptions packing;  // the cluster's limits on new nodes (budgets)
};

struct NodeReplacement {
  std::string group;       // of the new node
  std::string mig_layout;  // the layout the new node needs, for a reconfigurable MIG pool
  double price_per_hour = 0;
  std::vector<ReplaceableNode> replaced;
  double saving_per_hour = 0;
  absl::Duration lost;  // by the pods that move, in all
  std::string Describe() const;
};

// The best replacement of some of `candidates` by one new node of one of `groups` (those that
// may grow now), if any pays back.
std::optional<NodeReplacement> PlanReplacement(std::vector<ReplaceableNode> candidates,
                                               const std::vector<NodeGroupSpec>& groups,
                                               const ReplacementSearch& search);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_REPLACEMENT_PLANNER_H_
