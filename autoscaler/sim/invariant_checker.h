// What a fault soak holds the controller to, checked on every loop and on every change it
// makes, counted, with the first violation of each kind told in full:
// - no node is deleted while a pod on it still runs without having been evicted (the
//   simulated Eviction API refuses what a PodDisruptionBudget does not allow), nor after a
//   pod the drain rules keep (safe-to-evict: "false") was evicted from it; a node under a
//   reclaim notice is going anyway and is not held to it, nor is a node whose GPUs failed once
//   its repair's bounded drain is over;
// - no group is asked past its max or below its min;
// - no increase is for pods nodes already on their way hold (the controller's own judgement,
//   and the cluster's truth: pods that already run);
// - none of our taints stays on a node no plan holds: a ToBeDeleted taint past its removal's
//   deadline, or a DeletionCandidate taint on a node judged needed, for two loops in which
//   nothing tried to remove it;
// - no pod is lost: every pod that arrived is pending, running or finished;
// - never two leaders acting in one loop;
// - no pod is placed on a node whose GPUs failed, past the repair policy's toleration for its
//   signal and the time the controller needs to act on it (a few loops, or two minutes).
#ifndef GPUA_AUTOSCALER_SIM_INVARIANT_CHECKER_H_
#define GPUA_AUTOSCALER_SIM_INVARIANT_CHECKER_H_

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/report/loop_report.h"
#include "autoscaler/sim/faulty_cloud.h"
#include "autoscaler/sim/faulty_kube_writer.h"
#include "autoscaler/sim/sim_cluster.h"

namespace gpua::sim {

enum class Invariant {
  kDeletedWithRunningPod,
  kGroupOutsideMinMax,
  kRepeatScaleUp,
  kTaintLeftBehind,
  kPodLost,
  kTwoLeaders,
  kPlacedOnBrokenNode,
};
inline constexpr size_t kInvariantCount = 7;
absl::string_view InvariantName(Invariant invariant);

struct Violation {
  absl::Time at;
  Invariant invariant;
  std::string details;  // what, where, and what the controller did
};

class InvariantChecker : public CloudObserver, public WriteObserver {
 public:
  InvariantChecker(const SimCluster& cluster, const ControllerOptions& options,
                   absl::Duration loop_interval);

  // CloudObserver
  void BeforeResize(NodeGroup& group, int delta, absl::string_view call) override;
  void BeforeDelete(NodeGroup& group, const std::vector<NodeRef>& nodes) override;

  // WriteObserver. A write to take a node's taints off or delete it is a loop in which the
  // controller tried to take its taints off.
  void TriedNode(const std::string& node) override { tried_.insert(node); }
  void Evicting(const std::string& namespace_name, const std::string& pod) override;
  // After a loop that ran; `view_stale`: the controller saw an old cluster (a watch cut), so
  // taints it could not see are not held against it; `arrived`: pods the trace has brought.
  void AfterLoop(const LoopReport& report, bool view_stale, int64_t arrived);
  void Leaders(int acting);

  const std::array<int64_t, kInvariantCount>& counts() const { return counts_; }
  int64_t total() const;
  // The first violation of each kind, in time order.
  std::vector<Violation> first() const;

 private:
  void Violate(Invariant invariant, std::string details);
  void CheckTaints(const LoopReport& report, bool view_stale);
  void CheckScaleUps(const LoopReport& report, bool view_stale);
  void CheckBrokenBinds();
  // A broken node being repaired whose drain has had its --repair-drain-time: it goes with
  // what is left on it, as a node under a reclaim notice does.
  bool RepairDrainOver(const SimNode& node) const;

  const SimCluster& cluster_;
  const ScaleDownOptions options_;
  const RepairOptions repair_;
  size_t broken_binds_seen_ = 0;
  const absl::Duration loop_interval_;
  std::array<int64_t, kInvariantCount> counts_{};
  std::array<std::optional<Violation>, kInvariantCount> first_;
  absl::flat_hash_set<std::string> tried_;  // nodes written to since the last loop
  // Loops in a row each node's taint was left with nothing done about it.
  std::map<std::string, int> left_loops_;
  std::set<std::string> reported_left_;  // a node's one violation per episode
  // Nodes a pod the drain rules keep was evicted from -> that pod.
  std::map<std::string, std::string> unmovable_evicted_;
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_INVARIANT_CHECKER_H_
