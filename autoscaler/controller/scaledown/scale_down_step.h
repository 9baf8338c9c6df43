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

#include "autoscaler/controller/cluster_state.h"
#include "autoscaler/controller/cluster_view.h"
#include "autoscaler/controller/controller_options.h"
#include "autoscaler/controller/group_resizer.h"
#include "autoscaler/controller/kube_writer.h"
#include "autoscaler/controller/mig_book_store.h"
#include "autoscaler/controller/mig_layout_book.h"
#include "autoscaler/controller/planning/running_node_cache.h"
#include "autoscaler/controller/scaledown/idle_cause.h"
#include "autoscaler/controller/scaledown/pending_replacement.h"
#include "autoscaler/controller/scaledown/scale_down_actuator.h"
#include "autoscaler/controller/scaledown/scale_down_planner.h"
#include "autoscaler/controller/status_annotation_store.h"
#include "base/log.h"

namespace gpua {

struct ScaleDownResult {
  ScaleDownStatus status;                  // unneeded nodes by group, for the status
  std::string cooldown;                    // why no removal could start, if so
  std::map<std::string, int> unremovable;  // reason -> nodes
  int unneeded = 0;
  std::vector<std::pair<std::string, bool>> node_verdicts;  // name, unneeded
  absl::Time next_due = absl::InfiniteFuture();  // when an unneeded node's time passes
  // The GPU use of the nodes judged, by state node (-1 where not worked out), so the idle-GPU
  // count need not work it out again.
  std::vector<double> gpu_use;
  // Why each node judged stays, or goes later (kOther where not judged), by state node.
  std::vector<IdleCause> idle_cause;
};

class ScaleDownStep {
 public:
  // `mig_store` keeps a replacement's MIG layout in the cluster before it is asked for.
  ScaleDownStep(KubeWriter& writer, MigBookStore& mig_store, LogSink& log,
                const ControllerOptions& options)
      : writer_(writer),
        mig_store_(mig_store),
        options_(options),
        log_(log),
        replacement_store_(writer, options.status, log,
                           {kReplacementAnnotation, "the replacement under way",
                            "Replacement under way", "a replacement under way is not carried on",
                            "a restart before it is written judges its new node idle"}),
        planner_(options.scale_down, options.limits),
        actuator_(writer, log, options.scale_down, options.status) {}

  // Moves every removal under way on, and starts the drains of the state's preempted nodes.
  void ContinueRemovals(const ClusterView& view, const ClusterState& state, GroupResizer& groups,
                        absl::Time now, ScaleDownReport& report);
  // Judges, marks and starts what is due. `pods_for_existing_nodes`: pending pods that nodes
  // there are or coming hold; `nodes_added`: nodes this loop's scale-up asked for;
  // `placeholders`: warm capacity whose room stays. A replacement's MIG layout goes into
  // `mig_layouts`.
  ScaleDownResult Run(const ClusterView& view, const ClusterState& state, GroupResizer& groups,
                      int pods_for_existing_nodes, int nodes_added,
                      const std::vector<PodPtr>& placeholders, MigLayoutBook& mig_layouts,
                      RunningNodeCache& nodes, absl::Time now, ScaleDownReport& report);

 private:
  // Forgets the replacement under way once the nodes it was for are gone or being removed, or
  // its time is up.
  void EndReplacement(const ClusterState& state, absl::Time now);
  // Asks for one new node to replace some of the plan's replaceable nodes, when one pays back.
  void StartReplacement(const ClusterView& view, const ClusterState& state,
                        const ScaleDownPlan& plan, GroupResizer& groups, MigLayoutBook& mig_layouts,
                        RunningNodeCache& nodes, absl::Time now, ScaleDownReport& report);

  KubeWriter& writer_;
  MigBookStore& mig_store_;
  const ControllerOptions& options_;
  LogSink& log_;
  StatusAnnotationStore<KeptReplacement> replacement_store_;
  ScaleDownPlanner planner_;
  ScaleDownMemory kept_;  // what the planner keeps from loop to loop
  ScaleDownActuator actuator_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_SCALE_DOWN_STEP_H_
