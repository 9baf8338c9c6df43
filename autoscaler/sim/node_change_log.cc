#include "autoscaler/sim/node_change_log.h"

namespace gpua::sim {

void NodeChangeLog::Note(const std::string& node) {
  ++version_;
  changes_.push_back(node);
  if (changes_.size() > kKept) {
    changes_.pop_front();
    ++first_kept_;
  }
}

bool NodeChangeLog::ChangedSince(int64_t version, std::vector<std::string>* names) const {
  if (version + 1 < first_kept_) return false;
  for (auto it = changes_.begin() + (version + 1 - first_kept_); it != changes_.end(); ++it) {
    names->push_back(*it);
  }
  return true;
}

}  // namespace gpua::sim
