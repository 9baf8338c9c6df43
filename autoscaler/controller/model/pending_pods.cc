#include "autoscaler/controller/model/pending_pods.h"

#include <algorithm>

namespace gpua {

PendingPods SelectPendingPods(const ClusterView& view, const ScaleUpOptions& options,
                              absl::Time now) {
  PendingPods out;
  for (const PodPtr& p : view.unschedulable) {
    if (p->terminating || p->finished()) continue;
    if (!p->spec.invalid.ok()) {
      out.invalid.push_back(p);
      continue;
    }
    if (!p->nominated_node.empty()) {
      ++out.nominated;
      out.nominated_pods.push_back(p);
      continue;
    }
    if (p->spec.priority < options.expendable_pods_priority_cutoff) {
      ++out.expendable;
      continue;
    }
    const absl::Duration delay = p->scale_up_delay.value_or(options.new_pod_scale_up_delay);
    // A pod whose age cannot be read is not held back: waiting on a guess helps nobody.
    if (p->created != absl::InfinitePast() && now < p->created + delay) {
      ++out.too_young;
      out.next_eligible = std::min(out.next_eligible, p->created + delay);
      continue;
    }
    out.eligible.push_back(p);
  }
  return out;
}

}  // namespace gpua
