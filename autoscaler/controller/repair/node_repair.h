// Node repair: a node broken past its toleration (node_health.h) is tainted (kUnhealthyTaint,
// which says the cordon is ours) and cordoned so nothing new is placed on it, and, within the
// budget, replaced; a node whose signal goes before its repair begins is uncordoned. A replacement
// is begun by writing its intent on the node (kRepairAnnotation, then kRepairReplacementAnnotation
// before the new node is asked for), so a restart repeats nothing; the node is then removed as
// scale-down removes one (ToBeDeletedByClusterAutoscaler with the reason "repair"), its pods
// evicted under their PodDisruptionBudgets for at most --repair-drain-time, then deleted through
// its group.
//
// The budget: of a group and of the cluster, at most --max-unhealthy-percent of the nodes (at
// least one) under repair at once, so a fault that strikes many nodes, or a signal that lies
// about them all, never takes a pool away at once. A group is never taken below its minimum
// without its replacement asked for; a replacement is asked for when the node's pods need a
// home or the group its size, and goes through ScaleUpActuator as every increase does.
#ifndef GPUA_AUTOSCALER_CONTROLLER_REPAIR_NODE_REPAIR_H_
#define GPUA_AUTOSCALER_CONTROLLER_REPAIR_NODE_REPAIR_H_

#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "autoscaler/controller/increase/scale_up_actuator.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "autoscaler/controller/planning/planning_input.h"
#include "autoscaler/controller/repair/node_health.h"
#include "base/log.h"

namespace gpua {

struct RepairStart {
  int node = -1;                  // index into ClusterState::nodes
  std::string reason;             // the policy's Reason()
  std::string description;        // UnhealthyNode::Describe, or the intent an earlier loop wrote
  bool resumed = false;           // an earlier loop (or process) wrote its intent
  std::string replacement_group;  // non-empty: one node of this group is asked for first
};

struct RepairWait {
  UnhealthyNode why;
  std::string reason;  // why it is not repaired yet
};

struct RepairPlan {
  std::vector<UnhealthyNode> unhealthy;  // every signal shown, due or not
  std::vector<int> cordon;               // due, and not yet tainted kUnhealthyTaint
  std::vector<int> uncordon;             // tainted, and no longer due nor under repair
  std::vector<RepairStart> start;
  std::vector<RepairWait> waiting;  // due and not started: the budget, the group's size
  int under_repair = 0;             // nodes whose repair had begun before this loop
};

// Which nodes to taint, untaint and repair now, from the signals `unhealthy` (in state order).
RepairPlan PlanRepairs(const ClusterState& state, const ClusterView& view,
                       std::vector<UnhealthyNode> unhealthy, const RepairOptions& options);

// The nodes the plan starts count as being deleted from here on, so nothing plans on them.
void MarkRepaired(const RepairPlan& plan, ClusterState& state);

struct RepairReport {
  int cordoned = 0;
  int uncordoned = 0;
  std::vector<std::string> started;       // node names, new and carried on
  std::map<std::string, int> by_reason;   // begun (not carried on), by the policy's reason
  std::map<std::string, int> by_group;    // the same, by group
  std::vector<std::string> replacements;  // groups asked for a replacement, one per node
  std::vector<std::string> errors;
};

class NodeRepairer {
 public:
  NodeRepairer(KubeWriter& writer, LogSink& log, const StatusOptions& status)
      : writer_(writer), log_(log), increases_(writer, log, status) {}

  // Taints and untaints, writes each start's intent and asks its replacement; returns the
  // state nodes whose removal (reason "repair") is to begin now.
  std::vector<int> Act(const RepairPlan& plan, const PlanningInput& in, RepairReport& report);

 private:
  void Cordon(const UnhealthyNode& u, const ClusterState& state, absl::Time now,
              RepairReport& report);
  void Uncordon(const NodeStatus& s, RepairReport& report);
  // The intent, then the replacement; false when the intent could not be written.
  bool Begin(const RepairStart& r, const PlanningInput& in, RepairReport& report);
  // Says once per node and reason that a due repair waits.
  void SayWaiting(const RepairWait& w, const ClusterState& state, absl::Time now);

  KubeWriter& writer_;
  LogSink& log_;
  ScaleUpActuator increases_;  // a replacement is asked for as every increase is
  absl::flat_hash_map<std::string, std::string> said_waiting_;  // node -> reason said
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_REPAIR_NODE_REPAIR_H_
