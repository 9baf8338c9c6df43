// Which unschedulable pods may ask for nodes now. The scheduler marks a pod
// PodScheduled=False/Unschedulable; of those, a pod that is terminating, finished, nominated
// to a node (a preemption is making room for it, or a node scaled up for it registered),
// expendable (priority below
// --expendable-pods-priority-cutoff), or younger than its scale-up delay does not. The delay
// is --new-pod-scale-up-delay, or the pod's own pod-scale-up-delay annotation; GPU pods get
// no extra delay (cluster-autoscaler waits 30 s for them, hard-coded).
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_PENDING_PODS_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_PENDING_PODS_H_

#include <vector>

#include "absl/time/time.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/model/controller_options.h"

namespace gpua {

struct PendingPods {
  std::vector<PodPtr> eligible;  // may trigger a scale-up now
  std::vector<PodPtr> invalid;   // could not be read: reported, never planned for
  int too_young = 0;
  int expendable = 0;
  int nominated = 0;
  // Those nominated to a node: the scale-up planner places the ones it nominated itself.
  std::vector<PodPtr> nominated_pods;
  // When the youngest waiting pod comes of age: the loop should run then.
  absl::Time next_eligible = absl::InfiniteFuture();
};

PendingPods SelectPendingPods(const ClusterView& view, const ScaleUpOptions& options,
                              absl::Time now);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_PENDING_PODS_H_
