// Warm capacity, as cluster-autoscaler's CapacityBuffer pod injection has it: each buffer of
// the active-capacity strategy becomes placeholder pods of its PodTemplate's shape, as many
// as its replicas say (its replicas-schedule annotation, where a window holds now), capped by
// its limits. Scale-up plans them after the pods that wait, so nodes come up for the room
// they need; scale-down keeps the room they take on the nodes that stay. They are never in
// the cluster: nothing is written to them, and no real pod waits for them.
#ifndef GPUA_AUTOSCALER_CONTROLLER_PLANNING_BUFFER_PODS_H_
#define GPUA_AUTOSCALER_CONTROLLER_PLANNING_BUFFER_PODS_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "autoscaler/controller/model/cluster_view.h"

namespace gpua {

struct BufferPods {
  std::vector<PodPtr> pods;  // buffer by buffer
  struct Problem {
    CapacityBufferPtr buffer;
    std::string message;  // names the buffer and the field
  };
  std::vector<Problem> problems;  // buffers that hold no capacity, and why
  // When a schedule's count may change next: the loop should run then.
  absl::Time next_change = absl::InfiniteFuture();
};

// Whether a pod is a placeholder, not a pod of the cluster.
inline bool IsPlaceholder(const PodObject& pod) { return !pod.capacity_buffer.empty(); }

class CapacityBufferPods {
 public:
  // A buffer holds at most `max_per_buffer` placeholders: a typo of replicas: 100000 must
  // not ask for a fleet.
  explicit CapacityBufferPods(int max_per_buffer = 500) : max_per_buffer_(max_per_buffer) {}

  // The placeholders at `now`. Those of a buffer whose spec and template did not change are
  // the same objects from loop to loop, so what is kept per pod (nominations) holds.
  BufferPods Resolve(const ClusterView& view, absl::Time now);

 private:
  struct Made {
    std::string buffer_version;
    std::string template_version;
    std::vector<PodPtr> pods;  // as many as were ever needed; a prefix is used
  };
  const int max_per_buffer_;
  absl::flat_hash_map<std::string, Made> made_;  // by buffer namespace/name
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_PLANNING_BUFFER_PODS_H_
