// When the next loop runs: --scan-interval after the last one began, or sooner when
// unschedulable pods appear. A new pod waits for a quiet moment (a second with no other
// new pod), but never more than ten seconds after the first, so a burst of pods is planned
// in one loop, and a single pod is acted on within about a second. A pod too young to
// trigger a scale-up wakes the loop when it comes of age. Pure: times in, a time out; the
// binary and `simulate` both drive it.
#ifndef GPUA_AUTOSCALER_CONTROLLER_LOOP_SCHEDULE_H_
#define GPUA_AUTOSCALER_CONTROLLER_LOOP_SCHEDULE_H_

#include <optional>

#include "absl/time/time.h"

namespace gpua {

class LoopSchedule {
 public:
  explicit LoopSchedule(absl::Duration scan_interval, absl::Duration quiet = absl::Seconds(1),
                        absl::Duration max_batch = absl::Seconds(10))
      : scan_interval_(scan_interval), quiet_(quiet), max_batch_(max_batch) {}

  void LoopStarted(absl::Time now);
  void PodArrived(absl::Time now);
  void WakeAt(absl::Time at);
  absl::Time Next() const;

 private:
  const absl::Duration scan_interval_;
  const absl::Duration quiet_;
  const absl::Duration max_batch_;
  absl::Time last_start_ = absl::InfinitePast();
  std::optional<absl::Time> first_arrival_;
  absl::Time last_arrival_ = absl::InfinitePast();
  absl::Time wake_at_ = absl::InfiniteFuture();
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_LOOP_SCHEDULE_H_
