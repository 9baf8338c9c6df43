// ResourceClaims and ResourceClaimTemplates (resource.k8s.io v1 and v1beta2, with requests
// under `exactly` or `firstAvailable`; v1beta1, with a request's fields inline), and a pod's
// spec.resourceClaims with status.resourceClaimStatuses.
#ifndef GPUA_KUBEOBJECTS_RESOURCE_CLAIMS_H_
#define GPUA_KUBEOBJECTS_RESOURCE_CLAIMS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "estimator/dra/claim.h"
#include "kubeobjects/json_reader.h"

namespace gpua {

// Errors name the object and the field ("ResourceClaim ns/x: spec.devices.requests[0]
// .exactly.count: must be at least 1").
absl::StatusOr<dra::ResourceClaim> DecodeResourceClaim(const JsonReader& object);
absl::StatusOr<dra::ResourceClaimTemplate> DecodeResourceClaimTemplate(const JsonReader& object);

// `pod` is the whole Pod object.
absl::StatusOr<std::vector<dra::PodClaimRef>> DecodePodClaimRefs(const JsonReader& pod);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_RESOURCE_CLAIMS_H_
