#include "autoscaler/controller/planning/running_node_cache.h"

#include <algorithm>

namespace gpua {

std::vector<std::shared_ptr<const PodSpec>> PodsTakingRoom(const ClusterView& view,
                                                           const std::string& node) {
  std::vector<std::shared_ptr<const PodSpec>> out;
  for (const PodPtr& p : view.PodsOn(node)) {
    if (!p->finished()) out.emplace_back(p, &p->spec);
  }
  return out;
}

RunningNodeCache::Entry& RunningNodeCache::ForNode(const NodePtr& node) {
  if (auto hit = by_object_.find(node.get());
      hit != by_object_.end() && hit->second->node == node) {
    hit->second->used = true;
    return *hit->second;
  }
  Entry& e = entries_[node->node.name];
  e.used = true;
  if (e.node != node) {
    if (e.node != nullptr) by_object_.erase(e.node.get());
    by_object_[node.get()] = &e;
    e.node = node;
    e.pods.clear();
    e.room.reset();
    e.utilization.reset();
    e.usage.reset();
    e.props = nullptr;
  }
  return e;
}

RunningNodeCache::Entry& RunningNodeCache::Current(const NodePtr& node, const ClusterView& view) {
  Entry& e = ForNode(node);
  const bool in_loop = loop_view_ == &view;
  // A new node object leaves no room kept, whatever its pods.
  const bool kept = e.room.has_value() || e.utilization.has_value();
  if (kept && in_loop && e.matched_in_loop == loop_) return e;
  const std::vector<PodPtr>& pods = view.PodsOn(node->node.name);
  e.matched_in_loop = in_loop ? loop_ : 0;  // matched another view: not the loop's any more
  if (kept && e.pods.size() == pods.size() &&
      std::equal(pods.begin(), pods.end(), e.pods.begin())) {
    return e;
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
  return RoomIn(Current(node, view), node, view);
}

const std::shared_ptr<const NodeRoom>& RunningNodeCache::RoomIn(Entry& e, const NodePtr& node,
                                                                const ClusterView& view) {
  if (!e.room.has_value()) {
    e.room = MakeNodeRoom(node->node.allocatable, PodsTakingRoom(view, node->node.name));
  }
  return *e.room;
}

void RunningNodeCache::BeginLoop(const ClusterView& view) {
  loop_view_ = &view;
  ++loop_;
}

void RunningNodeCache::ForgetUnused() {
  loop_view_ = nullptr;
  absl::erase_if(entries_, [&](const auto& entry) {
    if (entry.second.used) return false;
    by_object_.erase(entry.second.node.get());
    return true;
  });
  for (auto& [name, e] : entries_) e.used = false;
}

}  // namespace gpua
