#include "autoscaler/controller/loop_schedule.h"

#include <algorithm>

namespace gpua {

void LoopSchedule::LoopStarted(absl::Time now) {
  last_start_ = now;
  first_arrival_.reset();
  if (wake_at_ <= now) wake_at_ = absl::InfiniteFuture();
}

void LoopSchedule::PodArrived(absl::Time now) {
  if (!first_arrival_.has_value()) first_arrival_ = now;
  last_arrival_ = now;
}

void LoopSchedule::WakeAt(absl::Time at) { wake_at_ = std::min(wake_at_, at); }

absl::Time LoopSchedule::Next() const {
  absl::Time next =
      last_start_ == absl::InfinitePast() ? absl::InfinitePast() : last_start_ + scan_interval_;
  if (first_arrival_.has_value()) {
    next = std::min(next, std::min(last_arrival_ + quiet_, *first_arrival_ + max_batch_));
  }
  return std::min(next, wake_at_);
}

}  // namespace gpua
