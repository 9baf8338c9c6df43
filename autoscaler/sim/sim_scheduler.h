// kube-scheduler, as far as the simulation needs it. Pending pods are tried in the order they
// came; a pod goes to the node that passes the estimator's own checks (node selector and
// affinity, taints, cordon, resources as the node advertises them, GPU sharing rules) and
// scores best: the default profile's LeastAllocated (the most free cpu and memory left), or
// MostAllocated (the least), nodes with a PreferNoSchedule taint the pod does not tolerate
// last. A pod nominated to a node (status.nominatedNodeName) is tried there first, and its room
// there is kept from other pods, as kube-scheduler's nominator does; a failed attempt clears
// the nomination, and an unschedulable nominated pod is tried again only once some node has
// room for it (kube-scheduler's queueing hints). A pod with DRA claims goes only where its
// claims get devices, as the scheduler's DRA plugin allocates them (sim_devices.h); the first
// node found by score is the one whose devices it gets. A gang is bound only when
// enough members to start are bound or can be bound together (kube-scheduler's coscheduling
// Permit). What fits nowhere is marked unschedulable, which is
// what the autoscaler watches for.
#ifndef GPUA_AUTOSCALER_SIM_SIM_SCHEDULER_H_
#define GPUA_AUTOSCALER_SIM_SIM_SCHEDULER_H_

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "autoscaler/sim/sim_cluster.h"
#include "estimator/gpu/gpu_predicates.h"

namespace gpua::sim {

enum class Scoring { kLeastAllocated, kMostAllocated };

class SimScheduler {
 public:
  explicit SimScheduler(Scoring scoring, GpuPolicy policy = {})
      : scoring_(scoring), policy_(policy) {}

  // One pass over the pending pods. Returns how many were newly marked unschedulable.
  int Run(SimCluster& cluster);

 private:
  // Free room of nodes claimed by a gang's tentative placements, by node name.
  using Claims = std::map<std::string, ResourceVector>;
  // DRA devices of nodes that a gang's tentative placements took, by node name.
  using DevicesTaken = std::map<std::string, dra::DeviceUse>;

  struct Choice {
    std::string node;  // empty: none
    DevicePlacement devices;
  };
  // The best node for the pod.
  Choice FindNode(const SimCluster& cluster, const SimPod& pod, const Claims& claims,
                  const DevicesTaken& taken = {});
  // Where the pod's claims get devices on the node; nullopt when they cannot.
  static std::optional<DevicePlacement> PlaceDevices(const SimCluster& cluster, const SimPod& pod,
                                                     const std::string& node,
                                                     const DevicesTaken& taken);
  // Whether the node's labels, taints, cordon and GPUs admit the pod (remembered on the node
  // until it changes).
  bool Admits(const std::string& name, const SimNode& node, const SimPod& pod);
  // The nodes that admit pods of the pod's shape, in name order: most pods fit few pools.
  // Kept per shape, and brought up to date with the nodes that changed since.
  using NodeList = std::vector<std::pair<std::string, const SimNode*>>;
  const NodeList& AdmittingNodes(const SimCluster& cluster, const SimPod& pod);
  // Brings `nodes`, the admitting nodes for `pod`'s shape, up to date with the nodes `changed`.
  void FollowChanges(const SimCluster& cluster, const SimPod& pod,
                     std::vector<std::string>& changed, NodeList& nodes);
  // Whether a node that admits the pod has its requests free, nominations aside.
  bool SomeNodeHasRoom(const SimCluster& cluster, const SimPod& pod);
  // Each node's free room less what the pending pods nominated to it need.
  static Claims NominatedRoom(const SimCluster& cluster);
  // Binds the pod to its nominated node when it fits there; `kept` as NominatedRoom made it.
  bool BindNominated(SimCluster& cluster, const std::string& key, const SimPod& pod, Claims& kept);
  int ScheduleGang(SimCluster& cluster, const std::string& gang,
                   const std::vector<std::string>& members);
  double Score(const SimNode& node, const ResourceVector& free, const SimPod& pod) const;

  const Scoring scoring_;
  const GpuPolicy policy_;
  struct Admitting {
    int64_t nodes_version = -1;  // the cluster's when `nodes` was listed
    NodeList nodes;
  };
  std::vector<Admitting> admitting_;  // by pod shape
  std::vector<std::string> changed_;  // scratch for AdmittingNodes
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_SIM_SCHEDULER_H_
