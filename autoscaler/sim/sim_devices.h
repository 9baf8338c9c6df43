// Dynamic Resource Allocation in `gpu-autoscaler simulate`: what the DRA drivers, the
// resourceclaim controller and kube-scheduler's DRA plugin do, in memory. A node's drivers
// publish its group's template slices (renamed for the node, as PublishedSlices names them)
// once its GPUs are up. A pod's claims are resolved against the trace's DeviceClasses,
// ResourceClaimTemplates and ResourceClaims; binding it allocates devices with the
// estimator's allocator, the one the controller plans with, and makes its own claims,
// allocated and reserved for it; when it ends they go. A shared claim (resourceClaimName) is
// allocated with its first pod, pins the others to that node, and is deallocated when its
// last pod ends.
#ifndef GPUA_AUTOSCALER_SIM_SIM_DEVICES_H_
#define GPUA_AUTOSCALER_SIM_SIM_DEVICES_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/sim/trace.h"
#include "cloudproviders/node_group_file.h"
#include "estimator/dra/allocator.h"
#include "kubeobjects/dra_objects.h"

namespace gpua::sim {

// What the pods of one trace shape ask of DRA.
struct PodDeviceNeeds {
  std::shared_ptr<const dra::PodDevices> devices;  // null: no devices
  std::vector<std::string> served_requests;        // extended resources devices serve (KEP-5004)
};

// Where a pod's claims get their devices on one node: per claim of the pod, in its order, the
// devices picked (none for a shared claim allocated already).
using DevicePlacement = std::vector<std::vector<dra::DevicePick>>;

class SimDevices {
 public:
  // `objects`: the trace's (null: none); `groups`: which pools publish devices, and which
  // advertise extended resources through a device plugin (those stay the plugin's).
  SimDevices(const std::shared_ptr<const DraObjects>& objects,
             const std::vector<NodeGroupConfig>& groups);

  // The devices the pods of a shape ask for, resolved once per shape. Stays valid.
  const PodDeviceNeeds& Needs(int shape, const PodSpec& pod);

  // The node's drivers publish its group's slices (a group without slices publishes none).
  void Publish(const std::string& node, const std::string& group);
  // The node is gone; its pods have been released.
  void Withdraw(const std::string& node);
  // The node's devices and what is taken of them; null when it publishes none.
  const dra::DeviceUse* Use(const std::string& node) const;

  // Where the pod's claims would get devices on the node, given `use` (the node's own, or a
  // gang's tentative copy of it); nullopt when they cannot. Empty for a pod asking none.
  std::optional<DevicePlacement> Place(const PodDeviceNeeds& needs, const std::string& node,
                                       const dra::DeviceUse* use) const;
  // Allocates a placement Place gave for the node's own use: takes the devices and makes the
  // pod's claims. Returns the names of the claims made for the pod's claim references, by
  // reference (empty where none was made), and sets `gpus` to the physical GPUs it uses.
  std::vector<std::string> Allocate(const PodSpec& pod, const std::string& node,
                                    const PodDeviceNeeds& needs, const DevicePlacement& placement,
                                    double& gpus);
  // The pod ended or moved: its claims go, its shared claims lose a user.
  void Release(const std::string& pod_key);

  // Puts the classes, templates, claims and slices into the view, when they changed.
  void PatchView(ClusterView& view) const;

  // The physical GPUs the picks are: a device of a GPU driver that takes no counters is one;
  // a partition, the share of its GPU's counters it consumes (each counter weighing alike, as
  // DeviceUse::Utilization weighs them). Admin access takes none.
  static double PhysicalGpus(const dra::NodeDevices& devices,
                             const std::vector<dra::DevicePick>& picks);

 private:
  struct NodeState {
    dra::DeviceUse use;
    std::vector<ResourceSlicePtr> slices;  // as the view shows them
  };
  struct SharedClaim {
    std::shared_ptr<const dra::ResourceClaim> object;  // as the trace gave it, unallocated
    std::string node;                                  // empty: not allocated
    std::vector<dra::DevicePick> picks;
    std::vector<std::string> users;  // uids of the pods reserving it
  };
  struct Held {
    std::string node;
    std::vector<dra::DevicePick> picks;  // of the pod's own claims
    std::vector<std::string> own_claims;
    std::vector<std::string> shared_claims;
    std::string uid;
  };

  dra::ResourceClaim ClaimObject(const std::string& node, const std::vector<dra::DevicePick>& picks,
                                 dra::ResourceClaim claim) const;
  void PublishShared(const SharedClaim& shared);

  DraObjects objects_;
  absl::flat_hash_map<std::string, std::shared_ptr<const dra::NodeDevices>> group_devices_;
  absl::flat_hash_map<std::string, const NodeTemplate*> group_templates_;
  std::vector<std::unique_ptr<PodDeviceNeeds>> needs_;  // by shape
  // Ordered, as the view lists what they hold: a simulation repeats itself for a seed.
  std::map<std::string, NodeState> nodes_;
  absl::flat_hash_map<std::string, SharedClaim> shared_;  // by namespace/name
  absl::flat_hash_map<std::string, Held> held_;           // by pod key
  std::map<std::string, ResourceClaimPtr> claims_;        // every claim the view shows
  mutable dra::MatchCache matches_;                       // a memo: Place stays a question
  // What changed since the view was last patched.
  mutable bool claims_changed_ = true;
  mutable bool slices_changed_ = true;
  mutable bool objects_shown_ = false;
};

// The trace's pod shapes as the bounds read them: claims resolved (PodSpec::devices), the
// extended resources devices serve taken off the requests. A trace without DRA objects
// gives its shapes as they are.
class ResolvedShapes {
 public:
  ResolvedShapes(const Trace& trace, const std::vector<NodeGroupConfig>& groups)
      : devices_(trace.dra, groups), any_(trace.dra != nullptr) {}
  const PodSpec& Of(const TraceArrival& arrival);

 private:
  SimDevices devices_;
  const bool any_;
  std::map<int, PodSpec> specs_;  // by shape
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_SIM_DEVICES_H_
