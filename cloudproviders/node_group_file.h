// The node-group file every tool reads (estimate, the simulated cloud, simulate and the
// example plugin): docs/node-groups.md.
#ifndef GPUA_CLOUDPROVIDERS_NODE_GROUP_FILE_H_
#define GPUA_CLOUDPROVIDERS_NODE_GROUP_FILE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "estimator/node.h"
#include "kubeobjects/replica_schedule.h"

namespace gpua {

enum class CapacityType { kOnDemand, kSpot };

// cluster-autoscaler's per-group autoscaling options; unset ones take the flags' defaults.
struct NodeGroupOptions {
  std::optional<double> scale_down_utilization_threshold;
  std::optional<double> scale_down_gpu_utilization_threshold;
  std::optional<absl::Duration> scale_down_unneeded_time;  // the pool's idle timeout
  std::optional<absl::Duration> scale_down_unready_time;
  std::optional<absl::Duration> max_node_provision_time;
  std::optional<bool> zero_or_max_node_scaling;
  std::optional<bool> ignore_daemonsets_utilization;
};

struct DelayDistribution {
  absl::Duration p50 = absl::ZeroDuration();
  absl::Duration p95 = absl::ZeroDuration();
};

// Read by the simulated cloud only.
struct SimulationSettings {
  DelayDistribution provisioning_delay;
  DelayDistribution gpu_ready_delay;
  double spot_interruptions_per_hour = 0;
  // A running node's GPUs fail (XID 79, fallen off the bus) at this rate per node-hour:
  // EKS's monitoring agent then sets AcceleratedHardwareReady=False on its Node.
  double gpu_failures_per_node_hour = 0;
};

// Warm capacity for `simulate`: idle nodes of the group kept ready, by time of day if
// `schedule` says so (its windows override `nodes`). simulate turns it into CapacityBuffers,
// which is how a real cluster says it.
struct WarmSettings {
  int nodes = 0;
  std::optional<ReplicaSchedule> schedule;
  bool any() const { return nodes > 0 || schedule.has_value(); }
};

struct NodeGroupConfig {
  NodeGroupSpec spec;  // id, sizes, price and template
  CapacityType capacity_type = CapacityType::kOnDemand;
  NodeGroupOptions options;
  SimulationSettings simulation;
  WarmSettings warm;
};

// Parses the file's text (YAML or JSON); `source` names it in errors, which also name the
// group and the field.
absl::StatusOr<std::vector<NodeGroupConfig>> ParseNodeGroupFile(absl::string_view text,
                                                                absl::string_view source);
absl::StatusOr<std::vector<NodeGroupConfig>> LoadNodeGroupFile(const std::string& path);

// Sets `warm` from one of its settings by the name a sweep gives it: warmNodes ("2") or
// warmSchedule ("07:00-19:00=2"); an error names the setting after `where`.
absl::Status SetWarmSetting(WarmSettings& warm, absl::string_view name, absl::string_view value,
                            absl::string_view where);
bool IsWarmSetting(absl::string_view name);

// Sets one of a group's `options` by its name in the file ("scaleDownUnneededTime") from
// its value as text ("5m", "0.4", "true"), read as the file's reader reads it; an error
// names the option after `where`.
absl::Status SetNodeGroupOption(NodeGroupOptions& options, absl::string_view name,
                                absl::string_view value, absl::string_view where);

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_NODE_GROUP_FILE_H_
