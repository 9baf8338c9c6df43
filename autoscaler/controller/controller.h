// The controller: one loop of level-triggered reconciliation. RunOnce(now) takes one view of
// the cluster, reads the provider once, judges the cluster's state, fixes what is stale
// (instances that failed or never registered), plans and asks for nodes for the pods that
// need them, and says what it did (status ConfigMap, events, metrics, log). It acts only
// through NodeGroup and KubeWriter and keeps no intent in memory that a restart would lose:
// the binary runs it against a real cluster, `simulate` against a simulated one.
#ifndef GPUA_AUTOSCALER_CONTROLLER_CONTROLLER_H_
#define GPUA_AUTOSCALER_CONTROLLER_CONTROLLER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "autoscaler/controller/cluster_source.h"
#include "autoscaler/controller/cluster_state.h"
#include "autoscaler/controller/controller_options.h"
#include "autoscaler/controller/events.h"
#include "autoscaler/controller/kube_writer.h"
#include "autoscaler/controller/loop_report.h"
#include "autoscaler/controller/metrics/autoscaler_metrics.h"
#include "autoscaler/controller/mig_layouts.h"
#include "autoscaler/controller/node_group_backoff.h"
#include "autoscaler/controller/pending_pods.h"
#include "autoscaler/controller/provider_snapshot.h"
#include "autoscaler/controller/planning/running_node_cache.h"
#include "autoscaler/controller/scaledown/scale_down_actuator.h"
#include "autoscaler/controller/scaledown/scale_down_planner.h"
#include "autoscaler/controller/scaleup/nominations.h"
#include "autoscaler/controller/scaleup/scale_up_actuator.h"
#include "autoscaler/controller/scaleup/scale_up_planner.h"
#include "autoscaler/controller/stale_instances.h"
#include "autoscaler/controller/status/status_report.h"
#include "base/clock.h"
#include "base/log.h"
#include "cloudproviders/cloud_provider.h"

namespace gpua {

class Controller {
 public:
  // `metrics` may be null (tests that do not read them).
  Controller(ClusterSource& source, CloudProvider& provider, KubeWriter& writer, Clock& clock,
             LogSink& log, AutoscalerMetrics* metrics, ControllerOptions options);

  LoopReport RunOnce(absl::Time now);

  const ControllerOptions& options() const { return options_; }

 private:
  void RunScaleUp(const ClusterView& view, const std::vector<PodPtr>& pending, LoopReport& report,
                  absl::Time now);
  // Keeps the nominations the scale-up decided: pods on nodes on their way, pods missed.
  void Nominate(const ScaleUpDecision& decision, const ClusterState& state, absl::Time now);
  // The pods that may trigger a scale-up, and those nominated to a node by this controller
  // (placed on it first, planned again if it no longer holds them).
  std::vector<PodPtr> WithOwnNominated(const PendingPods& pending) const;
  // Each nominated pod's registered node in its nominatedNodeName where that is unset; cleared
  // where a nomination ended and the field still names its node.
  void WriteNominations(const ClusterView& view, const ClusterState& state, absl::Time now);
  // Returns the GPU use of the nodes it judged (by node index; -1 where not judged).
  std::vector<double> RunScaleDown(const ClusterView& view, LoopReport& report, absl::Time now);
  // The pods of preempted nodes that must find a new home, added to the pending ones.
  std::vector<PodPtr> WithPreemptedPods(const ClusterView& view, const LoopReport& report,
                                        std::vector<PodPtr> pending) const;
  // `known_gpu_use`: what scale-down found, so a node's use is worked out once a loop.
  void CountIdleGpus(const ClusterView& view, const std::vector<double>& known_gpu_use,
                     LoopReport& report);
  void SayWithoutScaleUp(const std::vector<PodWithoutScaleUp>& pods, absl::Time now);
  void ReportInvalidPods(const std::vector<PodPtr>& pods, absl::Time now);
  void ReportHealth(const ClusterState& state);
  std::unique_ptr<Expander> MakeExpander(const ClusterView& view);
  // Runs `step` and notes how long it took under cluster-autoscaler's function name.
  template <typename Step>
  void Timed(LoopReport& report, const char* function, Step step);

  ClusterSource& source_;
  KubeWriter& writer_;
  Clock& clock_;
  LogSink& log_;
  AutoscalerMetrics* metrics_;
  const ControllerOptions options_;

  NodeGroupBackoff backoff_;
  ProviderReader provider_reader_;
  ClusterStateBuilder state_builder_;
  StaleInstanceCleaner stale_cleaner_;
  MigLayoutAssigner mig_layouts_;
  RunningNodeCache node_cache_;  // what the planners read off running nodes, kept across loops
  Nominations nominations_;      // pods promised nodes on their way, kept across loops
  ScaleUpPlanner scale_up_planner_;
  ScaleUpActuator scale_up_actuator_;
  StatusReporter status_;
  ScaleDownPlanner scale_down_planner_;
  ScaleDownActuator scale_down_actuator_;
  ScaleDownClock scale_down_clock_;
  PodEventMemory pod_events_;
  PodEventMemory nomination_warnings_;  // failed nominatedNodeName writes, said now and then
  bool was_healthy_ = true;
  std::string priority_config_seen_;  // the priorities text last read, to report errors once
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_CONTROLLER_H_
