// Why a node's billed GPUs sit idle: what a person would change to stop paying for them. Read
// off the node's state and what scale-down judged of it this loop; gpu_autoscaler's idle-GPU
// metric and `simulate`'s report file idle GPUs by it.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_IDLE_CAUSE_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_IDLE_CAUSE_H_

#include <array>
#include <cstddef>

#include "absl/strings/string_view.h"
#include "autoscaler/controller/scaledown/scale_down_planner.h"

namespace gpua {

enum class IdleCause {
  kStarting,        // booting, its GPUs not yet advertised, or new for pods yet to move there
  kIdleTimeout,     // unneeded, waiting out its unneeded time (or its turn, or a cooldown)
  kPodsCannotMove,  // a pod on it may not be moved (safe-to-evict, PDB, gang, payback, ...)
  kWarmCapacity,    // it holds a CapacityBuffer's room
  kFragmentation,   // needed for pods that do not fill it, with nowhere else for them
  kMinSize,         // its group, or the cluster, may not shrink further
  kRemoving,        // being drained and deleted
  kOther,           // scale-down disabled on it, its group not autoscaled, not judged
};
inline constexpr size_t kIdleCauseCount = 8;

// Snake case, as metric labels and JSON keys: "idle_timeout", "pods_cannot_move", ...
absl::string_view IdleCauseName(IdleCause cause);

// What kept a node scale-down judged this loop.
IdleCause IdleCauseOf(const NodeJudgement& judged);

// Idle GPUs (or GPU-hours) of one group, in all and by cause.
struct IdleGpuCount {
  double total = 0;
  std::array<double, kIdleCauseCount> by_cause{};
  void Add(IdleCause cause, double gpus) {
    total += gpus;
    by_cause[static_cast<size_t>(cause)] += gpus;
  }
  double of(IdleCause cause) const { return by_cause[static_cast<size_t>(cause)]; }
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_IDLE_CAUSE_H_
