// Which nodes changed at each version of the simulated cluster's nodes, so the scheduler's
// list of nodes can follow the few that changed instead of being made again. The last
// kKept changes are remembered.
#ifndef GPUA_AUTOSCALER_SIM_NODE_CHANGE_LOG_H_
#define GPUA_AUTOSCALER_SIM_NODE_CHANGE_LOG_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace gpua::sim {

class NodeChangeLog {
 public:
  static constexpr size_t kKept = 4096;

  // A new version(), made by a change to the node.
  void Note(const std::string& node);
  // Goes up whenever a node comes, goes, or changes what it may admit.
  int64_t version() const { return version_; }
  // Adds to `names` the nodes that changed after `version`; false when those changes are no
  // longer all remembered.
  bool ChangedSince(int64_t version, std::vector<std::string>* names) const;

 private:
  int64_t version_ = 0;
  // changes_[k] is the node whose change made version first_kept_ + k.
  std::deque<std::string> changes_;
  int64_t first_kept_ = 1;
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_NODE_CHANGE_LOG_H_
