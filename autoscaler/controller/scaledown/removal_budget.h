// What removals one scale-down plan may still take, counted as nodes are judged: a group
// never below its min size, the cluster never below its minimum cores or memory (counting
// every node this plan makes a candidate, not only those it removes now), and at most
// --max-scale-down-parallelism removals (and --max-drain-parallelism drains) under way.
// A node refused here is never a deletion candidate and stays room for the others' pods.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_REMOVAL_BUDGET_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_REMOVAL_BUDGET_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/planning/running_node_cache.h"

namespace gpua {

class RemovalBudget {
 public:
  // `drains_under_way`: removals begun earlier that still have pods to see off.
  RemovalBudget(const ClusterState& state, const ScaleDownOptions& options,
                const ClusterLimits& limits, int drains_under_way, RunningNodeCache& nodes);

  struct Refusal {
    absl::string_view reason;  // cluster-autoscaler's unremovable reason
    std::string detail;
  };
  // Why node `i` may not go at all beside the candidates taken so far; nullopt: it may.
  std::optional<Refusal> Refuses(int i);
  // Whether a removal may start now within the parallelism; `empty`: nothing to drain.
  bool MayStartNow(bool empty) const;
  // Counts node `i` as a candidate and, when `started`, as a removal under way.
  void Take(int i, bool started, bool empty);

 private:
  const ClusterState& state_;
  const ScaleDownOptions& options_;
  const ClusterLimits& limits_;
  RunningNodeCache& nodes_;
  std::string gpu_label_;
  std::vector<int> above_min_;  // by group: nodes it may still lose
  int64_t cores_ = 0;
  int64_t memory_ = 0;
  int in_progress_ = 0;
  int drains_ = 0;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_REMOVAL_BUDGET_H_
