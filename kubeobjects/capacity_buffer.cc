#include "kubeobjects/capacity_buffer.h"

#include "absl/strings/str_cat.h"
#include "kubeobjects/object_meta.h"
#include "kubeobjects/pods.h"

namespace gpua {
namespace {

// The spec's fields; an error names the first one that cannot be used.
absl::Status DecodeBufferSpec(const JsonReader& spec, CapacityBufferObject& out) {
  if (!spec.IsObject()) return spec.Error("missing or not an object");
  GPUA_ASSIGN_OR_RETURN(out.provisioning_strategy, spec.Field("provisioningStrategy").String());
  if (out.provisioning_strategy.empty())
    out.provisioning_strategy = std::string(kActiveCapacityStrategy);
  const JsonReader template_ref = spec.Field("podTemplateRef");
  if (!template_ref.IsNull()) {
    GPUA_ASSIGN_OR_RETURN(out.pod_template, template_ref.Field("name").String());
    if (out.pod_template.empty()) return template_ref.Field("name").Error("missing");
  }
  const JsonReader scalable = spec.Field("scalableRef");
  if (!scalable.IsNull()) {
    GPUA_ASSIGN_OR_RETURN(out.scalable_kind, scalable.Field("kind").String());
    if (out.scalable_kind.empty()) return scalable.Field("kind").Error("missing");
  }
  for (auto [field, into] :
       {std::pair{"replicas", &out.replicas}, std::pair{"percentage", &out.percentage}}) {
    const JsonReader r = spec.Field(field);
    if (r.IsNull()) continue;
    GPUA_ASSIGN_OR_RETURN(int32_t n, ReadCount(r, 0));
    *into = n;
  }
  if (const JsonReader limits = spec.Field("limits"); !limits.IsNull()) {
    GPUA_ASSIGN_OR_RETURN(out.limits, limits.Resources());
  }
  if (!out.pod_template.empty() && !out.scalable_kind.empty()) {
    return spec.Error("podTemplateRef and scalableRef are both set; set one");
  }
  if (out.pod_template.empty() && out.scalable_kind.empty()) {
    return spec.Error("neither podTemplateRef nor scalableRef is set");
  }
  if (!out.replicas && !out.percentage && !out.limits) {
    return spec.Error("none of replicas, percentage and limits is set");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CapacityBufferObject> DecodeCapacityBuffer(const JsonReader& object) {
  return DecodeNamed<CapacityBufferObject>(
      object, "CapacityBuffer", [&](CapacityBufferObject& out) {
        const JsonReader meta = object.Field("metadata");
        out.uid = meta.Field("uid").String().value_or("");
        const std::string who =
            absl::StrCat("CapacityBuffer ", out.namespace_name, "/", out.name, ": ");
        if (absl::Status s = DecodeBufferSpec(object.Field("spec"), out); !s.ok()) {
          out.problem = absl::StrCat(who, s.message());
        }
        const JsonReader schedule = meta.Field("annotations").Field(kReplicasScheduleAnnotation);
        if (!schedule.IsNull() && out.problem.empty()) {
          absl::StatusOr<absl::string_view> text = schedule.StringView();
          absl::StatusOr<ReplicaSchedule> parsed =
              text.ok() ? ReplicaSchedule::Parse(*text) : text.status();
          if (parsed.ok()) {
            out.schedule = *std::move(parsed);
          } else {
            out.problem = absl::StrCat(who, "annotation ", kReplicasScheduleAnnotation, ": ",
                                       parsed.status().message());
          }
        }
        return absl::OkStatus();
      });
}

absl::StatusOr<PodTemplateObject> DecodePodTemplate(const JsonReader& object) {
  return DecodeNamed<PodTemplateObject>(
      object, "PodTemplate",
      [&](PodTemplateObject& out) {
        const JsonReader pod = object.Field("template");
        if (!pod.IsObject()) return pod.Error("missing or not an object");
        out.pod = DecodePodAs(pod, out.namespace_name, out.name);
        return absl::OkStatus();
      },
      "default");
}

}  // namespace gpua
