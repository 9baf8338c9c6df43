// Scale-up, the acting half: asks each chosen group for its nodes through NodeGroup, and
// says so (one log line, cluster-autoscaler's events on the pods and the status ConfigMap).
// A group that refuses or fails is backed off; the caller plans its pods again without it
// in the same loop, so a stockout moves to the next option at once.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEUP_SCALE_UP_ACTUATOR_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEUP_SCALE_UP_ACTUATOR_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/group_resizer.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "autoscaler/controller/model/node_group_backoff.h"
#include "autoscaler/controller/scaleup/scale_up_planner.h"
#include "base/log.h"

namespace gpua {

struct ScaleUpOutcome {
  ScaleUpRequest request;
  int from = 0;  // the group's target before, counting what this loop asked earlier
  int max = 0;
  absl::Status status;
  // Every pod it was for had been nominated to a node still on its way: asked for twice.
  bool repeat = false;
};

class ScaleUpActuator {
 public:
  ScaleUpActuator(KubeWriter& writer, NodeGroupBackoff& backoff, LogSink& log,
                  const StatusOptions& status)
      : writer_(writer), backoff_(backoff), log_(log), status_(status) {}

  // Each request through `groups`; `added`: what this loop asked of each group before.
  std::vector<ScaleUpOutcome> Execute(const std::vector<ScaleUpRequest>& requests,
                                      const ClusterState& state, GroupResizer& groups,
                                      const std::map<std::string, int>& added, absl::Time now);

 private:
  void Report(const ScaleUpOutcome& outcome);

  KubeWriter& writer_;
  NodeGroupBackoff& backoff_;
  LogSink& log_;
  const StatusOptions& status_;
};

// "ml/train-0 (8 nvidia.com/gpu), ml/train-1 (...)", at most a few pods named.
std::string DescribePods(const std::vector<PodPtr>& pods);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEUP_SCALE_UP_ACTUATOR_H_
