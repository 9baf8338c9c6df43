// Waits, in real time, for something another thread brings about (an informer catching up).
#ifndef GPUA_TESTS_SUPPORT_EVENTUALLY_H_
#define GPUA_TESTS_SUPPORT_EVENTUALLY_H_

#include <functional>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace gpua::testing {

// True as soon as `condition` holds; false if it still does not after `within`.
inline bool Eventually(const std::function<bool()>& condition,
                       absl::Duration within = absl::Seconds(5)) {
  const absl::Time until = absl::Now() + within;
  while (absl::Now() < until) {
    if (condition()) return true;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return condition();
}

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_EVENTUALLY_H_
