// Exponential back-off of node groups whose scale-up failed (an API error, instances that
// failed for lack of capacity, nodes that never registered), as cluster-autoscaler does: the
// first failure backs the group off for the initial duration, each further failure while
// the last is recent doubles it up to the maximum, and a group that has not failed for the
// reset timeout starts again from the initial duration. The memory is the process's: after
// a restart a failing group fails again, and is backed off again.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_NODE_GROUP_BACKOFF_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_NODE_GROUP_BACKOFF_H_

#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "autoscaler/controller/model/controller_options.h"

namespace gpua {

struct BackoffInfo {
  std::string error_code;  // "OutOfResource", "CloudProviderError", "ScaleUpTimedOut", ...
  std::string error_message;
  absl::Time until;
};

class NodeGroupBackoff {
 public:
  explicit NodeGroupBackoff(BackoffOptions options) : options_(options) {}

  // Records a failure of `group` at `now` and returns how long it is backed off.
  absl::Duration Fail(const std::string& group, std::string error_code, std::string message,
                      absl::Time now);
  // Set while the group is backed off.
  std::optional<BackoffInfo> Get(const std::string& group, absl::Time now) const;
  // A scale-up that succeeded (its nodes registered): the next failure starts over.
  void Succeeded(const std::string& group);

 private:
  struct Entry {
    BackoffInfo info;
    absl::Duration duration;
    absl::Time last_failure;
  };
  const BackoffOptions options_;
  absl::flat_hash_map<std::string, Entry> entries_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_NODE_GROUP_BACKOFF_H_
