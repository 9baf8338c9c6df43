#include "autoscaler/controller/scaledown/disruption.h"

#include <algorithm>

#include "estimator/node_utilization.h"

namespace gpua {
namespace {

// Pods that start again from nothing when moved: what they ran so far is lost.
bool RunsToCompletion(const PodSpec& pod) {
  return !pod.owner.has_value() || pod.owner->kind == "Job" || pod.gang.has_value();
}

}  // namespace

absl::Duration WorkLost(const PodObject& pod, absl::Time now) {
  if (!RunsToCompletion(pod.spec)) return kServiceRestart;
  const absl::Duration ran = pod.started == absl::InfinitePast()
                                 ? absl::ZeroDuration()
                                 : std::max(absl::ZeroDuration(), now - pod.started);
  const int members = pod.spec.gang.has_value() ? std::max(1, pod.spec.gang->min_member) : 1;
  return ran * members;
}

absl::Duration DisruptionNodeTime(const std::vector<PodPtr>& moving, const DrainedNode& node,
                                  absl::Time now) {
  absl::Duration lost;
  for (const PodPtr& p : moving) {
    const NodeUtilization u =
        ComputeUtilization(*node.allocatable, node.gpus, node.layout, {{&p->spec}}, false);
    const double share = std::min(1.0, std::max({u.gpu, u.cpu, u.memory}));
    lost += WorkLost(*p, now) * share;
  }
  return lost;
}

}  // namespace gpua
