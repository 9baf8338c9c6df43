// The status ConfigMap in cluster-autoscaler's schema (docs/CA-COMPAT.md), so the dashboards and
// scripts that read cluster-autoscaler-status keep working: cluster-wide health with node
// counts, scale-up (InProgress, NoActivity, Backoff) and scale-down activity, and the same
// per node group with its target, sizes and back-off. Written every loop, with the
// last-updated annotation; `inspect` reads it back.
#ifndef GPUA_AUTOSCALER_CONTROLLER_STATUS_STATUS_REPORT_H_
#define GPUA_AUTOSCALER_CONTROLLER_STATUS_STATUS_REPORT_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "base/log.h"

namespace gpua {

inline constexpr char kStatusLastUpdatedAnnotation[] =
    "cluster-autoscaler.kubernetes.io/last-updated";

// What scale-down has found, for the status.
struct ScaleDownStatus {
  std::map<std::string, int> candidates_by_group;  // unneeded nodes, by group
  int total() const;
};

// A node broken by a repair policy's signal, for the status: under its group, at
// nodeGroups[].health.unhealthyNodes (ours; only when there are some).
struct UnhealthyNodeStatus {
  std::string node;
  std::string group;
  std::string signal;  // "AcceleratedHardwareReady=False"
  std::string detail;  // the condition's reason and message
  absl::Time since;
  std::string state;  // tolerated until <time>, tainted, repairing, waiting: <why>
};

// Go's time.Time.String(), as cluster-autoscaler writes `time` and the annotation:
// "2026-12-01 10:00:00.123456789 +0000 UTC".
std::string StatusTime(absl::Time t);

// YAML for a JSON value, block style, strings always quoted: what the status key holds.
std::string ToYaml(const nlohmann::ordered_json& value);

class StatusReporter {
 public:
  StatusReporter(KubeWriter& writer, const StatusOptions& options, LogSink& log)
      : writer_(writer), options_(options), log_(log) {}

  // The status as an object in the schema's key order; remembers when each condition last
  // changed, for lastTransitionTime.
  nlohmann::ordered_json Build(const ClusterState& state, const ScaleDownStatus& down,
                               absl::Time now,
                               const std::vector<UnhealthyNodeStatus>& unhealthy = {});
  // Builds and writes it, when --write-status-configmap is on, with the last-updated
  // annotation (the ConfigMap's other annotations stay).
  void Write(const ClusterState& state, const ScaleDownStatus& down, absl::Time now,
             const std::vector<UnhealthyNodeStatus>& unhealthy = {});

 private:
  nlohmann::ordered_json Condition(const std::string& key, const std::string& status,
                                   absl::Time now);

  KubeWriter& writer_;
  const StatusOptions& options_;
  LogSink& log_;
  // condition key ("clusterWide/health", "a100/scaleUp") -> (status, since)
  std::map<std::string, std::pair<std::string, absl::Time>> transitions_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_STATUS_STATUS_REPORT_H_
