// The rooms of the running nodes (estimator/node_room.h), kept from one loop to the next.
// Every loop plans on every node two or three times, but between two loops only the nodes
// whose pods came or went changed: those are worked out again, the rest are shared. A room is
// kept by identity: the same Node object and the same pod objects on it (the caches hand out
// a new object for every change, and the entry holds the old ones, so an address is never
// reused while it is compared).
#ifndef GPUA_AUTOSCALER_CONTROLLER_NODE_ROOM_CACHE_H_
#define GPUA_AUTOSCALER_CONTROLLER_NODE_ROOM_CACHE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "autoscaler/controller/cluster_view.h"
#include "estimator/node_room.h"

namespace gpua {

// The pods bound to `node` that take room on it (not finished), sharing the pod objects.
std::vector<std::shared_ptr<const PodSpec>> PodsTakingRoom(const ClusterView& view,
                                                           const std::string& node);

class NodeRoomCache {
 public:
  // The room of `node` with the pods `view` has bound to it; null when some amount has no
  // fixed resource slot (the snapshot then works it out itself).
  std::shared_ptr<const NodeRoom> RoomOf(const NodePtr& node, const ClusterView& view);

  // Forgets the nodes not asked for since the last call, so nodes gone hold no memory.
  void ForgetUnused();

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    NodePtr node;
    std::vector<PodPtr> pods;  // as the view listed them, finished ones too
    std::shared_ptr<const NodeRoom> room;
    bool used = false;
  };
  absl::flat_hash_map<std::string, Entry> entries_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_NODE_ROOM_CACHE_H_
