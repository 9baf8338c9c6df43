// The cluster a simulation runs on: nodes with their free resources, ports and pods, plus
// the nodes a what-if adds. Fork() marks a point; Revert() undoes everything since it in
// time proportional to what was done, not to the cluster's size, so a planner can try a
// change per candidate cheaply.
#ifndef GPUA_ESTIMATOR_CLUSTER_SNAPSHOT_H_
#define GPUA_ESTIMATOR_CLUSTER_SNAPSHOT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "estimator/dra/allocator.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/node.h"
#include "estimator/resource_vector.h"

namespace gpua {

struct SimNode {
  std::string name;
  std::shared_ptr<const NodeProps> props;
  bool is_new = false;  // added by a simulation, from a template
  ResourceVector allocatable;
  ResourceVector free;
  std::vector<HostPort> ports;
  std::vector<const PodSpec*> pods;  // one entry per pod, owned elsewhere
  // The room it was filled from (held, so the address is not reused), and whether pods were
  // placed on it since: a Reset with the same room and props need not fill it again.
  std::shared_ptr<const NodeRoom> room;
  bool changed = false;
  // What of its DRA devices is taken; null when it has none. Its own (never shared between
  // nodes), since pods placed in the simulation take devices.
  std::shared_ptr<dra::DeviceUse> devices;

  // The node's value for a topology key; every node is its own hostname domain.
  std::optional<absl::string_view> TopologyValue(absl::string_view key) const;
};

class ClusterSnapshot {
 public:
  // Takes the nodes (and the pods on them) as they are; pods placed later are borrowed and
  // must outlive the snapshot.
  explicit ClusterSnapshot(std::vector<Node> nodes);
  ClusterSnapshot(const ClusterSnapshot&) = delete;
  ClusterSnapshot& operator=(const ClusterSnapshot&) = delete;

  // Makes this the snapshot of `nodes`, as if made anew, dropping every change and mark. A
  // planner that keeps one snapshot from loop to loop and resets it reuses its nodes' storage
  // instead of allocating and freeing all of it every loop.
  void Reset(std::vector<Node> nodes);

  ResourceCatalog& catalog() { return catalog_; }
  const ResourceCatalog& catalog() const { return catalog_; }
  const std::vector<SimNode>& nodes() const { return nodes_; }
  const SimNode& node(size_t i) const { return nodes_[i]; }
  size_t size() const { return nodes_.size(); }

  // A node's props as the snapshot works them out from its fields (which move into them),
  // for a caller that shares one props among nodes alike.
  static std::shared_ptr<const NodeProps> PropsOf(Node& n);

  // A pod's requests as a vector, counting the pod itself in the "pods" slot.
  ResourceVector PodRequest(const PodSpec& pod);

  // Adds a node made from a template (its daemonset pods already on it) and returns its index.
  size_t AddNodeFromTemplate(const std::string& name, std::shared_ptr<const NodeProps> props,
                             const ResourceVector& allocatable,
                             const std::vector<const PodSpec*>& daemonset_pods,
                             const ResourceVector& daemonset_requests);
  // Whether the pod's DRA claims can get devices on node `index`: nullopt when they can (or
  // it has none), else why not. A claim allocated already (in the cluster, or to a pod placed
  // in this simulation, for a shared claim) must be used where its devices are.
  std::optional<std::string> CheckDevices(const PodSpec& pod, size_t index) const;

  // Places `copies` of `pod`, whose PodRequest is `request`, on node `index`, with the devices
  // its claims get there (CheckDevices must have said they can).
  void AddPods(size_t index, const PodSpec* pod, const ResourceVector& request, int64_t copies = 1);

  void Fork();
  void Revert();  // undoes everything since the matching Fork
  void Commit();  // keeps it, and drops the matching mark

  // The pods with anti-affinity terms and their nodes: few or none in most clusters, so a
  // check of what placed pods reject need not look at every pod.
  struct PlacedPod {
    size_t node;
    const PodSpec* pod;
  };
  const std::vector<PlacedPod>& pods_with_anti_affinity() const { return anti_affinity_; }

 private:
  struct Change {
    enum class Kind { kAddNode, kAddPods } kind = Kind::kAddNode;
    size_t node = 0;
    int64_t copies = 0;
    size_t ports_before = 0;
    size_t anti_affinity_before = 0;
    ResourceVector request;
    std::vector<dra::DevicePick> picks;  // devices the pods took
    std::vector<std::string> claims;     // shared claims first allocated here
  };
  // What a pod's claims would take on a node.
  struct DevicePlan {
    std::vector<dra::DevicePick> picks;
    std::vector<std::string> new_claims;
  };
  absl::StatusOr<DevicePlan> PlanDevices(const PodSpec& pod, size_t index) const;
  // The node's device use from its props' devices and the allocations its claims hold.
  void FillDevices(SimNode& sim,
                   const std::shared_ptr<const std::vector<dra::AllocatedDevice>>& allocations);
  void NotePlaced(size_t node, const PodSpec* pod, int64_t copies = 1);
  // Fills `sim`, node `index`, from `n`, reusing what `sim` already holds.
  void Fill(Node& n, size_t index, SimNode& sim);
  // Fills `sim`, node `index`, from a room worked out before, unless it holds that room
  // already, untouched.
  void TakeRoom(Node& n, size_t index, SimNode& sim);

  ResourceCatalog catalog_;

  std::vector<Node> source_;  // owns the existing nodes' pods; labels and taints moved out
  std::vector<SimNode> nodes_;
  std::vector<Change> journal_;
  std::vector<size_t> marks_;
  std::vector<PlacedPod> anti_affinity_;
  // Shared claims given devices in this simulation, and their node.
  absl::flat_hash_map<std::string, size_t> claim_nodes_;
  mutable dra::MatchCache match_cache_;
};

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_CLUSTER_SNAPSHOT_H_
