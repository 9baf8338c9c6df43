// ResourceSlices and how a node's pools are put together from them. A driver publishes a
// pool in one or more slices and says how many (pool.resourceSliceCount) at which generation;
// only the newest generation counts, and a pool is usable only when all its slices at that
// generation are seen (a driver that is still publishing offers nothing yet). Since 1.35 a
// pool's shared counters and its devices may sit in different slices.
#ifndef GPUA_ESTIMATOR_DRA_RESOURCE_SLICE_H_
#define GPUA_ESTIMATOR_DRA_RESOURCE_SLICE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "estimator/dra/device.h"
#include "estimator/labels.h"

namespace gpua::dra {

struct ResourceSlice {
  std::string name;
  std::string driver;
  std::string pool;
  int64_t generation = 0;
  int64_t slice_count = 1;
  // Where its devices are: on one node, or (network-attached) on the nodes a selector picks.
  std::string node_name;
  std::optional<NodeSelector> node_selector;
  bool all_nodes = false;
  bool per_device_node_selection = false;
  std::vector<Device> devices;
  std::vector<CounterSet> counter_sets;
  std::string resource_version;
  // One node's own (spec.nodeName), not network-attached.
  bool node_local() const {
    return !node_name.empty() && !node_selector.has_value() && !all_nodes &&
           !per_device_node_selection;
  }
};

// The node-local pools of every node, from the cluster's slices. Pools not local to one node
// (node selector, all nodes, per-device selection) are counted in `unsupported_pools` and
// offer nothing: a network-attached device's use is shared between nodes, which this
// simulation does not model, and guessing it would plan nodes that cannot get it.
class NodePools {
 public:
  explicit NodePools(const std::vector<std::shared_ptr<const ResourceSlice>>& slices);

  // Null when the node has no slices at all.
  std::shared_ptr<const NodeDevices> ForNode(const std::string& node_name) const;
  int unsupported_pools() const { return unsupported_pools_; }

 private:
  absl::flat_hash_map<std::string, std::shared_ptr<const NodeDevices>> by_node_;
  int unsupported_pools_ = 0;
};

// One node's pools from its own slices (a template node's, all for the same node): the
// newest generation of each pool, complete or listed as incomplete.
NodeDevices AssemblePools(const std::vector<const ResourceSlice*>& slices);
// The same, shared; null when there are no slices.
std::shared_ptr<const NodeDevices> AssembleShared(
    const std::vector<std::shared_ptr<const ResourceSlice>>& slices);

}  // namespace gpua::dra

#endif  // GPUA_ESTIMATOR_DRA_RESOURCE_SLICE_H_
