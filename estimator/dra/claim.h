// What a pod asks of DRA: device classes, the requests of a ResourceClaim (or of the template
// a claim is made from) and what a claim has been given. Field names follow resource.k8s.io/v1.
#ifndef GPUA_ESTIMATOR_DRA_CLAIM_H_
#define GPUA_ESTIMATOR_DRA_CLAIM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "estimator/cel/cel_program.h"
#include "estimator/dra/pod_claim_ref.h"
#include "estimator/labels.h"

namespace gpua::dra {

// A CEL selector, compiled when it is read. One that does not compile is kept with its error:
// a request that uses it cannot be planned, and the event says which expression and why.
struct DeviceSelector {
  std::string expression;
  std::shared_ptr<const cel::Program> program;  // null when `error` is set
  absl::Status error;
};

struct DeviceClass {
  std::string name;
  std::vector<DeviceSelector> selectors;
  // KEP-5004: a pod asking this extended resource (nvidia.com/gpu: 2) gets that many devices
  // of this class through a claim the scheduler makes for it.
  std::string extended_resource_name;
  std::string resource_version;
};

struct DeviceToleration {
  std::string key;           // empty with Exists: every key
  std::string op = "Equal";  // Equal or Exists
  std::string value;
  std::string effect;  // empty: every effect

  bool Tolerates(absl::string_view taint_key, absl::string_view taint_value,
                 absl::string_view taint_effect) const;
};

enum class AllocationMode { kExactCount, kAll };

// ExactDeviceRequest, and each firstAvailable sub-request.
struct ExactRequest {
  std::string name;  // the sub-request's own name; empty for `exactly`
  std::string device_class_name;
  std::vector<DeviceSelector> selectors;
  AllocationMode mode = AllocationMode::kExactCount;
  int64_t count = 1;
  bool admin_access = false;
  std::vector<DeviceToleration> tolerations;
};

struct DeviceRequest {
  std::string name;
  // Exactly one shape: `exactly` (one entry), or `firstAvailable` (several, tried in order).
  std::vector<ExactRequest> alternatives;
  bool first_available = false;
};

// All devices of the named requests (every request when empty) share this attribute's value.
struct DeviceConstraint {
  std::vector<std::string> requests;
  std::string match_attribute;  // fully qualified
};

struct ClaimSpec {
  std::vector<DeviceRequest> requests;
  std::vector<DeviceConstraint> constraints;
  // Equal for two specs that ask alike (the decoder's canonical text of spec.devices): pods
  // whose own claims ask alike are planned as one class.
  std::string fingerprint;
};

struct AllocatedDevice {
  std::string request;  // "request" or "request/subrequest"
  std::string driver;
  std::string pool;
  std::string device;
  bool admin_access = false;
};

// status.allocation: the devices given, and the nodes that can use them.
struct ClaimAllocation {
  std::vector<AllocatedDevice> devices;
  std::optional<NodeSelector> node_selector;  // absent: every node
};

struct ResourceClaim {
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::shared_ptr<const ClaimSpec> spec;
  std::shared_ptr<const ClaimAllocation> allocation;  // null: not allocated
  std::vector<std::string> reserved_for;              // uids of the pods using it
  std::string Key() const { return namespace_name + "/" + name; }
};

struct ResourceClaimTemplate {
  std::string namespace_name;
  std::string name;
  std::string resource_version;
  std::shared_ptr<const ClaimSpec> spec;
  std::string Key() const { return namespace_name + "/" + name; }
};

// One entry of a pod's spec.resourceClaims, resolved against the cluster's claims and
// templates.
struct PodClaim {
  std::string name;       // the pod's name for it
  std::string claim_key;  // namespace/name of its ResourceClaim; empty until one exists
  std::shared_ptr<const ClaimSpec> spec;
  std::shared_ptr<const ClaimAllocation> allocation;  // null: not allocated yet
  bool shared = false;  // named by resourceClaimName: other pods may use it too
  // Set when the claim or its template cannot be found or read; the pod is then not
  // planned, with this as the reason.
  absl::Status unresolved;
};

}  // namespace gpua::dra

#endif  // GPUA_ESTIMATOR_DRA_CLAIM_H_
