// An entry of a pod's spec.resourceClaims as the pod names it, before it is resolved
// (pod_claims.h): kept on every PodSpec, so this header stays light.
#ifndef GPUA_ESTIMATOR_DRA_POD_CLAIM_REF_H_
#define GPUA_ESTIMATOR_DRA_POD_CLAIM_REF_H_

#include <string>

namespace gpua::dra {

// A claim by name (which other pods may share), or a template the resourceclaim controller
// makes the pod's own claim from; `made_claim` is that claim's name once
// status.resourceClaimStatuses says it was made.
struct PodClaimRef {
  std::string name;
  std::string claim_name;
  std::string template_name;
  std::string made_claim;
  friend bool operator==(const PodClaimRef&, const PodClaimRef&) = default;
};

}  // namespace gpua::dra

#endif  // GPUA_ESTIMATOR_DRA_POD_CLAIM_REF_H_
