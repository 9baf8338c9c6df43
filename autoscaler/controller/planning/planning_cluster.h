// The cluster as the estimator should see it for a scale-up: the nodes that can take pods
// (ready ones as they are; nodes still starting with their template's GPUs, labels and
// taints under their own and without their start-up taints, so pods waiting for them are
// not planned for twice; the nodes each group has been asked for and not registered yet, as
// copies of its template), and the groups that may grow now. A group left out has its
// reason, for the pods it cannot help.
#ifndef GPUA_AUTOSCALER_CONTROLLER_PLANNING_PLANNING_CLUSTER_H_
#define GPUA_AUTOSCALER_CONTROLLER_PLANNING_PLANNING_CLUSTER_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/planning/running_node_cache.h"
#include "estimator/node.h"

namespace gpua {

// What a planning node stands for: a registered node (an index into ClusterState::nodes), or
// the `upcoming`-th node its group is bringing up that has not registered yet.
struct PlanningNodeRef {
  int group = -1;  // index into ClusterState::groups; -1: a node of no group
  int state_node = -1;
  int upcoming = -1;
  bool starting = false;  // registered, not started (GPUs not advertised yet)
  bool on_its_way() const { return upcoming >= 0 || starting; }
};

struct PlanningCluster {
  std::vector<Node> nodes;
  std::vector<PlanningNodeRef> refs;  // by planning node
  std::vector<int> node_of_state;     // by state node: its planning node, -1 when none
  // By group: the planning nodes of what it is bringing up, slot by slot.
  std::vector<std::vector<int>> upcoming_nodes;
  std::vector<NodeGroupSpec> groups;
  std::map<std::string, std::string> left_out;  // group id -> why it may not grow now
};

// What earlier rounds of this loop's scale-up did, which the provider's sizes do not show yet.
struct EarlierRounds {
  std::map<std::string, int> added;  // nodes asked for, by group
  std::set<std::string> excluded;    // groups that failed
};

// `ignored_taints`: keys to drop besides the start-up taints (--startup-taint and kin).
PlanningCluster BuildPlanningCluster(const ClusterView& view, const ClusterState& state,
                                     const EarlierRounds& earlier,
                                     const std::vector<std::string>& ignored_taints,
                                     RunningNodeCache& rooms);

// The groups that may grow now, as BuildPlanningCluster gives them, without building nodes.
std::vector<NodeGroupSpec> GrowableGroups(const ClusterView& view, const ClusterState& state,
                                          const std::vector<std::string>& ignored_taints);

// A registered node as the estimator sees it: start-up taints dropped, the pods bound to it
// that take room (not finished) on it, its room from `rooms`. Scale-down simulates on these too.
// The group of a node that belongs to none.
inline const std::string kNoGroup;

Node ExistingNode(const NodePtr& n, const ClusterView& view, const std::string& group,
                  const std::vector<std::string>& ignored_taints, RunningNodeCache& rooms);

// A group's template as new nodes will be: start-up taints dropped, DaemonSet pods on it.
NodeTemplate PlanningTemplate(const NodeTemplate& tmpl,
                              const std::vector<const PodSpec*>& daemonset_pods,
                              const std::vector<std::string>& ignored_taints);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_PLANNING_PLANNING_CLUSTER_H_
