// Pods as `kubectl get -o json` (or YAML) prints them, decoded into the estimator's model
// (requests as kube-scheduler computes them, selectors, affinity, tolerations, ports, gang,
// GPU and CUDA needs), and the Pod as the controller's cache keeps it: the model plus what
// scheduling status and draining need.
#ifndef GPUA_KUBEOBJECTS_PODS_H_
#define GPUA_KUBEOBJECTS_PODS_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "estimator/pod.h"
#include "kubeobjects/json_reader.h"

namespace gpua {

// Never fails: a pod that cannot be read whole comes back with `invalid` set to an error
// naming the pod and the field, so it is reported rather than planned for or dropped.
PodSpec DecodePod(const JsonReader& object);
PodSpec DecodePod(const nlohmann::json& object);
// A pod template (a DaemonSet's, a trace's) decoded as the pod it makes, named `name` in
// `namespace_name` ("default" when empty), since a template has no name of its own.
PodSpec DecodePodAs(const JsonReader& object, std::string namespace_name, std::string name);

// A Pod as the controller's cache keeps it: the scheduling model and the status it needs.
// A pod phase from which a pod never runs again: Succeeded or Failed.
inline bool IsFinishedPhase(absl::string_view phase) {
  return phase == "Succeeded" || phase == "Failed";
}

struct PodObject {
  PodSpec spec;  // `invalid` set when it could not be read whole
  std::string phase;
  bool unschedulable = false;  // condition PodScheduled=False with reason Unschedulable
  std::string nominated_node;
  std::string resource_version;
  // What draining a node needs to know of its pods.
  absl::Time created = absl::InfinitePast();  // metadata.creationTimestamp
  // status.startTime: when the kubelet took it on; what a restart loses is counted from here.
  absl::Time started = absl::InfinitePast();
  bool terminating = false;  // metadata.deletionTimestamp is set
  bool mirror = false;       // a static pod's mirror (kubernetes.io/config.mirror): not evictable
  // cluster-autoscaler.kubernetes.io/safe-to-evict: true, false, or not said.
  std::optional<bool> safe_to_evict;
  // An emptyDir on disk (not medium: Memory) or hostPath volume not named in the
  // safe-to-evict-local-volumes annotation.
  bool local_storage = false;
  // spec.terminationGracePeriodSeconds; unset: the API server's default (30 s).
  std::optional<absl::Duration> termination_grace;
  bool daemonset() const { return spec.owner.has_value() && spec.owner->kind == "DaemonSet"; }
  // Succeeded or Failed: it holds no room and never runs again.
  bool finished() const { return IsFinishedPhase(phase); }
  // cluster-autoscaler.kubernetes.io/pod-scale-up-delay: how old the pod must be before it
  // can trigger a scale-up; unset when not given. A value that is not a duration is kept
  // as an error (naming the pod and the annotation) and the default delay applies.
  std::optional<absl::Duration> scale_up_delay;
  std::string scale_up_delay_error;
  // Set on a placeholder of a CapacityBuffer (its namespace/name): a pod the controller made
  // up to hold warm capacity, never in the cluster, so never written to, evicted or counted.
  std::string capacity_buffer;
};

inline constexpr absl::string_view kPodScaleUpDelayAnnotation =
    "cluster-autoscaler.kubernetes.io/pod-scale-up-delay";
PodObject DecodePodObject(const JsonReader& object);
PodObject DecodePodObject(const nlohmann::json& object);

// True for pods the scheduler still has to place: no node yet and not finished.
bool IsPending(const nlohmann::json& pod);
// True for a Pod object (or an object without a kind, read as one).
bool IsPodObject(const nlohmann::json& object);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_PODS_H_
