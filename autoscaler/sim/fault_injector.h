// The dice and the tally of a fault soak: whether a call fails, when the next fault in time
// comes, how many of each kind were injected, and whether the controller process is dead
// (a restart in the middle of its work: from the chosen action on, nothing it does reaches
// the cluster or the cloud, until the simulation starts a new one).
#ifndef GPUA_AUTOSCALER_SIM_FAULT_INJECTOR_H_
#define GPUA_AUTOSCALER_SIM_FAULT_INJECTOR_H_

#include <array>
#include <cstdint>
#include <random>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "autoscaler/sim/fault_profile.h"

namespace gpua::sim {

class FaultInjector {
 public:
  FaultInjector(FaultProfile profile, uint64_t seed) : profile_(profile), rng_(seed) {}

  const FaultProfile& profile() const { return profile_; }
  bool Enabled(FaultKind kind) const { return profile_.rate(kind).Active(); }
  // True (and counted) when the call fault `kind` happens to this call.
  bool Roll(FaultKind kind);
  void Count(FaultKind kind) { ++counts_[static_cast<size_t>(kind)]; }
  const std::array<int64_t, kFaultKindCount>& counts() const { return counts_; }
  // When the fault in time `kind` comes next after `now` (exponential gaps around its mean);
  // InfiniteFuture when it never does.
  absl::Time NextAfter(FaultKind kind, absl::Time now);
  double Uniform() { return std::uniform_real_distribution<double>(0, 1)(rng_); }
  // 0..n-1
  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  // Every write and provider change calls this first: an error when the process is dead,
  // or dies at this one. `what` names the action, for the tally of where restarts hit.
  absl::Status Act(const std::string& what);
  // The process dies at the `actions`-th action from now.
  void ArmCrash(int actions) { crash_in_ = actions; }
  bool crash_armed() const { return crash_in_ > 0; }
  // True once, after the process died: the caller starts a new one.
  bool TakeDeath();
  const std::string& died_at() const { return died_at_; }

 private:
  FaultProfile profile_;
  std::mt19937_64 rng_;
  std::array<int64_t, kFaultKindCount> counts_{};
  int crash_in_ = 0;
  bool dead_ = false;
  std::string died_at_;
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_FAULT_INJECTOR_H_
