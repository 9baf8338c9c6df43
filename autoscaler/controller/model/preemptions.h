// Nodes about to be lost, or already lost, to their cloud: spot capacity reclaimed, a
// scheduled preemption. Such a node is drained at once with the grace its notice allows,
// taken out of the capacity scale-up counts on (so its pods' new home is asked for before it
// is gone), and removed. The signals, in one table:
//
//   signal                                              where it comes from
//   its instance is listed as deleting, not by us        any provider
//   its instance is no longer listed by its group,       any provider: the instance is gone
//   and the node is not ready
//   taint aws-node-termination-handler/spot-itn          AWS Node Termination Handler
//   taint aws-node-termination-handler/rebalance-recommendation is not one: only advice
//   taint cloud.google.com/impending-node-termination    GKE
//   taint remediator.kubernetes.azure.com/unschedulable  AKS node auto-drain (Preempt event)
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_PREEMPTIONS_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_PREEMPTIONS_H_

#include <string>
#include <vector>

#include "autoscaler/controller/model/cluster_state.h"

namespace gpua {

// The nodes of groups that carry a signal and that we are not removing already.
std::vector<Preemption> DetectPreemptions(const ClusterState& state);

// Takes them out of the state's capacity for this loop: they count as being deleted.
void MarkPreempted(const std::vector<Preemption>& preemptions, ClusterState& state);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_PREEMPTIONS_H_
