#include "estimator/daemonsets.h"

#include "estimator/predicates.h"

namespace gpua {

std::vector<PodSpec> DaemonSetPodsFor(const NodeTemplate& tmpl,
                                      const std::vector<const PodSpec*>& daemonset_pods) {
  std::vector<PodSpec> out;
  for (const PodSpec* pod : daemonset_pods) {
    if (!pod->invalid.ok()) continue;
    // The DaemonSet controller places its pods by node selection and taints alone.
    if (!MatchesNodeSelection(*pod, tmpl.labels, tmpl.name)) continue;
    if (FirstUntoleratedTaint(tmpl.taints, pod->tolerations) != nullptr) continue;
    out.push_back(*pod);
  }
  return out;
}

}  // namespace gpua
