// Cluster API's objects as a provider of node groups reads them (cluster.x-k8s.io, v1beta1 and
// v1beta2 alike): the scalable resources a node group is made of (MachineDeployment,
// MachineSet, MachinePool) and the Machines behind its nodes. Annotations are kept as they are:
// what they mean (sizes, capacity, options) is the provider's to read, so that one that does
// not parse is reported on its object and skips its group alone.
#ifndef GPUA_KUBEOBJECTS_CLUSTER_API_H_
#define GPUA_KUBEOBJECTS_CLUSTER_API_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "estimator/labels.h"
#include "estimator/pod.h"
#include "estimator/resource_list.h"
#include "kubeobjects/json_reader.h"

namespace gpua {

enum class CapiKind { kMachineDeployment, kMachineSet, kMachinePool };
inline constexpr CapiKind kCapiScalableKinds[] = {CapiKind::kMachineDeployment,
                                                  CapiKind::kMachineSet, CapiKind::kMachinePool};
absl::string_view CapiKindName(CapiKind kind);      // "MachineDeployment"
absl::string_view CapiKindResource(CapiKind kind);  // "machinedeployments"

// The infrastructure machine template a scalable resource's Machines are made from
// (spec.template.spec.infrastructureRef): v1beta1 names its apiVersion, v1beta2 its apiGroup.
struct CapiInfraRef {
  std::string group;
  std::string version;  // empty: the group's preferred version
  std::string kind;     // AWSMachineTemplate, Metal3MachineTemplate, ...
  std::string name;
};

// A MachineDeployment, MachineSet or MachinePool.
struct CapiScalable {
  CapiKind kind = CapiKind::kMachineDeployment;
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string cluster_name;         // spec.clusterName
  std::optional<int32_t> replicas;  // spec.replicas; unset before a controller defaults it
  Labels labels;
  Labels annotations;
  Labels template_labels;  // spec.template.metadata.labels: what its nodes will carry
  std::optional<OwnerReference> controller;  // a MachineSet's MachineDeployment
  std::vector<std::string> provider_ids;     // a MachinePool's spec.providerIDList
  std::optional<CapiInfraRef> infrastructure;
  bool deleting = false;  // metadata.deletionTimestamp is set
  std::string Key() const { return namespace_name + "/" + name; }
};
// `kind` is the collection it was listed from.
absl::StatusOr<CapiScalable> DecodeCapiScalable(const JsonReader& object, CapiKind kind);

struct CapiMachine {
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string provider_id;  // spec.providerID; empty until its infrastructure has one
  std::string phase;        // status.phase: Pending, Provisioning, Running, Deleting, Failed
  // status.failureReason and failureMessage (v1beta1), or the same under
  // status.deprecated.v1beta1 (v1beta2): set when the Machine failed for good.
  std::string failure_reason;
  std::string failure_message;
  std::string node_name;  // status.nodeRef.name
  absl::Time created = absl::InfinitePast();
  bool deleting = false;
  Labels annotations;
  std::optional<OwnerReference> controller;  // its MachineSet or MachinePool
  bool failed() const { return phase == "Failed" || !failure_reason.empty(); }
  std::string Key() const { return namespace_name + "/" + name; }
};
absl::StatusOr<CapiMachine> DecodeCapiMachine(const JsonReader& object);

// An infrastructure machine template, for its status.capacity: what a node made from it
// offers, which providers that opt in to Cluster API's autoscaling-from-zero contract publish.
struct CapiInfraTemplate {
  std::string namespace_name;
  std::string name;
  std::string resource_version;
  ResourceList capacity;  // empty when the provider publishes none
};
absl::StatusOr<CapiInfraTemplate> DecodeCapiInfraTemplate(const JsonReader& object,
                                                          absl::string_view kind);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_CLUSTER_API_H_
