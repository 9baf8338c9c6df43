// Everything the controller is told from outside: cluster-autoscaler's flags, in the
// controller's own terms. The command line fills it (autoscaler/cli/controller_flags.h);
// `simulate` fills it from the same flags, so both run the controller with one meaning.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_CONTROLLER_OPTIONS_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_CONTROLLER_OPTIONS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "autoscaler/controller/model/repair_policy.h"
#include "cloudproviders/cloud_provider.h"
#include "estimator/expander.h"

namespace gpua {

// --nodes=<min>:<max>:<id>: only the groups named are autoscaled, within these sizes.
struct NodeGroupLimits {
  std::string id;
  int min_size = 0;
  int max_size = 0;
};

struct MinMax {
  int64_t min = 0;
  int64_t max = 0;
};

// Cluster-wide limits: a scale-up never takes the cluster past a maximum (the minimums are
// for scale-down).
struct ClusterLimits {
  int max_nodes_total = 0;                           // --max-nodes-total; 0: no limit
  MinMax cores{0, 320'000};                          // --cores-total
  MinMax memory_bytes{0, int64_t{6'400'000} << 30};  // --memory-total, given in GiB
  // --gpu-total=<type>:<min>:<max>: physical GPUs per type, the type being the value of the
  // provider's GPU label on a node (or its template).
  std::map<std::string, MinMax> gpus_by_type;
};

struct BackoffOptions {
  absl::Duration initial = absl::Minutes(5);  // --initial-node-group-backoff-duration
  absl::Duration max = absl::Minutes(30);     // --max-node-group-backoff-duration
  absl::Duration reset = absl::Hours(3);      // --node-group-backoff-reset-timeout
};

struct ScaleUpOptions {
  std::string expander = kDefaultExpanderChain;  // --expander, a chain
  uint64_t random_seed = 0;
  int max_nodes_per_scaleup = 1000;                              // --max-nodes-per-scaleup
  absl::Duration new_pod_scale_up_delay = absl::ZeroDuration();  // --new-pod-scale-up-delay
  // --expendable-pods-priority-cutoff: pods below it never trigger a scale-up.
  int32_t expendable_pods_priority_cutoff = -10;
  // --capacity-buffer-pod-injection-enabled: CapacityBuffers hold warm capacity
  // (planning/buffer_pods.h). Off, as in cluster-autoscaler: the objects are not even read.
  bool capacity_buffers = false;
  // --startup-taint, --status-taint, --ignore-taint: taint keys that say nothing about where
  // pods will run once a node is up (the cluster-autoscaler prefixes are always ignored).
  std::vector<std::string> ignored_taints;
};

struct ClusterStateOptions {
  absl::Duration max_node_startup_time = absl::Minutes(15);  // --max-node-startup-time
  // --startup-taint (and --ignore-taint): a Ready node carrying one is still starting, as one
  // carrying a key under cluster-autoscaler's startup prefixes or readiness.k8s.io/ is. A
  // value ending in '/' names every key under it.
  std::vector<std::string> startup_taints;
  // --readiness-condition: a Ready node with one of these conditions not True is still
  // starting (gpu-operator's Node Problem Detector recipe sets nvidia.com/GPUReady). A node
  // without the condition is not held for it: nothing may be there to set it.
  std::vector<std::string> readiness_conditions = {"nvidia.com/GPUReady"};
  int ok_total_unready_count = 3;            // --ok-total-unready-count
  double max_total_unready_percentage = 45;  // --max-total-unready-percentage
  BackoffOptions backoff;
};

struct ScaleDownOptions {
  bool enabled = true;  // --scale-down-enabled
  // Not cluster-autoscaler's 10m: a pool should be back at zero within its idle timeout.
  // What the delay guards against, removing a node before the pods it came for land, is
  // guarded against directly: no removal starts while pending pods fit on existing or
  // upcoming nodes, and a new node's unneeded time starts only once it is ready.
  absl::Duration delay_after_add = absl::ZeroDuration();     // --scale-down-delay-after-add
  absl::Duration delay_after_delete = absl::ZeroDuration();  // --scale-down-delay-after-delete
  absl::Duration delay_after_failure = absl::Minutes(3);     // --scale-down-delay-after-failure
  int max_scale_down_parallelism = 10;                       // --max-scale-down-parallelism
  int max_drain_parallelism = 1;                             // --max-drain-parallelism
  // How many nodes with pods to move a loop simulates draining (0: all), as
  // cluster-autoscaler bounds the work: nodes already unneeded first, then those judged
  // longest ago, so every node gets its turn.
  int non_empty_candidates = 30;  // --scale-down-non-empty-candidates-count
  absl::Duration max_graceful_termination = absl::Seconds(600);  // --max-graceful-termination-sec
  absl::Duration max_pod_eviction_time = absl::Minutes(2);       // --max-pod-eviction-time
  // Ours: how long a preempted node's pods get before the node is deleted regardless (a
  // spot notice is two minutes on AWS, thirty seconds on GCP and Azure).
  absl::Duration preemption_drain_time = absl::Seconds(90);  // --preemption-drain-time
  // Ours: how long a broken node's pods get to leave (evicted under their budgets) before the
  // node is deleted with them: its GPUs are not worth waiting an hour for.
  absl::Duration repair_drain_time = absl::Minutes(10);  // --repair-drain-time
  // Ours: a GPU node at or over its utilization threshold may still go when its pods fit on
  // the nodes that stay and the node-time they lose (scaledown/disruption.h) is under this;
  // a node under the threshold is drained only under the same rule. 0: neither, as in
  // cluster-autoscaler.
  absl::Duration consolidation_payback = absl::Minutes(30);  // --consolidation-payback
  bool skip_nodes_with_local_storage = true;                 // --skip-nodes-with-local-storage
  bool skip_nodes_with_system_pods = true;                   // --skip-nodes-with-system-pods
  bool skip_nodes_with_custom_controller_pods = true;  // --skip-nodes-with-custom-controller-pods
};

// Broken nodes replaced (model/repair_policy.h says what broken is).
struct RepairOptions {
  bool enabled = true;  // --node-repair
  // --max-unhealthy-percent: of a group, and of the cluster, at most this share of the nodes
  // is repaired at once (at least one node).
  double max_unhealthy_percent = 20;
  RepairPolicies policies;  // --gpu-repair-policy, else the defaults
};

struct StatusOptions {
  bool write_configmap = true;                               // --write-status-configmap
  std::string namespace_name = "kube-system";                // --namespace
  std::string configmap_name = "cluster-autoscaler-status";  // --status-config-map-name
};

struct ControllerOptions {
  // Per-group options a provider does not set (--scale-down-unneeded-time,
  // --max-node-provision-time, ...): what GetOptions falls back to.
  AutoscalingOptions group_defaults;
  std::vector<NodeGroupLimits> node_groups;  // empty: every group the provider lists
  ClusterLimits limits;
  ClusterStateOptions cluster_state;
  ScaleUpOptions scale_up;
  ScaleDownOptions scale_down;
  StatusOptions status;
  RepairOptions repair;
  absl::Duration scan_interval = absl::Seconds(10);  // --scan-interval
  // --enable-dynamic-resource-allocation: pods' ResourceClaims are planned with the devices
  // nodes publish (cluster_devices.h). Off, claims are not read and pods are planned by their
  // requests alone, as cluster-autoscaler plans them without the flag.
  bool dynamic_resource_allocation = true;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_CONTROLLER_OPTIONS_H_
