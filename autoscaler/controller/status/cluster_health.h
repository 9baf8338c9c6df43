// Says when the cluster becomes unhealthy (too many unready nodes: no scaling until it
// recovers) with cluster-autoscaler's ClusterUnhealthy event on the status ConfigMap, and
// when it recovers; once per change, not every loop.
#ifndef GPUA_AUTOSCALER_CONTROLLER_STATUS_CLUSTER_HEALTH_H_
#define GPUA_AUTOSCALER_CONTROLLER_STATUS_CLUSTER_HEALTH_H_

#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "base/log.h"

namespace gpua {

class ClusterHealthReporter {
 public:
  ClusterHealthReporter(KubeWriter& writer, const StatusOptions& options, LogSink& log)
      : writer_(writer), options_(options), log_(log) {}

  void Report(const ClusterState& state);

 private:
  KubeWriter& writer_;
  const StatusOptions& options_;
  LogSink& log_;
  bool was_healthy_ = true;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_STATUS_CLUSTER_HEALTH_H_
