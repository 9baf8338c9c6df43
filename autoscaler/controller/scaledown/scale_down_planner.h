// Scale-down, the deciding half. Every node of a group is judged: used below its threshold
// (GPU nodes by their GPUs, in physical GPUs; others by max(cpu, memory)), not marked
// scale-down-disabled, every pod free to move (the drain rules) and with somewhere to go
// (the removal simulation). Whether a node may go at all (its group above its min, the
// cluster above its minimum cores and memory, counting the candidates before it) is settled
// before its pods are moved, so a node that stays is room for the others' pods. A node so
// judged is unneeded; the time it became so is kept in its DeletionCandidateOfClusterAutoscaler
// taint, so a restart loses no clock. An unneeded node whose group's unneeded time has passed
// is removed, empty ones in bulk and the others a few at a time, and not while a cooldown
// runs (judging goes on in one, so the unneeded time keeps running, as in
// cluster-autoscaler). A candidate takes its pods' new room and none of later nodes' pods,
// in judging order: due nodes first, the dearest first; pods go to nodes that stay before
// candidates, and never onto a dearer node so that a cheaper one can go. Ours on top
// (--consolidation-payback): a GPU node at or over its threshold is judged the same way and
// goes when its pods fit on the nodes that stay (gangs never move so), and no ready node is
// drained whose pods would lose more node-time than the payback window (disruption.h); and
// the room of warm capacity (CapacityBuffer placeholders) is kept on the nodes that stay. A
// ready GPU node that stays only for want of room is handed on as replaceable
// (replacement_planner.h); while a replacement is under way, its new node stays and takes the
// replaced nodes' pods, whose unneeded time counts from the ask.
// Pure: view, state,
// what it kept (ScaleDownMemory) and now in, a plan out, and what it keeps back.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_SCALE_DOWN_PLANNER_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_SCALE_DOWN_PLANNER_H_

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/planning/planning_input.h"
#include "autoscaler/controller/planning/running_node_cache.h"
#include "autoscaler/controller/scaledown/node_judge.h"
#include "autoscaler/controller/scaledown/pending_replacement.h"
#include "autoscaler/controller/scaledown/replacement_planner.h"
#include "autoscaler/controller/scaledown/scale_down_memory.h"
#include "autoscaler/controller/status/status_report.h"
#include "estimator/cluster_snapshot.h"
#include "estimator/node_utilization.h"
#include "estimator/static_admissions.h"

namespace gpua {

struct NodeRemoval {
  int node = -1;
  std::string reason;  // empty, underutilized, unready
  std::vector<PodPtr> to_evict;
  std::string why;  // its use, the pods that move and the price it saves, for the log
};

struct ScaleDownPlan {
  std::vector<NodeJudgement> judged;  // every node of a group looked at
  std::vector<int> mark;              // unneeded, to get the DeletionCandidate taint
  std::vector<int> unmark;            // carrying it, no longer unneeded
  std::vector<NodeRemoval> removals;
  std::string cooldown;  // set: nothing is removed this loop (nodes are judged), and why
  // When the first unneeded node's unneeded time will have passed: the loop should run then.
  absl::Time next_due = absl::InfiniteFuture();
  ScaleDownStatus status;
  // The judged nodes that one new node might replace, when no replacement is under way.
  std::vector<ReplaceableNode> replaceable;
};

// What scale-down takes from the rest of its loop.
struct AfterScaleUp {
  // Pending pods that existing or upcoming nodes hold (the scheduler has yet to bind them);
  // while there are any, no removal starts.
  int pods_for_existing_nodes = 0;
  int nodes_added = 0;  // nodes this loop's scale-up asked for
  // Warm capacity (planning/buffer_pods.h) whose room the nodes that stay keep; a node whose
  // warm room fits nowhere else stays, WarmCapacity.
  const std::vector<PodPtr>& placeholders;
};

class ScaleDownPlanner {
 public:
  ScaleDownPlanner(const ScaleDownOptions& options, const ClusterLimits& limits)
      : options_(options), limits_(limits) {}

  // Reads the view, the state and the running nodes of `in`; `kept`: what this planner keeps.
  ScaleDownPlan Plan(const PlanningInput& in, const AfterScaleUp& loop,
                     ScaleDownMemory& kept) const;

 private:
  std::string Cooldown(const ClusterState& state, const CooldownStarts& last,
                       int pods_for_existing_nodes, absl::Time now) const;

  // The order nodes are judged in, which is also the order removals are chosen in and who
  // gets a bounded loop's drain simulations: nodes due for removal first, the one whose
  // removal saves most first (dearest group, then fewest GPUs in use); then those judged
  // longest ago (so every node gets its turn), nodes already unneeded before others, GPU
  // pools first, dearest first.
  std::vector<int> JudgingOrder(
      const ClusterView& view, const ClusterState& state, absl::Time now, RunningNodeCache& nodes,
      const absl::flat_hash_map<std::string, absl::Time>& drain_judged_at) const;

  const ScaleDownOptions& options_;
  const ClusterLimits& limits_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_SCALE_DOWN_PLANNER_H_
