// The estimator's model of a pod: what kube-scheduler looks at to place it.
#ifndef GPUA_ESTIMATOR_POD_H_
#define GPUA_ESTIMATOR_POD_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "base/memo.h"
#include "estimator/dra/pod_claim_ref.h"
#include "estimator/labels.h"
#include "estimator/resource_list.h"
#include "estimator/resource_vector.h"
#include "estimator/taints.h"

namespace gpua {

namespace dra {
struct PodDevices;
}  // namespace dra

struct OwnerReference {
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
};

struct HostPort {
  std::string protocol = "TCP";
  std::string host_ip;  // empty or 0.0.0.0: every address
  int32_t port = 0;
  // Two pods conflict on a port when protocol and port match and either binds every
  // address or both bind the same one.
  bool ConflictsWith(const HostPort& other) const;
};

// A required (anti-)affinity term. Namespaces: the listed ones, or the pod's own when the
// list is empty and there is no namespace selector; `all_namespaces` when the namespace
// selector is empty ({}), which selects every namespace.
struct PodAffinityTerm {
  std::optional<LabelSelector> selector;  // absent: matches no pod
  std::vector<std::string> namespaces;
  bool all_namespaces = false;
  std::string topology_key;
};

// whenUnsatisfiable: DoNotSchedule constraints; ScheduleAnyway ones never block.
struct TopologySpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  std::optional<LabelSelector> selector;  // absent: matches no pod
  int32_t min_domains = 1;
};

// A gang: pods that must start together (Volcano, coscheduling and Kueue pod groups).
struct GangRef {
  std::string name;        // namespace/name of the pod group
  int32_t min_member = 0;  // how many must run together; 0: all of its pending pods
  // A node label all of the gang's nodes must carry, one value for all (an interconnect
  // domain such as an NVLink clique); empty: none asked for.
  std::string required_label;
};

struct Container {
  std::string name;
  ResourceList requests;
  bool restart_always = false;  // an init container run as a sidecar
};

// kube-scheduler's effective request: per resource, the larger of (app containers plus
// sidecars) and the largest init container's need at its start (itself plus the sidecars
// started before it), plus the pod overhead.
ResourceList EffectiveRequests(const std::vector<Container>& containers,
                               const std::vector<Container>& init_containers,
                               const ResourceList& overhead);

struct PodSpec {
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::optional<OwnerReference> owner;  // the controller, if any
  int32_t priority = 0;
  std::string scheduler_name = "default-scheduler";
  std::string node_name;  // where it runs; empty while pending

  Labels labels;
  ResourceList requests;  // effective, see EffectiveRequests
  Labels node_selector;
  std::optional<NodeSelector> required_node_affinity;
  std::vector<Toleration> tolerations;
  std::vector<HostPort> host_ports;
  std::vector<PodAffinityTerm> affinity;
  std::vector<PodAffinityTerm> anti_affinity;
  std::vector<TopologySpreadConstraint> spread;

  // Per extended resource, the most any one container (app or init) asks for: a time-sliced
  // or MPS GPU refuses a container that asks for more than one share.
  ResourceList largest_container_request;
  // GPU memory the pod needs (annotation gpu-autoscaler.io/gpu-memory): it fits an MPS
  // share only if the share has that much. 0: not stated.
  int64_t gpu_memory_mib = 0;
  // The CUDA version its image needs (annotation gpu-autoscaler.io/cuda-version); empty:
  // not stated.
  std::string cuda_version;
  std::optional<GangRef> gang;
  // spec.resourceClaims, with the claims status.resourceClaimStatuses says were made.
  std::vector<dra::PodClaimRef> claim_refs;
  // The claims resolved against the cluster's claims, templates and device classes (by the
  // caller that knows them); null when the pod asks for no DRA devices.
  std::shared_ptr<const dra::PodDevices> devices;

  // Set when the object could not be read whole; such a pod is reported unschedulable with
  // this message and never planned for.
  absl::Status invalid;

  Memo<std::optional<ResourceVector>> fixed_requests;  // FixedRequests
  Memo<std::string> node_selection_key;                // NodeSelectionKey
  Memo<std::string> equivalence_key;                   // EquivalenceKey

  std::string Key() const { return namespace_name + "/" + name; }
  // Whether a term of this pod's selects `other` (its labels and namespace).
  bool TermSelects(const PodAffinityTerm& term, const PodSpec& other) const;
};

// A string equal for two pods exactly when the scheduler cannot tell them apart: the same
// controller, namespace, labels and scheduling-relevant spec. Worked out once per pod: a
// pending pod is put in its class every loop until it runs.
const std::string& EquivalenceKey(const PodSpec& pod);

// The pod's requests in the slots every resource catalog shares, when they all have one
// (ResourceCatalog::FixedVector), else nullopt. Worked out once per pod: every loop's
// snapshots and utilization ask for it.
const std::optional<ResourceVector>& FixedRequests(const PodSpec& pod);

// A string equal for two pods when a node's labels, taints and cordon admit both or neither:
// their node selector, required node affinity and tolerations. Worked out once per pod.
const std::string& NodeSelectionKey(const PodSpec& pod);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_POD_H_
