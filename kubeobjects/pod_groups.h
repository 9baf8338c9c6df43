// Gang sizes from PodGroup objects: Volcano's (scheduling.volcano.sh) and coscheduling's
// (scheduling.x-k8s.io) say a gang's minMember in the PodGroup, not on its pods.
#ifndef GPUA_KUBEOBJECTS_POD_GROUPS_H_
#define GPUA_KUBEOBJECTS_POD_GROUPS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "estimator/pod.h"

namespace gpua {

// The PodGroups among the objects: namespace/name -> spec.minMember.
absl::flat_hash_map<std::string, int32_t> PodGroupMinMembers(
    const std::vector<nlohmann::json>& objects);
// Sets the gang size of pods whose gang is one of these groups and says none itself.
void ApplyPodGroups(const absl::flat_hash_map<std::string, int32_t>& min_members,
                    std::vector<PodSpec>& pods);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_POD_GROUPS_H_
