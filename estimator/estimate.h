// The scale-up estimate: which pending pods fit capacity that exists or is coming, and for
// the rest, how many nodes of which group would hold them. Pure and deterministic.
// Pods nominated to a node are placed there first; the others are placed on existing and
// upcoming nodes most constrained first (fewest groups that admit them, then fewest nodes),
// so that a pod that accepts any GPU does not take the one node another pod can use.
#ifndef GPUA_ESTIMATOR_ESTIMATE_H_
#define GPUA_ESTIMATOR_ESTIMATE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "estimator/cluster_snapshot.h"
#include "estimator/expander.h"
#include "estimator/gpu/gpu_predicates.h"
#include "estimator/node.h"
#include "estimator/static_admissions.h"

namespace gpua {

// A cluster-wide limit that new nodes may not pass (--cores-total, --memory-total,
// --gpu-total): how much of it is left, and what one new node of each group takes.
struct ResourceBudget {
  std::string name;  // "the cluster's cores limit": the reason pods are left out
  int64_t left = 0;
  std::map<std::string, int64_t> per_node;  // group id -> one node's share; absent: none
};

struct EstimateOptions {
  // New nodes one scale-up may ask for, over all groups (--max-nodes-per-scaleup).
  int max_new_nodes = 1000;
  // Nodes the cluster may have in all, existing ones included; 0: no limit
  // (--max-nodes-total).
  int max_nodes_total = 0;
  // Pod-to-node checks one group's simulation may make. A deterministic stand-in for
  // cluster-autoscaler's time budget (--max-nodegroup-binpacking-duration): the same input
  // always stops at the same point.
  int64_t max_checks_per_group = 20'000'000;
  // Search steps spent looking for a fuller node than first fit decreasing's, per distinct
  // node fill (node_filler.h). 0 keeps plain FFD.
  int64_t fill_search_steps = 300;
  GpuPolicy gpu_policy;
  std::vector<ResourceBudget> budgets;
  // By pending pod: the snapshot node an earlier scale-up (or placement) promised it, -1 for
  // none. Nominated pods are placed on their own nodes before any other pod, so that a pod
  // that accepts more nodes never takes the room an increase was for.
  std::vector<int> nominated;
};

struct PlannedNode {
  std::vector<int> pods;  // indices into the pending pods
  // For a pool whose MIG manager can apply several layouts: the one this node needs (the
  // value for its nvidia.com/mig.config label). Empty otherwise.
  std::string mig_layout;
};

struct GroupPlan {
  std::string group_id;
  std::vector<PlannedNode> nodes;  // one per new node
  std::vector<int> pods;           // all pods the new nodes hold
  int new_nodes() const { return static_cast<int>(nodes.size()); }
};

struct ExistingPlacement {
  int pod;
  std::string node;
  int node_index = -1;  // in the snapshot
};

// A nominated pod that its node no longer holds, and why.
struct MissedNomination {
  int pod;
  int node_index;
  std::string why;
};

// Group id -> why the pod is not planned there.
using GroupReasons = std::map<std::string, std::string>;

struct UnschedulablePod {
  int pod;
  // Shared by the pods the scheduler cannot tell apart: thousands of replicas left out for
  // the same reasons cost one map.
  std::shared_ptr<const GroupReasons> reasons;
};

struct ScaleUpPlan {
  std::vector<ExistingPlacement> on_existing;  // fit on nodes that exist or are coming
  std::vector<MissedNomination> missed;        // planned like the others since
  std::vector<GroupPlan> groups;               // in the order they were chosen
  std::vector<UnschedulablePod> unschedulable;
  int total_new_nodes() const;
};

// The nodes there are (the snapshot's), with the admission verdicts kept for them.
struct ExistingNodes {
  ClusterSnapshot& snapshot;
  StaticAdmissions& admissions;
};

// Plans for `pending`. The snapshot is used for what-ifs and left as it was found.
ScaleUpPlan Estimate(const std::vector<PodSpec>& pending, const std::vector<NodeGroupSpec>& groups,
                     ClusterSnapshot& snapshot, Expander& expander, const EstimateOptions& options);
// The same for pods held elsewhere, with node admissions the caller keeps from one estimate
// to the next (a controller plans every loop over mostly the same nodes).
ScaleUpPlan Estimate(const std::vector<const PodSpec*>& pending,
                     const std::vector<NodeGroupSpec>& groups, ExistingNodes existing,
                     Expander& expander, const EstimateOptions& options);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_ESTIMATE_H_
