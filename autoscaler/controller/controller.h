// The controller: one loop of level-triggered reconciliation, as docs/ARCHITECTURE.md reads it.
// RunOnce(now) takes one view of the cluster, reads the provider once, builds the cluster's
// state, fixes what is stale (instances that failed or never registered, MIG layouts owed to
// new nodes), repairs broken nodes, moves removals under way on, scales up, scales down, and says
// what it did (status ConfigMap, events, metrics, log). Each step is its own class, built with what
// it uses; it acts only through NodeGroup and KubeWriter, and the intent a restart must not lose is
// written to the cluster: the binary runs it against a real cluster, `simulate` against a simulated
// one.
#ifndef GPUA_AUTOSCALER_CONTROLLER_CONTROLLER_H_
#define GPUA_AUTOSCALER_CONTROLLER_CONTROLLER_H_

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "autoscaler/controller/metrics/autoscaler_metrics.h"
#include "autoscaler/controller/model/cluster_devices.h"
#include "autoscaler/controller/model/cluster_source.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "autoscaler/controller/model/provider_snapshot.h"
#include "autoscaler/controller/planning/buffer_pods.h"
#include "autoscaler/controller/planning/planning_input.h"
#include "autoscaler/controller/repair/node_health.h"
#include "autoscaler/controller/repair/node_repair.h"
#include "autoscaler/controller/repair/stale_instances.h"
#include "autoscaler/controller/report/loop_report.h"
#include "autoscaler/controller/scaledown/scale_down_step.h"
#include "autoscaler/controller/scaleup/scale_up_step.h"
#include "autoscaler/controller/status/cluster_health.h"
#include "autoscaler/controller/status/status_report.h"
#include "base/clock.h"
#include "base/log.h"
#include "cloudproviders/cloud_provider.h"

namespace gpua {

// The ConfigMaps of options.status.namespace_name the controller reads, for the source to
// watch: the priority expander's, and its own status (where its intent is kept, whether or
// not it writes the status there).
std::vector<std::string> ConfigMapsRead(const ControllerOptions& options);

// What the controller reads, acts through and reports to: the binary wires a real cluster and
// provider, `simulate` simulated ones, tests the shared fakes.
struct ControllerSeams {
  ClusterSource& source;
  CloudProvider& provider;
  KubeWriter& writer;
  Clock& clock;
  LogSink& log;
  AutoscalerMetrics* metrics = nullptr;  // null: no metrics (tests that do not read them)
};

class Controller {
 public:
  Controller(const ControllerSeams& seams, ControllerOptions options);

  LoopReport RunOnce(absl::Time now);

  const ControllerOptions& options() const { return options_; }

 private:
  // Reads the provider and builds the state; says so when the provider failed.
  void Observe(const ClusterView& view, LoopReport& report, absl::Time now);
  // Every step after the state, when the provider answered.
  void Act(const ClusterView& view, LoopReport& report, absl::Time now);
  // The placeholders of warm capacity now; a buffer that holds none says why on itself.
  BufferPods WarmCapacity(const ClusterView& view, absl::Time now);
  // Runs `step` and notes how long it took under cluster-autoscaler's function name.
  template <typename Step>
  void Timed(LoopReport& report, const char* function, Step step);

  ClusterSource& source_;
  KubeWriter& writer_;
  Clock& clock_;
  LogSink& log_;
  AutoscalerMetrics* metrics_;
  const ControllerOptions options_;

  ClusterDevices devices_;  // DRA: pods' claims and nodes' devices, resolved on each view
  LoopMemory kept_;         // what the steps keep across loops and share
  ProviderReader provider_reader_;
  ClusterStateBuilder state_builder_;
  StaleInstanceCleaner stale_cleaner_;
  NodeHealthJudge health_judge_;
  NodeRepairer repairer_;
  ClusterHealthReporter health_;
  CapacityBufferPods buffers_;
  PodEventMemory buffer_events_;  // by buffer: one Warning per problem, now and then
  ScaleUpStep scale_up_;
  ScaleDownStep scale_down_;
  StatusReporter status_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_CONTROLLER_H_
