#include "base/clock.h"

#include <algorithm>

#include "absl/time/clock.h"

namespace gpua {

bool Clock::SleepUnlessStopped(absl::Duration d, const std::atomic<bool>& stop) {
  const absl::Time until = Now() + d;
  for (absl::Time now = Now(); !stop && now < until; now = Now()) {
    SleepFor(std::min(until - now, absl::Milliseconds(20)));
  }
  return !stop;
}

absl::Time RealClock::Now() const { return absl::Now(); }

void RealClock::SleepFor(absl::Duration d) { absl::SleepFor(d); }

}  // namespace gpua
