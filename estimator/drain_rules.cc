#include "estimator/drain_rules.h"

#include "absl/strings/str_cat.h"

namespace gpua {
namespace {

PodVerdict Blocks(BlockReason reason, const PodSpec& pod, absl::string_view why) {
  return {PodFate::kBlocks, reason, absl::StrCat("pod ", pod.Key(), " ", why)};
}

}  // namespace

absl::string_view BlockReasonName(BlockReason reason) {
  switch (reason) {
    case BlockReason::kNone:
      return "";
    case BlockReason::kNotSafeToEvictAnnotation:
      return "NotSafeToEvictAnnotation";
    case BlockReason::kNotReplicated:
      return "NotReplicated";
    case BlockReason::kControllerNotFound:
      return "ControllerNotFound";
    case BlockReason::kCustomController:
      return "CustomController";
    case BlockReason::kUnmovableKubeSystemPod:
      return "UnmovableKubeSystemPod";
    case BlockReason::kLocalStorageRequested:
      return "LocalStorageRequested";
    case BlockReason::kNotEnoughPdb:
      return "NotEnoughPdb";
    case BlockReason::kUnreadable:
      return "UnreadablePod";
  }
  return "";
}

PodVerdict JudgePodForDrain(const PodDrainFacts& f, const DrainRules& rules,
                            const std::vector<int>& budgets_left) {
  const PodSpec& pod = *f.pod;
  if (f.mirror || f.daemonset || f.finished || f.terminating) return {};
  if (!pod.invalid.ok()) {
    return Blocks(BlockReason::kUnreadable, pod,
                  absl::StrCat("cannot be read: ", pod.invalid.message()));
  }
  for (int b : f.budgets) {
    if (b >= 0 && b < static_cast<int>(budgets_left.size()) && budgets_left[b] < 1) {
      return Blocks(BlockReason::kNotEnoughPdb, pod,
                    "is covered by a PodDisruptionBudget that allows no disruption now");
    }
  }
  if (f.safe_to_evict == false) {
    return Blocks(BlockReason::kNotSafeToEvictAnnotation, pod,
                  "is annotated cluster-autoscaler.kubernetes.io/safe-to-evict: \"false\"");
  }
  if (f.safe_to_evict == true) return {PodFate::kMoves, BlockReason::kNone, ""};
  switch (f.controller) {
    case PodDrainFacts::Controller::kNone:
      return Blocks(BlockReason::kNotReplicated, pod, "has no controller to recreate it elsewhere");
    case PodDrainFacts::Controller::kGone:
      return Blocks(BlockReason::kControllerNotFound, pod,
                    absl::StrCat("has a controller (", pod.owner->kind, " ", pod.owner->name,
                                 ") that no longer exists"));
    case PodDrainFacts::Controller::kCustom:
      if (rules.skip_nodes_with_custom_controller_pods) {
        return Blocks(BlockReason::kCustomController, pod,
                      absl::StrCat("is owned by a ", pod.owner->kind,
                                   ", a controller of a kind not known to recreate it "
                                   "(--skip-nodes-with-custom-controller-pods)"));
      }
      break;
    case PodDrainFacts::Controller::kExists:
      break;
  }
  if (rules.skip_nodes_with_system_pods && pod.namespace_name == "kube-system" &&
      f.budgets.empty()) {
    return Blocks(BlockReason::kUnmovableKubeSystemPod, pod,
                  "is a kube-system pod that no PodDisruptionBudget covers "
                  "(--skip-nodes-with-system-pods)");
  }
  if (rules.skip_nodes_with_local_storage && f.local_storage) {
    return Blocks(BlockReason::kLocalStorageRequested, pod,
                  "uses local storage (emptyDir or hostPath) not declared in "
                  "safe-to-evict-local-volumes (--skip-nodes-with-local-storage)");
  }
  return {PodFate::kMoves, BlockReason::kNone, ""};
}

}  // namespace gpua
