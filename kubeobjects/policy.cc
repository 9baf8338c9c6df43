#include "kubeobjects/policy.h"

#include "kubeobjects/object_meta.h"
#include "kubeobjects/selectors.h"

namespace gpua {

bool PdbObject::Covers(const PodSpec& pod) const {
  return selector.has_value() && pod.namespace_name == namespace_name &&
         selector->Matches(pod.labels);
}

absl::StatusOr<PdbObject> DecodePdb(const nlohmann::json& object) {
  return DecodePdb(JsonReader(object));
}

// A budget without a namespace is in "default", as the pods it is compared with are.
absl::StatusOr<PdbObject> DecodePdb(const JsonReader& object) {
  return DecodeNamed<PdbObject>(
      object, "PodDisruptionBudget",
      [&](PdbObject& out) -> absl::Status {
        GPUA_ASSIGN_OR_RETURN(out.selector,
                              DecodeLabelSelector(object.Field("spec").Field("selector")));
        GPUA_ASSIGN_OR_RETURN(int64_t allowed,
                              object.Field("status").Field("disruptionsAllowed").Int());
        out.disruptions_allowed = static_cast<int32_t>(allowed);
        return absl::OkStatus();
      },
      "default");
}

}  // namespace gpua
