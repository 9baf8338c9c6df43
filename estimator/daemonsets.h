// Which DaemonSets would run a pod on a node made from a template: their requests come off
// every new node, so a pool whose nodes run a GPU agent and an exporter has that much less
// room for pending pods, as cluster-autoscaler's template node info has.
#ifndef GPUA_ESTIMATOR_DAEMONSETS_H_
#define GPUA_ESTIMATOR_DAEMONSETS_H_

#include <vector>

#include "estimator/node.h"

namespace gpua {

// The DaemonSet pods (one per DaemonSet, as its template makes it) whose node selection
// and tolerations admit a node of `tmpl`.
std::vector<PodSpec> DaemonSetPodsFor(const NodeTemplate& tmpl,
                                      const std::vector<const PodSpec*>& daemonset_pods);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_DAEMONSETS_H_
