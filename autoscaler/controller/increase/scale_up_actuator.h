// Every increase of a group goes through here: scale-up's for pending pods and warm capacity,
// and consolidation's replacement. It keeps the new nodes' MIG layouts in the cluster before
// the ask, asks each group through the loop's GroupResizer, gives the book the layouts of
// what was granted, and says so (a log line, cluster-autoscaler's events on the pods and the
// status ConfigMap). A group that fails a scale-up is backed off; the caller plans its pods
// again without it in the same loop, so a stockout moves to the next option at once.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEUP_SCALE_UP_ACTUATOR_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEUP_SCALE_UP_ACTUATOR_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "autoscaler/controller/increase/scale_up_request.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "autoscaler/controller/planning/planning_input.h"
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
  ScaleUpActuator(KubeWriter& writer, LogSink& log, const StatusOptions& status)
      : writer_(writer), log_(log), status_(status) {}

  // Each request through `in.groups`, failed scale-ups backed off in `in.kept.backoff`, MIG
  // layouts through `in.kept.mig`; `added`: what this loop asked of each group before.
  std::vector<ScaleUpOutcome> Execute(const std::vector<ScaleUpRequest>& requests,
                                      const PlanningInput& in,
                                      const std::map<std::string, int>& added);

 private:
  void Report(const ScaleUpOutcome& outcome);
  void ReportReplacement(const ScaleUpOutcome& outcome);

  KubeWriter& writer_;
  LogSink& log_;
  const StatusOptions& status_;
};

// "ml/train-0 (8 nvidia.com/gpu), ml/train-1 (...)", at most a few pods named.
std::string DescribePods(const std::vector<PodPtr>& pods);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEUP_SCALE_UP_ACTUATOR_H_
