#include "autoscaler/controller/model/node_group_backoff.h"

#include <algorithm>

namespace gpua {

absl::Duration NodeGroupBackoff::Fail(const std::string& group, std::string error_code,
                                      std::string message, absl::Time now) {
  auto [it, fresh] = entries_.try_emplace(group);
  Entry& e = it->second;
  if (fresh || now - e.last_failure > options_.reset) {
    e.duration = options_.initial;
  } else if (now < e.info.until) {
    // Failures reported while still backed off belong to the same attempt.
  } else {
    e.duration = std::min(e.duration * 2, options_.max);
  }
  e.duration = std::min(e.duration, options_.max);
  e.last_failure = now;
  e.info = {std::move(error_code), std::move(message), now + e.duration};
  return e.duration;
}

std::optional<BackoffInfo> NodeGroupBackoff::Get(const std::string& group, absl::Time now) const {
  auto it = entries_.find(group);
  if (it == entries_.end() || now >= it->second.info.until) return std::nullopt;
  return it->second.info;
}

void NodeGroupBackoff::Succeeded(const std::string& group) { entries_.erase(group); }

}  // namespace gpua
