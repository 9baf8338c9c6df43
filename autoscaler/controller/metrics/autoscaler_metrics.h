// The metrics the controller exports: cluster-autoscaler's names (metrics.go, namespace
// cluster_autoscaler_) where we do the same thing, so dashboards and alerts carry over, and
// ours (gpu_autoscaler_) for what it has no names for: GPUs by group and state, pending GPU
// pods, the cost per hour of each group.
#ifndef GPUA_AUTOSCALER_CONTROLLER_METRICS_AUTOSCALER_METRICS_H_
#define GPUA_AUTOSCALER_CONTROLLER_METRICS_AUTOSCALER_METRICS_H_

#include "autoscaler/controller/metrics/metrics_registry.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/report/loop_report.h"

namespace gpua {

class AutoscalerMetrics {
 public:
  explicit AutoscalerMetrics(MetricsRegistry& registry);

  // Everything one loop tells: states and counts set, events counted, durations observed.
  void Record(const LoopReport& report, const ControllerOptions& options);
  // An error of the kind cluster-autoscaler counts in errors_total (cloudProviderError,
  // apiCallError, internalError).
  void CountError(const std::string& type);

  MetricsRegistry& registry() { return registry_; }

 private:
  void RecordState(const ClusterState& state, const ControllerOptions& options);
  void RecordGroups(const ClusterState& state);
  void RecordScaleUps(const LoopReport& report);
  void RecordScaleDown(const LoopReport& report);
  void RecordIdleGpus(const LoopReport& report);
  void RecordRepairs(const LoopReport& report);

  MetricsRegistry& registry_;
  MetricFamily& safe_to_autoscale_;
  MetricFamily& nodes_count_;
  MetricFamily& node_groups_count_;
  MetricFamily& unschedulable_pods_count_;
  MetricFamily& max_nodes_count_;
  MetricFamily& cpu_current_cores_;
  MetricFamily& cpu_limits_cores_;
  MetricFamily& memory_current_bytes_;
  MetricFamily& memory_limits_bytes_;
  MetricFamily& group_min_;
  MetricFamily& group_max_;
  MetricFamily& group_target_;
  MetricFamily& group_healthiness_;
  MetricFamily& group_backoff_;
  MetricFamily& last_activity_;
  MetricFamily& errors_;
  MetricFamily& scaled_up_nodes_;
  MetricFamily& scaled_up_gpu_nodes_;
  MetricFamily& failed_scale_ups_;
  MetricFamily& failed_gpu_scale_ups_;
  MetricFamily& failed_node_creations_;
  MetricFamily& unregistered_removed_;
  MetricFamily& function_duration_;
  MetricFamily& gpus_;
  MetricFamily& pending_gpu_pods_;
  MetricFamily& group_cost_;
  MetricFamily& scaled_down_nodes_;
  MetricFamily& scaled_down_gpu_nodes_;
  MetricFamily& evicted_pods_;
  MetricFamily& unneeded_nodes_;
  MetricFamily& unremovable_nodes_;
  MetricFamily& scale_down_in_cooldown_;
  MetricFamily& pending_node_deletions_;
  MetricFamily& idle_gpus_;
  MetricFamily& idle_gpus_by_cause_;
  MetricFamily& repeat_scale_ups_;
  MetricFamily& idle_gpu_seconds_;
  MetricFamily& idle_gpu_cost_;
  MetricFamily& gpu_nodes_unhealthy_;
  MetricFamily& node_repairs_;
  absl::Time last_loop_ = absl::InfinitePast();
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_METRICS_AUTOSCALER_METRICS_H_
