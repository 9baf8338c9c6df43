// What one controller loop saw and did: what the metrics record, the health check reads and
// tests look at.
#ifndef GPUA_AUTOSCALER_CONTROLLER_REPORT_LOOP_REPORT_H_
#define GPUA_AUTOSCALER_CONTROLLER_REPORT_LOOP_REPORT_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "autoscaler/controller/increase/scale_up_actuator.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/pending_pods.h"
#include "autoscaler/controller/model/preemptions.h"
#include "autoscaler/controller/model/provider_snapshot.h"
#include "autoscaler/controller/repair/node_repair.h"
#include "autoscaler/controller/repair/stale_instances.h"
#include "autoscaler/controller/scaledown/idle_cause.h"
#include "autoscaler/controller/scaledown/scale_down_actuator.h"
#include "autoscaler/controller/scaledown/scale_down_planner.h"
#include "autoscaler/controller/status/status_report.h"

namespace gpua {

struct LoopReport {
  absl::Time start;
  absl::Time end;
  // Why it did nothing: the view was not synced, the provider could not list its groups.
  // Empty when it ran.
  std::string skipped;
  // The provider's answers and the state built on them; the state points into the snapshot.
  std::unique_ptr<ProviderSnapshot> provider;
  ClusterState state;
  int unschedulable = 0;     // pods the scheduler could not place
  int pending_gpu_pods = 0;  // of those eligible, the ones asking for GPUs
  int eligible = 0;          // may trigger a scale-up now
  int fit_existing = 0;      // left to the scheduler: existing or upcoming nodes hold them
  int buffer_pods = 0;       // placeholders of warm capacity (CapacityBuffers) planned
  int without_scale_up = 0;  // no group can help them
  std::vector<ScaleUpOutcome> scale_ups;
  StaleInstanceReport stale;
  RepairPlan repair_plan;  // broken nodes, and what is done about them
  RepairReport repairs;
  ScaleDownStatus scale_down;              // unneeded nodes by group, for the status
  std::string scale_down_cooldown;         // why no removal could start this loop, if so
  std::map<std::string, int> unremovable;  // reason -> nodes
  int unneeded = 0;
  // The nodes scale-down judged this loop, each with whether it was found unneeded.
  std::vector<std::pair<std::string, bool>> node_verdicts;
  ScaleDownReport removals;  // what removals started, went on, ended
  // Physical GPUs billed and not used, by group, in all and by what keeps them: the cost
  // scale-down is there to cut.
  std::map<std::string, IdleGpuCount> idle_gpus;
  // function (cluster-autoscaler's names: main, updateClusterState, scaleUp, ...) -> time
  std::map<std::string, absl::Duration> durations;
  // When a pod now too young to trigger a scale-up comes of age, or a CapacityBuffer's
  // schedule changes its count.
  absl::Time next_pod_eligible = absl::InfiniteFuture();
  // When an unneeded node's unneeded time passes.
  absl::Time next_removal_due = absl::InfiniteFuture();
  // When a broken node's toleration runs out.
  absl::Time next_repair_due = absl::InfiniteFuture();

  int nodes_added() const;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_REPORT_LOOP_REPORT_H_
