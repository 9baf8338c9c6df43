#include "kubeobjects/pod_groups.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kubeobjects/json_reader.h"

namespace gpua {

absl::flat_hash_map<std::string, int32_t> PodGroupMinMembers(
    const std::vector<nlohmann::json>& objects) {
  absl::flat_hash_map<std::string, int32_t> min_members;
  for (const nlohmann::json& o : objects) {
    if (!o.is_object() || o.value("kind", "") != "PodGroup") continue;
    const std::string api = o.value("apiVersion", "");
    if (!absl::StartsWith(api, "scheduling.volcano.sh/") &&
        !absl::StartsWith(api, "scheduling.x-k8s.io/")) {
      continue;
    }
    const JsonReader r(o, "PodGroup");
    const std::string ns = r.Field("metadata").Field("namespace").String("default").value_or("");
    const std::string name = r.Field("metadata").Field("name").String().value_or("");
    absl::StatusOr<int64_t> min = r.Field("spec").Field("minMember").Int();
    if (!name.empty() && min.ok() && *min > 0) {
      min_members[absl::StrCat(ns.empty() ? "default" : ns, "/", name)] =
          static_cast<int32_t>(*min);
    }
  }
  return min_members;
}

void ApplyPodGroups(const absl::flat_hash_map<std::string, int32_t>& min_members,
                    std::vector<PodSpec>& pods) {
  for (PodSpec& pod : pods) {
    if (!pod.gang.has_value() || pod.gang->min_member > 0) continue;
    if (auto it = min_members.find(pod.gang->name); it != min_members.end()) {
      pod.gang->min_member = it->second;
    }
  }
}

}  // namespace gpua
