#include "autoscaler/controller/node_room_cache.h"

#include <algorithm>

namespace gpua {

std::vector<std::shared_ptr<const PodSpec>> PodsTakingRoom(const ClusterView& view,
                                                           const std::string& node) {
  std::vector<std::shared_ptr<const PodSpec>> out;
  for (const PodPtr& p : view.PodsOn(node)) {
    if (p->phase != "Succeeded" && p->phase != "Failed") out.emplace_back(p, &p->spec);
  }
  return out;
}

std::shared_ptr<const NodeRoom> NodeRoomCache::RoomOf(const NodePtr& node,
                                                      const ClusterView& view) {
  const std::string& name = node->node.name;
  const std::vector<PodPtr>& pods = view.PodsOn(name);
  Entry& e = entries_[name];
  e.used = true;
  const bool same = e.node == node && e.pods.size() == pods.size() &&
                    std::equal(pods.begin(), pods.end(), e.pods.begin());
  if (!same) {
    e.node = node;
    e.pods = pods;
    e.room = MakeNodeRoom(node->node.allocatable, PodsTakingRoom(view, name));
  }
  return e.room;
}

void NodeRoomCache::ForgetUnused() {
  absl::erase_if(entries_, [](const auto& entry) { return !entry.second.used; });
  for (auto& [name, e] : entries_) e.used = false;
}

}  // namespace gpua
