// Nodes as the estimator sees them: a pool's template for nodes it may add, and the nodes
// that exist (or are coming up) with the pods already on them.
#ifndef GPUA_ESTIMATOR_NODE_H_
#define GPUA_ESTIMATOR_NODE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "estimator/labels.h"
#include "estimator/pod.h"
#include "estimator/resource_list.h"
#include "estimator/taints.h"

namespace gpua {

class GpuInventory;
struct NodeRoom;
namespace dra {
struct NodeDevices;
struct ResourceSlice;
struct AllocatedDevice;
}  // namespace dra

inline constexpr absl::string_view kLabelHostname = "kubernetes.io/hostname";
inline constexpr absl::string_view kLabelZone = "topology.kubernetes.io/zone";

// What a new node of a pool will look like when it registers.
struct NodeTemplate {
  std::string name;
  Labels labels;
  Labels annotations;  // where our own GPU-sharing and driver settings travel
  std::vector<Taint> taints;
  ResourceList allocatable;  // includes "pods", the pod capacity
  // DaemonSet pods every new node will run; their requests come off allocatable.
  std::vector<PodSpec> daemonset_pods;
  // The ResourceSlices its DRA drivers will publish for one node (names and node name are
  // the template's; each simulated node gets its own copy of the devices).
  std::vector<std::shared_ptr<const dra::ResourceSlice>> resource_slices;
};

// What does not change while pods come and go; shared by every node made from a template.
struct NodeProps {
  Labels labels;
  std::vector<Taint> taints;
  bool unschedulable = false;
  std::string group_id;
  std::shared_ptr<const GpuInventory> gpu;  // null: no GPUs, or none that could be read
  // DRA devices in the node's complete pools; null: none.
  std::shared_ptr<const dra::NodeDevices> devices;
};

struct Node {
  std::string name;
  Labels labels;
  Labels annotations;  // our GPU settings, for a node that carries its template's
  std::vector<Taint> taints;
  ResourceList allocatable;
  bool unschedulable = false;  // cordoned
  // A node the provider is still bringing up: it takes pods in the simulation, so a
  // scale-up already under way is not repeated.
  bool upcoming = false;
  std::string group_id;  // the node group it belongs to, if any
  // Shared, not copied: a cluster's pods are read into every loop's snapshots, and the
  // pointers may alias the pod objects the informers hold.
  std::vector<std::shared_ptr<const PodSpec>> pods;
  // When set, what the scheduler's checks read (labels, taints, cordon, GPUs), worked out by
  // the caller and shared; the fields above it then need not be filled. Unset: the snapshot
  // works it out from them, reading the GPUs from labels, annotations and allocatable.
  std::shared_ptr<const NodeProps> props;
  // When set, its allocatable and pods as a snapshot takes them (node_room.h), worked out by
  // the caller and shared; with `props` set too, `allocatable` and `pods` need not be filled.
  std::shared_ptr<const NodeRoom> room;
  // DRA: the devices its drivers publish (moved into the props a snapshot makes; with
  // `props` set, the props' are used) and those its pods' claims hold.
  std::shared_ptr<const dra::NodeDevices> devices;
  std::shared_ptr<const std::vector<dra::AllocatedDevice>> device_allocations;
};

// Node group as the estimator needs it: sizes, price and what its nodes look like.
struct NodeGroupSpec {
  std::string id;
  int min_size = 0;
  int max_size = 0;
  int target_size = 0;
  double price_per_hour = 0;
  NodeTemplate node_template;
  // What the template's labels, annotations and allocatable say of its GPUs, when the caller
  // has read it already (ReadGpuInventory of exactly those); null: read from the template.
  std::shared_ptr<const GpuInventory> gpus;
};

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_NODE_H_
