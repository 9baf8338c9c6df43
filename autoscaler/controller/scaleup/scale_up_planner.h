// Scale-up, the deciding half: which pending pods the nodes that exist or are coming will
// hold (left to the scheduler; nominated pods on their own nodes first), how many nodes of which
// group the rest need (the estimator and the expander chain, within the groups' sizes and the
// cluster's limits), and for each pod no group can help, why not, group by group. Pure: view,
// state, nominations and what it kept in, a decision out; what it keeps from loop to loop is only
// storage and a cache (ScaleUpMemory), never something that changes a later decision.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEUP_SCALE_UP_PLANNER_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEUP_SCALE_UP_PLANNER_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "autoscaler/controller/increase/scale_up_request.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/planning/planning_cluster.h"
#include "autoscaler/controller/planning/planning_input.h"
#include "autoscaler/controller/scaleup/nominations.h"
#include "estimator/cluster_snapshot.h"
#include "estimator/estimate.h"
#include "estimator/expander.h"
#include "estimator/static_admissions.h"

namespace gpua {

// A pending pod that a node on its way (or just started) holds.
struct PodOnNode {
  PodPtr pod;
  NodeSlot slot;
};

struct MissedPod {
  PodPtr pod;
  std::string why;  // why its nominated node no longer holds it
};

struct PodWithoutScaleUp {
  PodPtr pod;
  std::shared_ptr<const GroupReasons> reasons;  // group id -> why not there
};

struct ScaleUpDecision {
  std::vector<ScaleUpRequest> requests;  // in the order the expander chose them
  std::vector<PodPtr> fit_existing;      // the nodes there are or that are coming hold them
  // Of those, the ones on nodes of a group on their way, or on the node they were nominated to.
  std::vector<PodOnNode> on_their_way;
  std::vector<MissedPod> missed;  // nominated pods their node no longer holds
  std::vector<PodWithoutScaleUp> without;
};

// What the scale-up planner keeps from one loop to the next. Neither changes a decision:
// dropping it costs time, not a different plan.
struct ScaleUpMemory {
  // The cluster the estimate runs on, so that its storage is reused.
  ClusterSnapshot snapshot{{}};
  // Which nodes' labels and taints admit which pods.
  StaticAdmissions admissions;
};

// One round of a loop's scale-up: the pods to place, the expander that chooses among the
// groups, what earlier rounds asked for, and the nodes on their way pods were promised (those
// pods are placed there first).
struct ScaleUpRound {
  const std::vector<PodPtr>& pending;
  Expander& expander;
  const EarlierRounds& earlier;
  const Nominations& nominations;
};

class ScaleUpPlanner {
 public:
  ScaleUpPlanner(const ScaleUpOptions& options, const ClusterLimits& limits)
      : options_(options), limits_(limits) {}

  // Reads the view, the state and the running nodes of `in`; `kept`: what this planner keeps.
  ScaleUpDecision Plan(const PlanningInput& in, const ScaleUpRound& round,
                       ScaleUpMemory& kept) const;

 private:
  const ScaleUpOptions& options_;
  const ClusterLimits& limits_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEUP_SCALE_UP_PLANNER_H_
