// Whether a pod may move off a node that is to be removed, and if not why, with
// cluster-autoscaler's rules (simulator/drain.go): what stays with the node (DaemonSet and
// mirror pods, finished and terminating pods), what moves (pods a controller will recreate,
// or that say safe-to-evict: "true"), and what keeps the node (safe-to-evict: "false", no
// controller, a controller of unknown kind, kube-system pods no budget covers, local
// storage, a PodDisruptionBudget that allows no disruption now). Pure: the facts come in,
// a verdict goes out, so the simulator and tests decide the same way the controller does.
#ifndef GPUA_ESTIMATOR_DRAIN_RULES_H_
#define GPUA_ESTIMATOR_DRAIN_RULES_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "estimator/pod.h"

namespace gpua {

// What the cluster says about one pod on a node.
struct PodDrainFacts {
  const PodSpec* pod = nullptr;
  bool daemonset = false;  // owned by a DaemonSet: it runs on every node, it does not move
  bool mirror = false;     // a static pod's mirror: the kubelet's, not evictable
  bool finished = false;   // Succeeded or Failed
  bool terminating = false;
  std::optional<bool> safe_to_evict;  // cluster-autoscaler.kubernetes.io/safe-to-evict
  bool local_storage = false;         // emptyDir (not in memory) or hostPath not declared safe
  // Its controller: none; one of a kind the controller watches that exists; one of a kind
  // it watches that is gone; or one of another kind (a custom controller).
  enum class Controller { kNone, kExists, kGone, kCustom } controller = Controller::kNone;
  // The PodDisruptionBudgets that cover it (indices into the caller's budgets).
  std::vector<int> budgets;
};

struct DrainRules {
  bool skip_nodes_with_local_storage = true;
  bool skip_nodes_with_system_pods = true;
  bool skip_nodes_with_custom_controller_pods = true;
};

enum class PodFate { kStays, kMoves, kBlocks };

// cluster-autoscaler's unremovable reasons, by the names its metrics and status use.
enum class BlockReason {
  kNone,
  kNotSafeToEvictAnnotation,
  kNotReplicated,
  kControllerNotFound,
  kCustomController,
  kUnmovableKubeSystemPod,
  kLocalStorageRequested,
  kNotEnoughPdb,
  kUnreadable,
};
absl::string_view BlockReasonName(BlockReason reason);

struct PodVerdict {
  PodFate fate = PodFate::kStays;
  BlockReason reason = BlockReason::kNone;
  std::string message;  // for a blocked pod: which pod and why, as an event says it
};

// `budgets_left`: what each budget still allows now (decremented by the caller as it
// commits removals, so two nodes do not both spend the same disruption).
PodVerdict JudgePodForDrain(const PodDrainFacts& facts, const DrainRules& rules,
                            const std::vector<int>& budgets_left);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_DRAIN_RULES_H_
