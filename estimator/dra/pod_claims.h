// A pod's claims resolved against the cluster's ResourceClaims and ResourceClaimTemplates:
// what each needs, and whether it is already allocated.
#ifndef GPUA_ESTIMATOR_DRA_POD_CLAIMS_H_
#define GPUA_ESTIMATOR_DRA_POD_CLAIMS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "estimator/dra/allocator.h"
#include "estimator/dra/claim.h"

namespace gpua::dra {

// The cluster's claims and templates by namespace/name.
struct ClaimCatalog {
  absl::flat_hash_map<std::string, std::shared_ptr<const ResourceClaim>> claims;
  absl::flat_hash_map<std::string, std::shared_ptr<const ResourceClaimTemplate>> templates;
};

// What a pod asks of DRA, resolved: its claims, and the device classes they name.
struct PodDevices {
  std::vector<PodClaim> claims;
  std::shared_ptr<const DeviceClasses> classes;
};

// One PodClaim per reference, in order. A claim named directly is shared; a template's claim
// is the pod's own. A claim or template that cannot be found leaves the entry `unresolved`
// with a message naming it: the pod is reported, never planned on a guess.
std::vector<PodClaim> ResolvePodClaims(const std::string& namespace_name,
                                       const std::vector<PodClaimRef>& refs,
                                       const ClaimCatalog& catalog);

}  // namespace gpua::dra

#endif  // GPUA_ESTIMATOR_DRA_POD_CLAIMS_H_
