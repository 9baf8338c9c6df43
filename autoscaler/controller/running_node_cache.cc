#include "autoscaler/controller/running_node_cache.h"

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

RunningNodeCache::Entry& RunningNodeCache::ForNode(const NodePtr& node) {
  Entry& e = entries_[node->node.name];
  e.used = true;
  if (e.node != node) {
    e.node = node;
    e.pods.clear();
    e.room.reset();
    e.utilization.reset();
    e.usage.reset();
  }
  return e;
}

RunningNodeCache::Entry& RunningNodeCache::Current(const NodePtr& node, const ClusterView& view) {
  const std::vector<PodPtr>& pods = view.PodsOn(node->node.name);
  Entry& e = ForNode(node);
  // A new node object leaves no room kept, whatever its pods.
  if (e.room.has_value() || e.utilization.has_value()) {
    if (e.pods.size() == pods.size() && std::equal(pods.begin(), pods.end(), e.pods.begin())) {
      return e;
    }
  }
  e.pods = pods;
  e.room.reset();
  e.utilization.reset();
  return e;
}

NodeUsage RunningNodeCache::UsageOf(const NodePtr& node, const std::string& gpu_label) {
  Entry& e = ForNode(node);
  if (!e.usage.has_value() || e.usage->first != gpu_label) {
    e.usage.emplace(gpu_label, gpua::UsageOf(*node, gpu_label));
  }
  return e.usage->second;
}

std::shared_ptr<const NodeRoom> RunningNodeCache::RoomOf(const NodePtr& node,
                                                         const ClusterView& view) {
  Entry& e = Current(node, view);
  if (!e.room.has_value()) {
    e.room = MakeNodeRoom(node->node.allocatable, PodsTakingRoom(view, node->node.name));
  }
  return *e.room;
}

void RunningNodeCache::ForgetUnused() {
  absl::erase_if(entries_, [](const auto& entry) { return !entry.second.used; });
  for (auto& [name, e] : entries_) e.used = false;
}

}  // namespace gpua
