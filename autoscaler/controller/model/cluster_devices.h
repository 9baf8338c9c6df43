// What Dynamic Resource Allocation adds to a view of the cluster, resolved once per loop
// before any step reads it: each pod's claims against the cluster's ResourceClaims,
// ResourceClaimTemplates and DeviceClasses (PodSpec::devices), each node's devices from the
// ResourceSlices its drivers publish (complete node-local pools only), and the devices that
// allocated claims hold on each node. Every step then plans DRA pods as the scheduler would
// allocate them, and nothing is written to the API.
//
// A bound pod's own claims (made from a template, or for an extended resource) are read as
// not allocated: its devices are held on its node by the node's allocations, and were the pod
// moved, its replacement would get a new claim. A claim named by several pods keeps its
// allocation, which pins them to its node.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_CLUSTER_DEVICES_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_CLUSTER_DEVICES_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "base/log.h"

namespace gpua {

class ClusterDevices {
 public:
  // `enabled` false: every view is handed back as it is (--enable-dynamic-resource-allocation).
  ClusterDevices(LogSink& log, bool enabled) : log_(log), enabled_(enabled) {}

  // `view` itself when it holds no DRA object and no pod asks for an extended resource a
  // DeviceClass serves; otherwise a copy with node_devices filled and the pods that ask for
  // devices replaced by copies that carry them. Copies made in an earlier loop are handed out
  // again while the pod and what its claims resolve to stay the same, so what the planners
  // keep per pod object stays valid.
  std::shared_ptr<const ClusterView> Resolve(std::shared_ptr<const ClusterView> view);

 private:
  struct KeptPod {
    PodPtr source;
    PodPtr resolved;
  };
  struct KeptNode {
    std::vector<ResourceSlicePtr> slices;  // held, so an address is never reused while compared
    std::shared_ptr<const dra::NodeDevices> devices;
  };

  bool Involved(const ClusterView& view);
  void RefreshObjects(const ClusterView& view);
  void ResolveNodes(ClusterView& view);
  void ResolveAllocations(ClusterView& view) const;
  // The pod as the planners should read it: `pod` when it asks for no devices.
  PodPtr ResolvePod(const PodPtr& pod);

  LogSink& log_;
  const bool enabled_;
  DraObjects dra_;
  std::vector<DeviceClassPtr> classes_;  // as last read, to rebuild dra_.classes on change
  absl::flat_hash_set<std::string> class_resources_;  // their extendedResourceNames
  absl::flat_hash_map<std::string, KeptPod> pods_;    // by namespace/name
  absl::flat_hash_map<std::string, KeptNode> nodes_;  // by node name
  // Node-local pools by "driver/pool": the node whose devices they are.
  absl::flat_hash_map<std::string, std::string> pool_nodes_;
  int unsupported_pools_ = 0;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_CLUSTER_DEVICES_H_
