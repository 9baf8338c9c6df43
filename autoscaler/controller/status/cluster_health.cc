#include "autoscaler/controller/status/cluster_health.h"

#include "absl/strings/str_cat.h"
#include "autoscaler/controller/model/events.h"

namespace gpua {

void ClusterHealthReporter::Report(const ClusterState& state) {
  if (state.healthy == was_healthy_) return;
  was_healthy_ = state.healthy;
  if (state.healthy) {
    log_.Info("The cluster is healthy again; scaling resumes");
    return;
  }
  log_.Warning(absl::StrCat("The cluster is unhealthy, no scaling until it recovers: ",
                            state.unhealthy_reason));
  (void)writer_.RecordEvent(StatusEvent(
      options_.namespace_name, options_.configmap_name, "Warning", event_reason::kClusterUnhealthy,
      absl::StrCat("Cluster is unhealthy: ", state.unhealthy_reason)));
}

}  // namespace gpua
