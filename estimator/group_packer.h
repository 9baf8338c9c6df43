// Packs pending pods onto new nodes of one node group, first fit decreasing in an order where
// GPUs weigh first. Two ways, with the same packing order:
// - by pattern, when every pod the group can take is placeable by resources alone: a node is
//   filled (node_filler.h) and the same fill is repeated while its pods last, so the cost
//   grows with the number of distinct fills, not with pods or nodes; the result is a recipe
//   that is only written into the snapshot for the group that is chosen;
// - pod by pod in the snapshot, when some pod's placement depends on the pods around it
//   (ports, inter-pod affinity, spread).
#ifndef GPUA_ESTIMATOR_GROUP_PACKER_H_
#define GPUA_ESTIMATOR_GROUP_PACKER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "estimator/cluster_snapshot.h"
#include "estimator/estimate.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/node.h"
#include "estimator/pod_class.h"

namespace gpua {

// One shape a new node of the group may take: the only one, or one per MIG layout the pool's
// MIG manager can apply.
struct TemplateVariant {
  std::string mig_layout;         // empty when the group has a single shape
  ResourceVector allocatable;     // GPU resources as the device plugin will advertise them
  std::vector<double> gpu_share;  // per slot: the part of a physical GPU one unit is
};

// What a new node of a group looks like, prepared once per estimate.
struct PreparedTemplate {
  const NodeGroupSpec* group = nullptr;
  std::string node_name;  // new nodes are named after it, with a counter
  std::shared_ptr<NodeProps> props;
  std::vector<TemplateVariant> variants;  // at least one
  ResourceVector largest;  // per slot, the most any variant offers (for the packing order)
  std::shared_ptr<const GpuInventory> gpu;  // null: no GPUs
  absl::Status unusable;  // the template's GPUs cannot be read: no pod is planned on it
  std::vector<const PodSpec*> daemonset_pods;
  ResourceVector daemonset_requests;
};

PreparedTemplate PrepareTemplate(const NodeGroupSpec& group, ClusterSnapshot& snapshot);

// The classes in first-fit-decreasing order for this template: largest GPU share of the node
// first, then largest share of any other resource.
std::vector<size_t> PackingOrder(const std::vector<PodClass>& classes,
                                 const std::vector<size_t>& candidates, const PreparedTemplate& t,
                                 const ResourceCatalog& catalog);

struct PackLimits {
  int max_new_nodes = 0;    // for this group in this plan
  int64_t max_checks = 0;   // the group's work budget
  int64_t fill_search = 0;  // search steps per distinct node fill
  int first_node = 0;       // new nodes are numbered from here (the group may have some)
  // What holds max_new_nodes where it is, for the reason pods left out are given; empty:
  // the group's own size and the plan's node limits.
  std::string limited_by;
};

struct GroupPacking {
  // `repeat` identical new nodes, each holding `pods` (class -> copies).
  struct Pattern {
    std::vector<std::pair<size_t, int64_t>> pods;
    int64_t repeat = 0;
    size_t variant = 0;  // the node shape
  };
  std::vector<Pattern> patterns;  // packing by pattern only
  int new_nodes = 0;
  int64_t pod_count = 0;
  ResourceVector requested;                          // by the pods placed, the pods slot aside
  ResourceVector offered;                            // by the new nodes
  absl::flat_hash_map<size_t, std::string> reasons;  // class -> why some stayed out
  bool hit_node_limit = false;
};

// Plans `order` (classes in packing order, all placeable by resources alone) by pattern,
// touching neither the classes nor the snapshot.
GroupPacking PackByPattern(const std::vector<PodClass>& classes, const std::vector<size_t>& order,
                           const PreparedTemplate& t, const ResourceCatalog& catalog,
                           const PackLimits& limits);

// Takes the members a by-pattern packing's nodes hold, one list per new node.
void TakePatternMembers(const GroupPacking& packing, std::vector<PodClass>& classes,
                        const PreparedTemplate& t, std::vector<PlannedNode>* nodes);

// Adds a by-pattern packing's nodes, with their pods, to the snapshot. Only a later
// pod-by-pod packing needs to see them, so callers may put this off until then.
void AddPatternNodes(const GroupPacking& packing, const std::vector<PodClass>& classes,
                     const PreparedTemplate& t, int first_node, ClusterSnapshot& snapshot);

// A pod-by-pod packing and each of its new nodes with its pods.
struct NodesPacked {
  GroupPacking packing;
  std::vector<PlannedNode> nodes;
};

// Plans `order` pod by pod: places them on new nodes in the snapshot and takes the members
// (the caller forks and reverts around a what-if).
NodesPacked PackPodByPod(std::vector<PodClass>& classes, const std::vector<size_t>& order,
                         const PreparedTemplate& t, ClusterSnapshot& snapshot,
                         const PackLimits& limits);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_GROUP_PACKER_H_
