// Scale-down, one loop of it: moves the removals under way on (and starts the drains of
// nodes found preempted) before anything plans, then judges every node, marks the unneeded
// ones and starts the removals that are due; where nodes stay only for want of room, asks for
// one new node to replace them (replacement_planner.h), one replacement at a time, and ends
// it when they are gone. When scaling last happened (the cooldowns' clock) is kept here, and
// after a restart read off the newest node. What a restart loses: a replacement under way,
// whose new node is then judged like any other (it goes after its unneeded time, and the
// nodes it was for stay).
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_SCALE_DOWN_STEP_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_SCALE_DOWN_STEP_H_

#include <map>
#include <string>
#include <vector>

#include "autoscaler/controller/increase/scale_up_actuator.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/group_resizer.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "autoscaler/controller/model/status_annotation_store.h"
#include "autoscaler/controller/planning/planning_input.h"
#include "autoscaler/controller/scaledown/idle_cause.h"
#include "autoscaler/controller/scaledown/pending_replacement.h"
#include "autoscaler/controller/scaledown/scale_down_actuator.h"
#include "autoscaler/controller/scaledown/scale_down_planner.h"
#include "base/log.h"

namespace gpua {

struct ScaleDownResult {
  ScaleDownStatus status;                  // unneeded nodes by group, for the status
  std::string cooldown;                    // why no removal could start, if so
  std::map<std::string, int> unremovable;  // reason -> nodes
  int unneeded = 0;
  std::vector<std::pair<std::string, bool>> node_verdicts;  // name, unneeded
  absl::Time next_due = absl::InfiniteFuture();             // when an unneeded node's time passes
  // The GPU use of the nodes judged, by state node (-1 where not worked out), so the idle-GPU
  // count need not work it out again.
  std::vector<double> gpu_use;
  // Why each node judged stays, or goes later (kOther where not judged), by state node.
  std::vector<IdleCause> idle_cause;
};

class ScaleDownStep {
 public:
  ScaleDownStep(KubeWriter& writer, LogSink& log, const ControllerOptions& options)
      : options_(options),
        log_(log),
        replacement_store_(writer, options.status, log,
                           {kReplacementAnnotation, "the replacement under way",
                            "Replacement under way", "a replacement under way is not carried on",
                            "a restart before it is written judges its new node idle"}),
        planner_(options.scale_down, options.limits),
        actuator_(writer, log, options.scale_down, options.status),
        increases_(writer, log, options.status) {}

  // Moves every removal under way on, and starts the drains of the state's preempted nodes.
  void ContinueRemovals(const PlanningInput& in, ScaleDownReport& report);
  // Begins the removal of each state node in `nodes` as the repair of a broken node.
  void StartRepairs(const std::vector<int>& nodes, const PlanningInput& in,
                    ScaleDownReport& report);
  // Judges, marks and starts what is due. A replacement's MIG layout goes to `in.kept.mig`
  // ahead of the ask.
  ScaleDownResult Run(const PlanningInput& in, const AfterScaleUp& loop, ScaleDownReport& report);

  // What it keeps between loops: the replacement under way, when the next may start.
  const ScaleDownMemory& kept() const { return kept_; }

 private:
  // Forgets the replacement under way once the nodes it was for are gone or being removed, or
  // its time is up.
  void EndReplacement(const ClusterState& state, absl::Time now);
  // Asks for one new node to replace some of the plan's replaceable nodes, when one pays back.
  void StartReplacement(const PlanningInput& in, const ScaleDownPlan& plan,
                        ScaleDownReport& report);

  const ControllerOptions& options_;
  LogSink& log_;
  StatusAnnotationStore<KeptReplacement> replacement_store_;
  ScaleDownPlanner planner_;
  ScaleDownMemory kept_;  // what the planner keeps from loop to loop
  ScaleDownActuator actuator_;
  ScaleUpActuator increases_;  // a replacement's node, asked for as every increase is
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_SCALE_DOWN_STEP_H_
