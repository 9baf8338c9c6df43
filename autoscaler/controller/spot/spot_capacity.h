// Whether a node (or a group's template) runs on spot capacity, which its cloud may reclaim at
// short notice, read off the labels the clouds and their node provisioners put on such nodes.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SPOT_SPOT_CAPACITY_H_
#define GPUA_AUTOSCALER_CONTROLLER_SPOT_SPOT_CAPACITY_H_

#include "estimator/labels.h"

namespace gpua {

// EKS managed node groups (eks.amazonaws.com/capacityType=SPOT), Karpenter
// (karpenter.sh/capacity-type=spot), GKE (cloud.google.com/gke-spot or gke-preemptible=true),
// AKS (kubernetes.azure.com/scalesetpriority=spot), and kops or hand-labelled nodes
// (node.kubernetes.io/lifecycle=spot).
bool OnSpotCapacity(const Labels& labels);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SPOT_SPOT_CAPACITY_H_
