#include "autoscaler/controller/model/events.h"

namespace gpua {

EventRecord PodEvent(const PodSpec& pod, std::string type, std::string reason,
                     std::string message) {
  return {{"Pod", pod.namespace_name, pod.name, pod.uid},
          std::move(type),
          std::move(reason),
          std::move(message)};
}

EventRecord NodeEvent(const std::string& node, std::string type, std::string reason,
                      std::string message) {
  return {{"Node", "", node, ""}, std::move(type), std::move(reason), std::move(message)};
}

EventRecord StatusEvent(const std::string& namespace_name, const std::string& configmap,
                        std::string type, std::string reason, std::string message) {
  return {{"ConfigMap", namespace_name, configmap, ""},
          std::move(type),
          std::move(reason),
          std::move(message)};
}

bool PodEventMemory::ShouldSay(const std::string& pod_uid, const std::string& message,
                               absl::Time now) {
  auto [it, fresh] = said_.try_emplace(pod_uid, Said{message, now});
  if (fresh) return true;
  if (it->second.message == message && now - it->second.at < repeat_) return false;
  it->second = {message, now};
  return true;
}

void PodEventMemory::Keep(const absl::flat_hash_set<std::string>& pending) {
  absl::erase_if(said_, [&](const auto& entry) { return !pending.contains(entry.first); });
}

}  // namespace gpua
