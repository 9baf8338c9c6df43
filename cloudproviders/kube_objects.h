// Kubernetes Pods and Nodes, as `kubectl get -o json` (or YAML) prints them, decoded into
// the estimator's model. Every tool of the project reads objects through here.
#ifndef GPUA_CLOUDPROVIDERS_KUBE_OBJECTS_H_
#define GPUA_CLOUDPROVIDERS_KUBE_OBJECTS_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cloudproviders/json_reader.h"
#include "estimator/node.h"
#include "estimator/pod.h"

namespace gpua {

// Parses a JSON document or a YAML stream (one or more documents). A `List` or `*List`
// object is flattened into its items. `source` names the input in errors.
absl::StatusOr<std::vector<nlohmann::json>> ParseObjects(absl::string_view text,
                                                         absl::string_view source);

// Converts YAML to the JSON it denotes: quoted scalars stay strings, plain ones become
// numbers, booleans or null where YAML 1.2's core schema says so.
absl::StatusOr<nlohmann::json> YamlToJson(absl::string_view text, absl::string_view source);

// Never fails: a pod that cannot be read whole comes back with `invalid` set to an error
// naming the pod and the field, so it is reported rather than planned for or dropped.
PodSpec DecodePod(const JsonReader& object);
PodSpec DecodePod(const nlohmann::json& object);

// The owner reference marked controller in `metadata` (ownerReferences), if any.
absl::StatusOr<std::optional<OwnerReference>> DecodeControllerRef(const JsonReader& meta);

// A Node object as a template for new nodes; allocatable is required.
absl::StatusOr<NodeTemplate> DecodeNodeTemplate(const JsonReader& node);

// A Pod as the controller's cache keeps it: the scheduling model and the status it needs.
struct PodObject {
  PodSpec spec;  // `invalid` set when it could not be read whole
  std::string phase;
  bool unschedulable = false;  // condition PodScheduled=False with reason Unschedulable
  std::string nominated_node;
  std::string resource_version;
  // What draining a node needs to know of its pods.
  absl::Time created = absl::InfinitePast();  // metadata.creationTimestamp
  bool terminating = false;                   // metadata.deletionTimestamp is set
  bool mirror = false;  // a static pod's mirror (kubernetes.io/config.mirror): not evictable
  // cluster-autoscaler.kubernetes.io/safe-to-evict: true, false, or not said.
  std::optional<bool> safe_to_evict;
  // An emptyDir or hostPath volume not named in the safe-to-evict-local-volumes annotation.
  bool local_storage = false;
};
PodObject DecodePodObject(const JsonReader& object);
PodObject DecodePodObject(const nlohmann::json& object);

// A Node as the controller's cache keeps it.
struct NodeObject {
  Node node;  // name, labels, taints, allocatable, unschedulable
  Labels annotations;
  ResourceList capacity;
  std::string provider_id;
  bool ready = false;   // condition Ready=True
  std::string created;  // metadata.creationTimestamp, as sent
  std::string resource_version;
};
// Errors name the node and the field.
absl::StatusOr<NodeObject> DecodeNode(const JsonReader& object);
absl::StatusOr<NodeObject> DecodeNode(const nlohmann::json& object);

// A policy/v1 PodDisruptionBudget: which pods it covers and how many may go now.
struct PdbObject {
  std::string namespace_name;
  std::string name;
  std::optional<LabelSelector> selector;  // absent: selects no pod
  int32_t disruptions_allowed = 0;
  std::string resource_version;
  // True when it covers `pod` (same namespace, selector matches).
  bool Covers(const PodSpec& pod) const;
};
absl::StatusOr<PdbObject> DecodePdb(const JsonReader& object);
absl::StatusOr<PdbObject> DecodePdb(const nlohmann::json& object);

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

// True for pods the scheduler still has to place: no node yet and not finished.
bool IsPending(const nlohmann::json& pod);
// True for a Pod object (or an object without a kind, read as one).
bool IsPodObject(const nlohmann::json& object);

// The PodGroups among the objects (Volcano scheduling.volcano.sh and coscheduling
// scheduling.x-k8s.io): namespace/name -> spec.minMember.
absl::flat_hash_map<std::string, int32_t> PodGroupMinMembers(
    const std::vector<nlohmann::json>& objects);
// Sets the gang size of pods whose gang is one of these groups and says none itself.
void ApplyPodGroups(const absl::flat_hash_map<std::string, int32_t>& min_members,
                    std::vector<PodSpec>& pods);

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_KUBE_OBJECTS_H_
