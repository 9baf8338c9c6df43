// A running node's room as every snapshot starts from it: its allocatable, what its pods
// leave free, their host ports, and the pods themselves. A node's pods change far less often
// than the controller loops, so the caller works this out once per node object and set of
// pods and shares it with each loop's snapshots instead of summing the pods again.
#ifndef GPUA_ESTIMATOR_NODE_ROOM_H_
#define GPUA_ESTIMATOR_NODE_ROOM_H_

#include <memory>
#include <vector>

#include "estimator/pod.h"
#include "estimator/resource_list.h"
#include "estimator/resource_vector.h"

namespace gpua {

struct NodeRoom {
  // In the slots every catalog shares (ResourceCatalog::kFixedSlots), so any snapshot can
  // take them as they are.
  ResourceVector allocatable;
  ResourceVector free;
  std::vector<HostPort> ports;
  std::vector<const PodSpec*> pods;
  bool any_anti_affinity = false;                     // some pod has anti-affinity terms
  std::vector<std::shared_ptr<const PodSpec>> owned;  // keeps `pods` alive
};

// Null when an amount of the allocatable or of a pod's requests has no fixed slot (an
// extended resource, MIG profiles): a snapshot must then place the node in its own catalog.
std::shared_ptr<const NodeRoom> MakeNodeRoom(const ResourceList& allocatable,
                                             std::vector<std::shared_ptr<const PodSpec>> pods);

// A pod's requests in the fixed slots, counting the pod itself in the "pods" slot; nullopt
// when one of them has no fixed slot.
std::optional<ResourceVector> FixedPodRequest(const PodSpec& pod);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_NODE_ROOM_H_
