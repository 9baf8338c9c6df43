#include "autoscaler/sim/fault_injector.h"

#include "absl/strings/str_cat.h"

namespace gpua::sim {

bool FaultInjector::Roll(FaultKind kind) {
  const double p = profile_.rate(kind).probability;
  if (p <= 0 || Uniform() >= p) return false;
  Count(kind);
  return true;
}

absl::Time FaultInjector::NextAfter(FaultKind kind, absl::Time now) {
  const absl::Duration every = profile_.rate(kind).every;
  if (every == absl::InfiniteDuration()) return absl::InfiniteFuture();
  std::exponential_distribution<double> gap(1.0 / absl::ToDoubleSeconds(every));
  // At least a second, so a tiny mean cannot stall the clock.
  return now + std::max(absl::Seconds(1), absl::Seconds(gap(rng_)));
}

absl::Status FaultInjector::Act(const std::string& what) {
  if (!dead_ && crash_in_ > 0 && --crash_in_ == 0) {
    dead_ = true;
    died_at_ = what;
    Count(FaultKind::kRestartMidAction);
  }
  if (dead_) return absl::UnavailableError(absl::StrCat(what, ": the controller process is gone"));
  return absl::OkStatus();
}

bool FaultInjector::TakeDeath() {
  if (!dead_) return false;
  dead_ = false;
  return true;
}

}  // namespace gpua::sim
