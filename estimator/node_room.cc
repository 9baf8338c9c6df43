#include "estimator/node_room.h"

namespace gpua {

std::optional<ResourceVector> FixedPodRequest(const PodSpec& pod) {
  std::optional<ResourceVector> v = FixedRequests(pod);
  if (!v.has_value()) return std::nullopt;
  if (v->size() <= ResourceCatalog::kPods) v->resize(ResourceCatalog::kPods + 1, 0);
  (*v)[ResourceCatalog::kPods] = 1;
  return v;
}

std::shared_ptr<const NodeRoom> MakeNodeRoom(const ResourceList& allocatable,
                                             std::vector<std::shared_ptr<const PodSpec>> pods) {
  std::optional<ResourceVector> fixed = ResourceCatalog::FixedVector(allocatable);
  if (!fixed.has_value()) return nullptr;
  auto room = std::make_shared<NodeRoom>();
  room->allocatable = *std::move(fixed);
  room->free = room->allocatable;
  room->pods.reserve(pods.size());
  for (const std::shared_ptr<const PodSpec>& pod : pods) {
    const std::optional<ResourceVector> request = FixedPodRequest(*pod);
    if (!request.has_value()) return nullptr;
    SubtractFrom(room->free, *request);
    room->ports.insert(room->ports.end(), pod->host_ports.begin(), pod->host_ports.end());
    room->pods.push_back(pod.get());
    room->any_anti_affinity = room->any_anti_affinity || !pod->anti_affinity.empty();
  }
  room->owned = std::move(pods);
  return room;
}

}  // namespace gpua
