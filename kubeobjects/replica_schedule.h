// A count that follows the time of day, for warm capacity that should be there when the
// day's work starts and gone at night: "07:00-19:00=2,19:00-23:00=1" (or ;-separated), windows of
// UTC time-of-day (an end before its start runs past midnight; "00:00-24:00" is all day), each with
// the count it holds. The first window that holds a time wins; outside every window the schedule
// says nothing and the caller's own count applies. Read from the
// gpu-autoscaler.io/replicas-schedule annotation of a CapacityBuffer and from the warm
// section of the node-group file.
#ifndef GPUA_KUBEOBJECTS_REPLICA_SCHEDULE_H_
#define GPUA_KUBEOBJECTS_REPLICA_SCHEDULE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace gpua {

inline constexpr absl::string_view kReplicasScheduleAnnotation =
    "gpu-autoscaler.io/replicas-schedule";

class ReplicaSchedule {
 public:
  struct Window {
    int start_minute = 0;  // of the UTC day, 0..1439
    int end_minute = 0;    // 1..1440; at or before the start: the window runs past midnight
    int32_t replicas = 0;
  };

  // An error says which window is wrong and why.
  static absl::StatusOr<ReplicaSchedule> Parse(absl::string_view text);

  // The count at `t`; nullopt outside every window.
  std::optional<int32_t> At(absl::Time t) const;
  // When the count may next change after `t`: the next window edge (InfiniteFuture if none).
  absl::Time NextChange(absl::Time t) const;
  const std::vector<Window>& windows() const { return windows_; }
  // The same windows, each count times `factor`.
  ReplicaSchedule Scaled(int32_t factor) const;
  std::string ToString() const;

 private:
  std::vector<Window> windows_;
};

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_REPLICA_SCHEDULE_H_
