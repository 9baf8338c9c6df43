// The Events the controller writes, with cluster-autoscaler's reasons (docs/CA-COMPAT.md), and a
// memory that keeps one pod from hearing the same thing every loop.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_EVENTS_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_EVENTS_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "kubeobjects/pods.h"

namespace gpua {

namespace event_reason {
inline constexpr char kTriggeredScaleUp[] = "TriggeredScaleUp";
inline constexpr char kNotTriggerScaleUp[] = "NotTriggerScaleUp";
inline constexpr char kScaledUpGroup[] = "ScaledUpGroup";
inline constexpr char kFailedToScaleUpGroup[] = "FailedToScaleUpGroup";
inline constexpr char kScaleUpTimedOut[] = "ScaleUpTimedOut";
inline constexpr char kDeleteUnregistered[] = "DeleteUnregistered";
inline constexpr char kDeleteUnregisteredFailed[] = "DeleteUnregisteredFailed";
inline constexpr char kClusterUnhealthy[] = "ClusterUnhealthy";
inline constexpr char kScaleDown[] = "ScaleDown";
inline constexpr char kScaleDownFailed[] = "ScaleDownFailed";
inline constexpr char kScaleDownEmpty[] = "ScaleDownEmpty";
// Ours, on a CapacityBuffer that holds no warm capacity, saying why.
inline constexpr char kFailedToProvisionBuffer[] = "FailedToProvisionBuffer";
// Ours, on a node: broken past its toleration (tainted), its repair begun, deferred (the
// budget, its group's size), and its signal gone before a repair began (untainted).
inline constexpr char kNodeUnhealthy[] = "NodeUnhealthy";
inline constexpr char kRepairingNode[] = "RepairingNode";
inline constexpr char kNodeRepairDeferred[] = "NodeRepairDeferred";
inline constexpr char kNodeRecovered[] = "NodeRecovered";
}  // namespace event_reason

EventRecord PodEvent(const PodSpec& pod, std::string type, std::string reason, std::string message);
EventRecord NodeEvent(const std::string& node, std::string type, std::string reason,
                      std::string message);
// Cluster-wide events go on the status ConfigMap, as cluster-autoscaler's do.
EventRecord StatusEvent(const std::string& namespace_name, const std::string& configmap,
                        std::string type, std::string reason, std::string message);

// Says a pod's NotTriggerScaleUp again only when its reasons change or `repeat` has passed,
// and forgets pods no longer pending.
class PodEventMemory {
 public:
  explicit PodEventMemory(absl::Duration repeat = absl::Minutes(10)) : repeat_(repeat) {}
  bool ShouldSay(const std::string& pod_uid, const std::string& message, absl::Time now);
  // Drops every pod not in `pending`.
  void Keep(const absl::flat_hash_set<std::string>& pending);

 private:
  struct Said {
    std::string message;
    absl::Time at;
  };
  const absl::Duration repeat_;
  absl::flat_hash_map<std::string, Said> said_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_EVENTS_H_
