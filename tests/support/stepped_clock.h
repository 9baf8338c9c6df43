// A clock the test moves on in steps while other threads sleep on it, so a test of threads
// that wait (leader election's retries and lease expiry) runs in clock time: each step
// happens only once every thread is asleep, so what the threads did between two steps is
// settled when the test looks.
#ifndef GPUA_TESTS_SUPPORT_STEPPED_CLOCK_H_
#define GPUA_TESTS_SUPPORT_STEPPED_CLOCK_H_

#include <algorithm>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/clock.h"

namespace gpua::testing {

class SteppedClock : public Clock {
 public:
  explicit SteppedClock(absl::Time start = absl::FromUnixSeconds(1'800'000'000)) : now_(start) {}

  absl::Time Now() const override {
    absl::MutexLock lock(&mu_);
    return now_;
  }

  // Returns once a step has brought the clock to the deadline, or after a short real wait
  // with the clock short of it, so that a sleeper looping on Now() (SleepUnlessStopped) sees
  // a stop flag; it sleeps again for what is left.
  void SleepFor(absl::Duration d) override {
    absl::MutexLock lock(&mu_);
    const absl::Time until = now_ + d;
    deadlines_.push_back(until);
    const auto reached = [this, until]()
                             ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return now_ >= until; };
    mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Milliseconds(20));
    deadlines_.erase(std::find(deadlines_.begin(), deadlines_.end(), until));
  }

  // Threads asleep on a deadline still ahead: a thread a step woke counts again only once it
  // sleeps again.
  int Sleepers() const {
    absl::MutexLock lock(&mu_);
    int n = 0;
    for (absl::Time t : deadlines_) n += t > now_;
    return n;
  }

  void Step(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    now_ += d;
  }

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
  std::vector<absl::Time> deadlines_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_STEPPED_CLOCK_H_
