// Time as the controller, the simulated cloud and the simulator see it: real, or a manual
// clock a test or a simulation moves forward, so an hour of cloud behaviour runs in
// milliseconds.
#ifndef GPUA_CLOUDPROVIDERS_CLOCK_H_
#define GPUA_CLOUDPROVIDERS_CLOCK_H_

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gpua {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
  // Waits `d`: really, or by moving a manual clock on.
  virtual void SleepFor(absl::Duration d) = 0;
};

class RealClock : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
  void SleepFor(absl::Duration d) override { absl::SleepFor(d); }
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

#endif  // GPUA_CLOUDPROVIDERS_CLOCK_H_
