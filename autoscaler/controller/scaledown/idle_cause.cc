#include "autoscaler/controller/scaledown/idle_cause.h"

#include <utility>

namespace gpua {

absl::string_view IdleCauseName(IdleCause cause) {
  switch (cause) {
    case IdleCause::kStarting:
      return "starting";
    case IdleCause::kIdleTimeout:
      return "idle_timeout";
    case IdleCause::kPodsCannotMove:
      return "pods_cannot_move";
    case IdleCause::kWarmCapacity:
      return "warm_capacity";
    case IdleCause::kFragmentation:
      return "fragmentation";
    case IdleCause::kMinSize:
      return "min_size";
    case IdleCause::kRemoving:
      return "removing";
    case IdleCause::kOther:
      break;
  }
  return "other";
}

IdleCause IdleCauseOf(const NodeJudgement& judged) {
  if (judged.unneeded || judged.deferred) return IdleCause::kIdleTimeout;
  // The unremovable reasons that are not about a pod that may not move.
  static constexpr std::pair<absl::string_view, IdleCause> kByReason[] = {
      {"NotUnderutilized", IdleCause::kFragmentation},
      {"NoPlaceToMovePods", IdleCause::kFragmentation},
      {"WarmCapacity", IdleCause::kWarmCapacity},
      {"ReplacingNodes", IdleCause::kStarting},  // new, for pods yet to move onto it
      {"NodeGroupMinSizeReached", IdleCause::kMinSize},
      {"MinimalResourceLimitExceeded", IdleCause::kMinSize},
      {"ScaleDownDisabledAnnotation", IdleCause::kOther},
  };
  for (const auto& [reason, cause] : kByReason) {
    if (judged.reason == reason) return cause;
  }
  // The drain rules' block reasons, GangMember, NotEnoughPdb, DisruptionNotPaidBack.
  return judged.reason.empty() ? IdleCause::kOther : IdleCause::kPodsCannotMove;
}

}  // namespace gpua
