// cluster-autoscaler's CapacityBuffer (autoscaling.x-k8s.io, v1alpha1 and v1beta1 alike) and
// the core/v1 PodTemplate it names: warm capacity, declared as a number of placeholder pods
// of a shape that the nodes must hold on top of the pods that run. A buffer whose spec
// cannot be used is still read, with `problem` saying which field and why, so that it can be
// reported on the object; only an object without a name fails to decode.
#ifndef GPUA_KUBEOBJECTS_CAPACITY_BUFFER_H_
#define GPUA_KUBEOBJECTS_CAPACITY_BUFFER_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "estimator/pod.h"
#include "estimator/resource_list.h"
#include "kubeobjects/json_reader.h"
#include "kubeobjects/replica_schedule.h"

namespace gpua {

// The strategy this autoscaler provisions (placeholder pods); the default when unset.
inline constexpr absl::string_view kActiveCapacityStrategy = "buffer.x-k8s.io/active-capacity";

struct CapacityBufferObject {
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string provisioning_strategy;  // defaulted to kActiveCapacityStrategy
  std::string pod_template;           // spec.podTemplateRef.name; empty when unset
  std::string scalable_kind;          // spec.scalableRef.kind; empty when unset
  std::optional<int32_t> replicas;
  std::optional<int32_t> percentage;
  std::optional<ResourceList> limits;
  // The gpu-autoscaler.io/replicas-schedule annotation: replicas by time of day.
  std::optional<ReplicaSchedule> schedule;
  std::string problem;  // set: the spec cannot be used, and why (naming the field)

  std::string Key() const { return namespace_name + "/" + name; }
};
absl::StatusOr<CapacityBufferObject> DecodeCapacityBuffer(const JsonReader& object);

struct PodTemplateObject {
  std::string namespace_name;
  std::string name;
  std::string resource_version;
  // `template` read as a pod named after the PodTemplate; `invalid` set when it cannot be.
  PodSpec pod;
};
absl::StatusOr<PodTemplateObject> DecodePodTemplate(const JsonReader& object);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_CAPACITY_BUFFER_H_
