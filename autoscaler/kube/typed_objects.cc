#include "autoscaler/kube/typed_objects.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "cloudproviders/kube_objects.h"
#include "estimator/status_macros.h"

namespace gpua::kube {
namespace {

// Decodes one object of `kind`: namespace, name and resourceVersion first, so that every
// later error (from `body`, which reads the rest into `out`) names the object.
template <typename T, typename Body>
absl::StatusOr<T> DecodeNamed(const JsonReader& object, absl::string_view kind, Body body) {
  T out;
  const JsonReader meta = object.Field("metadata");
  out.namespace_name = meta.Field("namespace").String().value_or("");
  out.name = meta.Field("name").String().value_or("");
  const auto read = [&]() -> absl::Status {
    if (!object.IsObject()) return object.Error("not an object");
    if (out.name.empty()) return meta.Field("name").Error("missing");
    GPUA_ASSIGN_OR_RETURN(out.resource_version, meta.Field("resourceVersion").String());
    return body(out);
  };
  if (absl::Status s = read(); !s.ok()) {
    const std::string who =
        out.namespace_name.empty() ? out.name : absl::StrCat(out.namespace_name, "/", out.name);
    return absl::InvalidArgumentError(absl::StrCat(kind, " ", who, ": ", s.message()));
  }
  return out;
}

absl::StatusOr<absl::Time> ReadTime(const JsonReader& field) {
  GPUA_ASSIGN_OR_RETURN(absl::string_view text, field.StringView());
  if (text.empty()) return absl::InfinitePast();
  absl::Time t;
  if (!ParseApiTime(text, &t)) {
    return field.Error(absl::StrCat("\"", text, "\" is not an RFC 3339 time"));
  }
  return t;
}

absl::StatusOr<int32_t> ReadCount(const JsonReader& field, int64_t fallback) {
  GPUA_ASSIGN_OR_RETURN(int64_t v, field.Int(fallback));
  if (v < 0 || v > INT32_MAX) return field.Error(absl::StrCat(v, " is out of range"));
  return static_cast<int32_t>(v);
}

}  // namespace

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

absl::StatusOr<ConfigMapObject> DecodeConfigMap(const JsonReader& object) {
  return DecodeNamed<ConfigMapObject>(object, "ConfigMap", [&](ConfigMapObject& out) {
    absl::StatusOr<Labels> data = object.Field("data").StringMap();
    if (data.ok()) out.data = *std::move(data);
    return data.status();
  });
}

absl::StatusOr<LeaseObject> DecodeLease(const JsonReader& object) {
  return DecodeNamed<LeaseObject>(object, "Lease", [&](LeaseObject& out) -> absl::Status {
    const JsonReader spec = object.Field("spec");
    GPUA_ASSIGN_OR_RETURN(out.holder, spec.Field("holderIdentity").String());
    GPUA_ASSIGN_OR_RETURN(int32_t seconds, ReadCount(spec.Field("leaseDurationSeconds"), 0));
    out.lease_duration = absl::Seconds(seconds);
    GPUA_ASSIGN_OR_RETURN(out.acquire_time, ReadTime(spec.Field("acquireTime")));
    GPUA_ASSIGN_OR_RETURN(out.renew_time, ReadTime(spec.Field("renewTime")));
    GPUA_ASSIGN_OR_RETURN(out.transitions, ReadCount(spec.Field("leaseTransitions"), 0));
    return absl::OkStatus();
  });
}

}  // namespace gpua::kube
