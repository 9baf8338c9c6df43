#include <iostream>

#include "absl/synchronization/mutex.h"
#include "autoscaler/cli/app.h"

int main(int argc, char** argv) {
  // Debian builds Abseil without NDEBUG, which leaves the Mutex deadlock detector on: a
  // global graph update on every lock, a few percent of a simulation. Release Abseil has it off.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  gpua::RealClock clock;
  return gpua::RunApp({argv + 1, argv + argc}, {std::cout, std::cerr, clock});
}
