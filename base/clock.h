// Time as every part of the program sees it: real, or a manual clock a test or a
// simulation moves forward, so an hour of cloud behaviour runs in milliseconds. Nothing
// outside base/ reads the system clock itself; it is handed a Clock.
#ifndef GPUA_BASE_CLOCK_H_
#define GPUA_BASE_CLOCK_H_

#include <atomic>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gpua {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
  // Waits `d`: really, or by moving a manual clock on.
  virtual void SleepFor(absl::Duration d) = 0;
  // Waits `d` in short steps, returning early once `stop` is set; false when it was.
  bool SleepUnlessStopped(absl::Duration d, const std::atomic<bool>& stop);
};

class RealClock : public Clock {
 public:
  absl::Time Now() const override;
  void SleepFor(absl::Duration d) override;
};

class ManualClock : public Clock {
 public:
  explicit ManualClock(absl::Time start = absl::FromUnixSeconds(1'800'000'000)) : now_(start) {}
  absl::Time Now() const override {
    absl::MutexLock lock(&mu_);
    return now_;
  }
  void SleepFor(absl::Duration d) override { Advance(d); }
  void Advance(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    now_ += d;
  }

 private:
  mutable absl::Mutex mu_;
  absl::Time now_;
};

}  // namespace gpua

#endif  // GPUA_BASE_CLOCK_H_
