// The cluster as the controller judges it at the start of a loop: every node with its
// group and state, and per group the counts cluster-autoscaler's status reports (ready,
// unready, not started, being deleted, unregistered, long unregistered), the nodes still to
// come (the target minus what registered: capacity already asked for, never asked twice),
// and what is wrong (instances that failed, instances that never became nodes).
//
// A GPU node counts as not started, with its template's GPUs, while its device plugin has
// not advertised them (any GPU resource the one GPU rule knows: whole GPUs, shares, MIG
// devices, AMD partitions), up to --max-node-startup-time; a MIG node, until its MIG
// devices are advertised; any node, while it carries a startup taint (--startup-taint,
// cluster-autoscaler's prefixes, readiness.k8s.io/) or a readiness condition
// (--readiness-condition, nvidia.com/GPUReady) is not True. Only after that is it unready. Nodes of
// no group never make the cluster unhealthy for being GPU nodes without GPUs.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_CLUSTER_STATE_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_CLUSTER_STATE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/node_group_backoff.h"
#include "autoscaler/controller/model/provider_snapshot.h"

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
  // Not started because it carries a startup taint or a readiness condition is not True.
  bool readiness_pending = false;
  std::string mig_layout;    // its nvidia.com/mig.config, or the one given it this loop
  absl::Time registered_at;  // its creationTimestamp (or when first seen)
  // Its instance as its group lists it (deleting ones too); null when the group lists none
  // by its provider ID. Points into the loop's ProviderSnapshot.
  const Instance* instance = nullptr;
};

// A node about to be lost, or lost, to its cloud (spot/preemptions.h says which signals).
struct Preemption {
  int node = -1;  // index into ClusterState::nodes
  std::string signal;
};

// A new node of a reconfigurable MIG pool and the layout it gets from the book.
struct MigAssignment {
  int node = -1;  // index into ClusterState::nodes
  std::string layout;
};

struct GroupState {
  const ProviderGroup* provider = nullptr;
  NodeCounts counts;
  int upcoming = 0;              // asked for, not registered, not failed: capacity on its way
  std::vector<int> nodes;        // indices into ClusterState::nodes
  std::vector<Instance> failed;  // creation failed (the error says why)
  std::vector<Instance> long_unregistered;  // no node within the provision time
  std::optional<BackoffInfo> backoff;
  // For a reconfigurable MIG pool: the layouts asked for with the nodes still to register
  // (at most `upcoming`), so those nodes are planned with the devices they will have.
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
  // Nodes found preempted this loop: they count as being deleted.
  std::vector<Preemption> preemptions;
  // New MIG nodes and the layouts the book gives them (mig/): written as labels this loop.
  std::vector<MigAssignment> mig_assignments;
  bool healthy = true;
  std::string unhealthy_reason;  // set when not healthy

  const GroupState* FindGroup(absl::string_view id) const;
};

// A node of a group whose removal begins this loop (preempted, repaired): it counts as being
// deleted from here on, in its group's counts and the totals.
void CountAsBeingDeleted(int node, ClusterState& state);

// Builds the state each loop, whole: nothing patches it afterwards. Groups whose instances
// failed or never registered are backed off here, before anything plans, so each group's
// back-off in the state is the one this loop acts on. Preempted nodes count as being
// deleted. New nodes of reconfigurable MIG pools get their layouts afterwards (mig/).
//
// It remembers only when it first saw each instance without a node (for the provision
// timeout); a restart starts those clocks again, which delays a verdict and never causes one.
class ClusterStateBuilder {
 public:
  // `dra`: a node of a pool whose template has ResourceSlices is started once its drivers
  // have published them (--enable-dynamic-resource-allocation; off, slices are not read).
  explicit ClusterStateBuilder(const ClusterStateOptions& options, bool dra = true)
      : options_(options), dra_(dra) {}

  ClusterState Build(const ClusterView& view, const ProviderSnapshot& provider,
                     NodeGroupBackoff& backoff, absl::Time now);

 private:
  void BackOffStaleGroups(ClusterState& state, NodeGroupBackoff& backoff, absl::Time now) const;
  void ClassifyNode(NodeStatus& status, const ProviderGroup* group, const NodeDeviceState* devices,
                    absl::Time now) const;
  // Also finds each node of group `g` its instance. Of state node i, `instance_listed[i]`:
  // whether some group lists its instance; `listing[i]`: its group's first listing of it, -1
  // when its group lists none.
  void CountInstances(size_t g, ClusterState& state, const std::vector<bool>& instance_listed,
                      const std::vector<int>& listing, absl::Time now);
  void JudgeHealth(ClusterState& state) const;

  const ClusterStateOptions options_;
  const bool dra_;
  absl::flat_hash_map<std::string, absl::Time> unregistered_since_;
};

// The error code cluster-autoscaler reports for an instance that failed: the provider's, else
// its class ("OutOfResource", "OtherError").
std::string InstanceErrorCode(const InstanceError& error);

// Whether a Ready node still says it is starting: a startup taint (IsReadinessTaint with
// options.startup_taints), or one of options.readiness_conditions present and not True.
bool StillStarting(const NodeObject& node, const ClusterStateOptions& options);

// Whether a node's allocatable shows the GPUs its group's template promises: every GPU
// resource of the template's inventory (for a MIG pool, of the layout its
// nvidia.com/mig.config label names, else any of the pool's layouts) at its full count.
bool GpusAdvertised(const NodeObject& node, const GpuInventory& template_gpus);

// Whether a node's DRA drivers have published the devices its group's template promises
// (template.resource_slices): for each driver, complete pools with at least as many devices,
// and no pool of that driver still being published.
bool DevicesPublished(const NodeDeviceState* node, const NodeTemplate& t);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_CLUSTER_STATE_H_
