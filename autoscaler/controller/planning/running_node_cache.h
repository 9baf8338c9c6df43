// What the planners read off each running node, kept from one loop to the next: its planning
// props, its room (estimator/node_room.h), how used it is, and what it counts for against the
// limits. Every loop plans on every node two or three times, but between two loops only the
// nodes whose pods came or went changed: those are worked out again, the rest are shared. An
// entry is kept by identity: the same Node object and the same pod objects on it (the caches
// hand out a new object for every change, and the entry holds the old ones, so an address is
// never reused while it is compared).
#ifndef GPUA_AUTOSCALER_CONTROLLER_PLANNING_RUNNING_NODE_CACHE_H_
#define GPUA_AUTOSCALER_CONTROLLER_PLANNING_RUNNING_NODE_CACHE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/planning/resource_limits.h"
#include "estimator/node_room.h"
#include "estimator/node_utilization.h"

namespace gpua {

// The pods bound to `node` that take room on it (not finished), sharing the pod objects.
std::vector<std::shared_ptr<const PodSpec>> PodsTakingRoom(const ClusterView& view,
                                                           const std::string& node);

// What a node's utilization depends on besides the node and its pods. `gpus` must be the
// node's own inventory (NodeObject::Gpus(), kept alive by the node) or null.
struct UtilizationKey {
  const GpuInventory* gpus = nullptr;
  std::string mig_layout;
  bool ignore_daemonsets = false;
  bool operator==(const UtilizationKey& o) const {
    return std::tie(gpus, mig_layout, ignore_daemonsets) ==
           std::tie(o.gpus, o.mig_layout, o.ignore_daemonsets);
  }
};

class RunningNodeCache {
 public:
  // The room of `node` with the pods `view` has bound to it; null when some amount has no
  // fixed resource slot (the snapshot then works it out itself).
  std::shared_ptr<const NodeRoom> RoomOf(const NodePtr& node, const ClusterView& view);

  // What the planners' scheduler checks read of `node` under its group, the ignored taint
  // keys and its DRA devices, with its room (as RoomOf): `props()` when nothing is kept for
  // this node object and key. Kept here, not on the node object: the cache is the
  // controller's alone, so a loop's two asks per node take no lock and find the node once.
  struct PropsKey {
    const std::string& group;
    const std::vector<std::string>& ignored_taints;
    const dra::NodeDevices* devices;  // the props hold them, so the address stays theirs
  };
  struct Planning {
    std::shared_ptr<const NodeProps> props;
    std::shared_ptr<const NodeRoom> room;
  };
  template <typename ComputeProps>
  Planning PlanningOf(const NodePtr& node, const ClusterView& view, const PropsKey& key,
                      ComputeProps&& props) {
    Entry& e = Current(node, view);
    if (e.props == nullptr || e.props_group != key.group || e.props_ignored != key.ignored_taints ||
        e.props->devices.get() != key.devices) {
      e.props = props();
      e.props_group = key.group;
      e.props_ignored = key.ignored_taints;
    }
    return {e.props, RoomIn(e, node, view)};
  }

  // How used `node` is with the pods `view` has bound to it: `compute()` when nothing is
  // kept for this node, its pods and `key`.
  template <typename Compute>
  NodeUtilization UtilizationOf(const NodePtr& node, const ClusterView& view,
                                const UtilizationKey& key, Compute&& compute) {
    Entry& e = Current(node, view);
    if (!e.utilization.has_value() || !(e.utilization->first == key)) {
      e.utilization.emplace(key, compute());
    }
    return e.utilization->second;
  }

  // What `node` counts for against the cluster's limits (UsageOf), kept while the node object
  // is the same.
  NodeUsage UsageOf(const NodePtr& node, const std::string& gpu_label);

  // Says that the calls up to ForgetUnused all pass `view`, unchanged: an entry found to match
  // it is then not compared with its pods again (a loop asks of each node three times).
  void BeginLoop(const ClusterView& view);
  // Forgets the nodes not asked for since the last call, so nodes gone hold no memory, and
  // ends the loop BeginLoop began.
  void ForgetUnused();

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    NodePtr node;
    std::vector<PodPtr> pods;  // as the view listed them, finished ones too
    std::optional<std::shared_ptr<const NodeRoom>> room;
    std::optional<std::pair<UtilizationKey, NodeUtilization>> utilization;
    std::optional<std::pair<std::string, NodeUsage>> usage;  // by GPU label
    std::shared_ptr<const NodeProps> props;  // by group and ignored taints; kept while `node` is
    std::string props_group;
    std::vector<std::string> props_ignored;
    bool used = false;
    int64_t matched_in_loop = 0;  // the loop in which `pods` was last found to be the view's
  };
  // The node's entry, emptied when the node object or its pods are not the ones it holds.
  Entry& Current(const NodePtr& node, const ClusterView& view);
  // The node's entry, emptied when the node object is not the one it holds.
  Entry& ForNode(const NodePtr& node);
  // The room of entry `e`, Current for `node` in `view`.
  const std::shared_ptr<const NodeRoom>& RoomIn(Entry& e, const NodePtr& node,
                                                const ClusterView& view);

  // Node-based, so `by_object_` may point into it.
  absl::node_hash_map<std::string, Entry> entries_;
  // Each entry by the address of the node object it holds (which keeps the address from being
  // reused): a loop asks of each node four or five times, and hashing and comparing its name
  // each time showed.
  absl::flat_hash_map<const NodeObject*, Entry*> by_object_;
  const ClusterView* loop_view_ = nullptr;  // between BeginLoop and ForgetUnused
  int64_t loop_ = 0;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_PLANNING_RUNNING_NODE_CACHE_H_
