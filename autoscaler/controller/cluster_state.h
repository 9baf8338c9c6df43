// The cluster as the controller judges it at the start of a loop: every node with its
// group and state, and per group the counts cluster-autoscaler's status reports (ready,
// unready, not started, being deleted, unregistered, long unregistered), the nodes still to
// come (the target minus what registered: capacity already asked for, never asked twice),
// and what is wrong (instances that failed, instances that never became nodes).
//
// A GPU node counts as not started, with its template's GPUs, while its device plugin has
// not advertised them (any GPU resource the one GPU rule knows: whole GPUs, shares, MIG
// devices, AMD partitions), up to --max-node-startup-time; a MIG node, until its MIG
// devices are advertised. Only after that is it unready. Nodes of no group never make the
// cluster unhealthy for being GPU nodes without GPUs.
#ifndef GPUA_AUTOSCALER_CONTROLLER_CLUSTER_STATE_H_
#define GPUA_AUTOSCALER_CONTROLLER_CLUSTER_STATE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "autoscaler/controller/cluster_view.h"
#include "autoscaler/controller/controller_options.h"
#include "autoscaler/controller/node_group_backoff.h"
#include "autoscaler/controller/provider_snapshot.h"

namespace gpua {

// cluster-autoscaler's NODECOUNTS.
struct NodeCounts {
  int registered = 0;
  int ready = 0;
  int not_started = 0;
  int being_deleted = 0;
  int unready = 0;
  int resource_unready = 0;  // of the unready: GPUs never advertised
  int unregistered = 0;
  int long_unregistered = 0;
  void Add(const NodeCounts& other);
};

enum class NodeCondition { kReady, kUnready, kNotStarted, kBeingDeleted };

struct NodeStatus {
  NodePtr node;
  int group = -1;  // index into ClusterState::groups; -1: not autoscaled
  NodeCondition condition = NodeCondition::kReady;
  bool gpus_pending = false;  // not started because its GPUs are not advertised yet
  std::string mig_layout;     // its nvidia.com/mig.config, or the one given it this loop
  absl::Time registered_at;   // its creationTimestamp (or when first seen)
  // Its instance as its group lists it (deleting ones too); null when the group lists none
  // by its provider ID. Points into the loop's ProviderSnapshot.
  const Instance* instance = nullptr;
};

struct GroupState {
  const ProviderGroup* provider = nullptr;
  NodeCounts counts;
  int upcoming = 0;              // asked for, not registered, not failed: capacity on its way
  std::vector<int> nodes;        // indices into ClusterState::nodes
  std::vector<Instance> failed;  // creation failed (the error says why)
  std::vector<Instance> long_unregistered;  // no node within the provision time
  std::optional<BackoffInfo> backoff;
  // For a reconfigurable MIG pool: the layouts asked for with the nodes still to register,
  // so those nodes are planned with the devices they will have.
  std::vector<std::string> upcoming_mig_layouts;
  bool healthy = true;
  const std::string& id() const { return provider->id; }
};

struct ClusterState {
  absl::Time now;
  const ProviderSnapshot* provider = nullptr;
  std::vector<NodeStatus> nodes;
  std::vector<GroupState> groups;
  // Node name -> index into nodes; the names are those of the node objects `nodes` holds.
  absl::flat_hash_map<absl::string_view, int> node_index;
  NodeCounts totals;
  bool healthy = true;
  std::string unhealthy_reason;  // set when not healthy

  const GroupState* FindGroup(absl::string_view id) const;
};

// Builds the state each loop. It remembers only when it first saw each instance without a
// node (for the provision timeout); a restart starts those clocks again, which delays a
// verdict and never causes one.
class ClusterStateBuilder {
 public:
  explicit ClusterStateBuilder(const ClusterStateOptions& options) : options_(options) {}

  ClusterState Build(const ClusterView& view, const ProviderSnapshot& provider,
                     const NodeGroupBackoff& backoff, absl::Time now);

 private:
  void ClassifyNode(NodeStatus& status, const ProviderGroup* group, absl::Time now) const;
  // Also finds each node of group `g` its instance. Of state node i, `instance_listed[i]`:
  // whether some group lists its instance; `listing[i]`: its group's first listing of it, -1
  // when its group lists none.
  void CountInstances(size_t g, ClusterState& state, const std::vector<bool>& instance_listed,
                      const std::vector<int>& listing, absl::Time now);
  void JudgeHealth(ClusterState& state) const;

  const ClusterStateOptions options_;
  absl::flat_hash_map<std::string, absl::Time> unregistered_since_;
};

// Whether a node's allocatable shows the GPUs its group's template promises: every GPU
// resource of the template's inventory (for a MIG pool, of the layout its
// nvidia.com/mig.config label names, else any of the pool's layouts) at its full count.
bool GpusAdvertised(const NodeObject& node, const GpuInventory& template_gpus);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_CLUSTER_STATE_H_
