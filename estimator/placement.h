// Placing a class's pods on one node of the snapshot, checking each pod against the pods
// already there when the class needs it.
#ifndef GPUA_ESTIMATOR_PLACEMENT_H_
#define GPUA_ESTIMATOR_PLACEMENT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "estimator/cluster_snapshot.h"
#include "estimator/pod_class.h"

namespace gpua {

// Places as many of the class's remaining pods as node `index` takes and returns how many
// (the caller takes the members); the node's labels, taints and cordon are the caller's to
// have checked. Counts the checks made in *checks; when a pod stays out, its reason goes to
// *why_not.
int64_t PlaceOnNode(const PodClass& c, ClusterSnapshot& snapshot, size_t index, int64_t* checks,
                    std::optional<std::string>* why_not);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_PLACEMENT_H_
