// The workload controllers that own pods (a pod whose controller exists is recreated
// elsewhere when its node goes; one without is not), and DaemonSets, whose pod every
// matching node runs.
#ifndef GPUA_KUBEOBJECTS_WORKLOADS_H_
#define GPUA_KUBEOBJECTS_WORKLOADS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "estimator/pod.h"
#include "kubeobjects/json_reader.h"

namespace gpua {

// A ReplicaSet, StatefulSet, Job or ReplicationController, as far as draining needs it.
struct WorkloadObject {
  std::string kind;
  std::string namespace_name;
  std::string name;
  std::string uid;
  int32_t replicas = 0;                 // spec.replicas; a Job's spec.parallelism
  std::optional<OwnerReference> owner;  // its own controller (a Deployment, a CronJob)
  std::string resource_version;
  std::string Key() const { return namespace_name + "/" + name; }
};
// `kind` is the kind listed ("ReplicaSet", "StatefulSet", "Job", "ReplicationController").
absl::StatusOr<WorkloadObject> DecodeWorkload(const JsonReader& object, absl::string_view kind);

// True when `owner` is the object the reference names (same kind, name and uid): a pod
// whose controller reference names a deleted-and-recreated object is not its.
bool Owns(const WorkloadObject& owner, const OwnerReference& ref);

// An apps/v1 DaemonSet: the pod every matching node runs (its requests come off every new
// node of a group it would run on).
struct DaemonSetObject {
  std::string namespace_name;
  std::string name;
  PodSpec pod;  // from spec.template
  std::string resource_version;
};
absl::StatusOr<DaemonSetObject> DecodeDaemonSet(const JsonReader& object);
absl::StatusOr<DaemonSetObject> DecodeDaemonSet(const nlohmann::json& object);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_WORKLOADS_H_
