// The kinds the controller reads besides pods, nodes, budgets and DaemonSets: the workload
// controllers that own pods (a pod whose controller exists is recreated elsewhere when its
// node goes; one without is not), ConfigMaps and Leases. Errors name kind,
// namespace/name and field.
#ifndef GPUA_AUTOSCALER_KUBE_TYPED_OBJECTS_H_
#define GPUA_AUTOSCALER_KUBE_TYPED_OBJECTS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cloudproviders/api_time.h"
#include "cloudproviders/json_reader.h"
#include "estimator/labels.h"
#include "estimator/pod.h"

namespace gpua::kube {

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

struct ConfigMapObject {
  std::string namespace_name;
  std::string name;
  Labels data;
  std::string resource_version;
};
absl::StatusOr<ConfigMapObject> DecodeConfigMap(const JsonReader& object);

// A coordination.k8s.io/v1 Lease.
struct LeaseObject {
  std::string namespace_name;
  std::string name;
  std::string holder;  // spec.holderIdentity; empty: released
  absl::Duration lease_duration = absl::ZeroDuration();
  absl::Time acquire_time = absl::InfinitePast();
  absl::Time renew_time = absl::InfinitePast();
  int32_t transitions = 0;
  std::string resource_version;
};
absl::StatusOr<LeaseObject> DecodeLease(const JsonReader& object);

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_KUBE_TYPED_OBJECTS_H_
