// The DRA objects of a file or a cluster gathered in one place (DeviceClasses, ResourceClaims,
// ResourceClaimTemplates, ResourceSlices), and pods' claims resolved against them.
#ifndef GPUA_KUBEOBJECTS_DRA_OBJECTS_H_
#define GPUA_KUBEOBJECTS_DRA_OBJECTS_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "estimator/dra/pod_claims.h"
#include "estimator/dra/resource_slice.h"
#include "estimator/pod.h"

namespace gpua {

struct DraObjects {
  std::shared_ptr<dra::DeviceClasses> classes = std::make_shared<dra::DeviceClasses>();
  dra::ClaimCatalog catalog;
  std::vector<std::shared_ptr<const dra::ResourceSlice>> slices;
  // Claims and templates that could not be read, by namespace/name: a pod that names one
  // is told why, not that it is missing.
  absl::flat_hash_map<std::string, std::string> unreadable;
  // Extended resources some node or template advertises through a device plugin: a pod's
  // request for one of these is not turned into devices (KEP-5004 applies only where no
  // device plugin advertises the resource).
  absl::flat_hash_set<std::string> advertised;
  // The claim specs made for extended-resource requests, one per class and count, so the
  // pods asking alike stay one class.
  absl::flat_hash_map<std::string, std::shared_ptr<const dra::ClaimSpec>> extended_specs;
};

inline bool IsDraKind(absl::string_view kind) {
  return kind == "DeviceClass" || kind == "ResourceClaim" || kind == "ResourceClaimTemplate" ||
         kind == "ResourceSlice";
}

// Adds one object of a DRA kind. An object that cannot be read is kept out with the error
// returned (naming it); a claim or template is also noted in `unreadable`.
absl::Status AddDraObject(const nlohmann::json& object, DraObjects& into);

// A pod's claims resolved, before they are set on it: `devices` is null when it asks for
// none; `served_requests` are the extended resources its devices serve instead.
struct PodDeviceResolution {
  std::shared_ptr<dra::PodDevices> devices;
  std::vector<std::string> served_requests;
};
PodDeviceResolution ResolvePodDevices(DraObjects& dra, const PodSpec& pod);
// Sets `devices` on the pod and takes the served requests off it.
void ApplyPodDevices(PodDeviceResolution resolved, PodSpec& pod);

// Resolves the pod's claims (claim_refs) and sets its `devices`. A request for an extended
// resource that a DeviceClass names (spec.extendedResourceName, or the implicit
// deviceclass.resource.kubernetes.io/<class>) and no device plugin advertises becomes a claim
// for that many devices of the class, as the scheduler makes one (KEP-5004), and leaves the
// pod's requests. A pod with neither is left as it is.
void AttachPodDevices(DraObjects& dra, PodSpec& pod);

// The class whose devices serve `resource`, or null.
const dra::DeviceClass* ClassForExtendedResource(const dra::DeviceClasses& classes,
                                                 absl::string_view resource);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_DRA_OBJECTS_H_
