#include "kubeobjects/workloads.h"

#include "kubeobjects/object_meta.h"
#include "kubeobjects/pods.h"

namespace gpua {

absl::StatusOr<WorkloadObject> DecodeWorkload(const JsonReader& object, absl::string_view kind) {
  return DecodeNamed<WorkloadObject>(object, kind, [&](WorkloadObject& out) -> absl::Status {
    out.kind = std::string(kind);
    const JsonReader meta = object.Field("metadata");
    GPUA_ASSIGN_OR_RETURN(out.uid, meta.Field("uid").String());
    // A missing replicas is 1 (the API default); a Job runs `parallelism` pods at once.
    GPUA_ASSIGN_OR_RETURN(
        out.replicas,
        ReadCount(object.Field("spec").Field(kind == "Job" ? "parallelism" : "replicas"), 1));
    GPUA_ASSIGN_OR_RETURN(out.owner, DecodeControllerRef(meta));
    return absl::OkStatus();
  });
}

bool Owns(const WorkloadObject& owner, const OwnerReference& ref) {
  return owner.kind == ref.kind && owner.name == ref.name &&
         (ref.uid.empty() || owner.uid == ref.uid);
}

absl::StatusOr<DaemonSetObject> DecodeDaemonSet(const nlohmann::json& object) {
  return DecodeDaemonSet(JsonReader(object));
}

absl::StatusOr<DaemonSetObject> DecodeDaemonSet(const JsonReader& object) {
  return DecodeNamed<DaemonSetObject>(
      object, "DaemonSet",
      [&](DaemonSetObject& out) -> absl::Status {
        const JsonReader tmpl = object.Field("spec").Field("template");
        if (!tmpl.IsObject()) return tmpl.Error("missing");
        // The template's pod has no name of its own: it runs as the DaemonSet's.
        out.pod = DecodePodAs(tmpl, out.namespace_name, out.name);
        if (!out.pod.invalid.ok()) return tmpl.Error(out.pod.invalid.message());
        return absl::OkStatus();
      },
      "default");
}

}  // namespace gpua
