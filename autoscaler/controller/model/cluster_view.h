// What one controller loop reads of the cluster: every kind as it stood when the loop
// began, read-only, shared with the caches it came from.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_CLUSTER_VIEW_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_CLUSTER_VIEW_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "kubeobjects/capacity_buffer.h"
#include "kubeobjects/config_map.h"
#include "kubeobjects/dra_objects.h"
#include "kubeobjects/nodes.h"
#include "kubeobjects/pods.h"
#include "kubeobjects/policy.h"
#include "kubeobjects/workloads.h"

namespace gpua {

using NodePtr = std::shared_ptr<const NodeObject>;
using PodPtr = std::shared_ptr<const PodObject>;
using PdbPtr = std::shared_ptr<const PdbObject>;
using DaemonSetPtr = std::shared_ptr<const DaemonSetObject>;
using WorkloadPtr = std::shared_ptr<const WorkloadObject>;
using ConfigMapPtr = std::shared_ptr<const ConfigMapObject>;
using CapacityBufferPtr = std::shared_ptr<const CapacityBufferObject>;
using PodTemplatePtr = std::shared_ptr<const PodTemplateObject>;
using DeviceClassPtr = std::shared_ptr<const dra::DeviceClass>;
using ResourceSlicePtr = std::shared_ptr<const dra::ResourceSlice>;
using ResourceClaimPtr = std::shared_ptr<const dra::ResourceClaim>;
using ResourceClaimTemplatePtr = std::shared_ptr<const dra::ResourceClaimTemplate>;

// A node's DRA devices as the view resolves them (cluster_devices.h).
struct NodeDeviceState {
  std::vector<ResourceSlicePtr> slices;             // the node-local slices naming it
  std::shared_ptr<const dra::NodeDevices> devices;  // its complete node-local pools
  std::shared_ptr<const std::vector<dra::AllocatedDevice>> allocated;  // held by claims
};
using NodeDevicesByName = absl::flat_hash_map<std::string, NodeDeviceState>;

// How the view files a workload: "kind/namespace/name".
std::string WorkloadRef(absl::string_view kind, absl::string_view namespace_name,
                        absl::string_view name);

struct ClusterView {
  absl::Time taken;
  std::vector<NodePtr> nodes;
  absl::flat_hash_map<std::string, PodPtr> pods;  // every pod, bound or not, by namespace/name
  // Bound pods only, each node's in namespace/name order.
  absl::flat_hash_map<std::string, std::vector<PodPtr>> pods_by_node;
  std::vector<PodPtr> unschedulable;  // PodScheduled=False/Unschedulable and not bound
  // Nodes running a pod that could not be read: what runs there is not fully known.
  absl::flat_hash_set<std::string> nodes_with_unreadable_pods;
  std::vector<PdbPtr> pdbs;
  std::vector<DaemonSetPtr> daemonsets;
  // ReplicaSets, StatefulSets, Jobs, ReplicationControllers, by WorkloadRef.
  absl::flat_hash_map<std::string, WorkloadPtr> workloads;
  // The ConfigMaps the controller reads (the priority expander's, its status), in its namespace.
  std::vector<ConfigMapPtr> config_maps;
  // Warm capacity: the CapacityBuffers, and the PodTemplates they may name. Empty where the
  // CapacityBuffer resource is not served or may not be read.
  std::vector<CapacityBufferPtr> capacity_buffers;
  std::vector<PodTemplatePtr> pod_templates;
  // DRA (resource.k8s.io): empty where the API is not served or may not be read.
  std::vector<DeviceClassPtr> device_classes;
  std::vector<ResourceSlicePtr> resource_slices;
  std::vector<ResourceClaimPtr> resource_claims;
  std::vector<ResourceClaimTemplatePtr> resource_claim_templates;
  // Filled by ResolveClusterDevices (cluster_devices.h), not by the source: each node's
  // devices by node name (absent: no slices name it), and the pods that ask for devices carry
  // them resolved (PodSpec::devices).
  NodeDevicesByName node_devices;

  ConfigMapPtr FindConfigMap(absl::string_view namespace_name, absl::string_view name) const;

  // The pod's controller when it still exists (same kind, name and uid); null for a pod
  // without one, whose controller is gone, or whose controller's kind is not watched.
  WorkloadPtr ControllerOf(const PodSpec& pod) const;
  const std::vector<PodPtr>& PodsOn(const std::string& node) const;
  // The node's DRA devices; null when no ResourceSlice names it.
  const NodeDeviceState* DevicesOf(const std::string& node) const;

  void AddWorkload(WorkloadPtr workload);
  // Files each pod under its node, or with the unschedulable ones. Pods of one node must come
  // in namespace/name order.
  void AddPod(PodPtr pod);
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_CLUSTER_VIEW_H_
