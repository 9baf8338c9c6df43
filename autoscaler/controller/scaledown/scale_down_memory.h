// What the scale-down planner keeps from one loop to the next, handed in and taken back.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_SCALE_DOWN_MEMORY_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_SCALE_DOWN_MEMORY_H_

#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "autoscaler/controller/scaledown/pending_replacement.h"
#include "estimator/cluster_snapshot.h"
#include "estimator/static_admissions.h"

namespace gpua {

// When scaling last happened: the cooldowns start from these.
struct CooldownStarts {
  absl::Time last_scale_up = absl::InfinitePast();
  absl::Time last_delete = absl::InfinitePast();
  absl::Time last_failure = absl::InfinitePast();
};

struct ScaleDownMemory {
  // When scaling last happened: the cooldowns start from these. The loop sets them.
  CooldownStarts cooldown_starts;
  // When each node last had its drain simulated, so a bounded loop gets round to all: the
  // one thing kept that changes what a later loop judges first.
  absl::flat_hash_map<std::string, absl::Time> drain_judged_at;
  // The nodes pods may move to, so that their storage is reused.
  ClusterSnapshot snapshot{{}};
  // Which nodes' labels and taints admit which pods.
  StaticAdmissions admissions;
  // The replacement under way, if any: the step starts and ends it, the planner keeps its node.
  std::optional<PendingReplacement> replacement;
  // After one was given up, no other starts before this: its nodes failed to come or to go,
  // and asking again at once would churn.
  absl::Time no_replacement_until = absl::InfinitePast();
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_SCALE_DOWN_MEMORY_H_
