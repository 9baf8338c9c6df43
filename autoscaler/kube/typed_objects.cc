#include "autoscaler/kube/typed_objects.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "estimator/status_macros.h"

namespace gpua::kube {
namespace {

struct Meta {
  std::string namespace_name;
  std::string name;
};

// Name and namespace first, so that every later error can name the object.
Meta ReadMeta(const JsonReader& object) {
  const JsonReader meta = object.Field("metadata");
  return {meta.Field("namespace").String().value_or(""), meta.Field("name").String().value_or("")};
}

absl::Status Named(absl::string_view kind, const Meta& meta, const absl::Status& s) {
  const std::string who =
      meta.namespace_name.empty() ? meta.name : absl::StrCat(meta.namespace_name, "/", meta.name);
  return absl::InvalidArgumentError(absl::StrCat(kind, " ", who, ": ", s.message()));
}

absl::Status RequireName(const JsonReader& object, const Meta& meta) {
  if (!object.IsObject()) return object.Error("not an object");
  if (meta.name.empty()) return object.Field("metadata").Field("name").Error("missing");
  return absl::OkStatus();
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
  WorkloadObject out;
  const Meta meta = ReadMeta(object);
  out.kind = std::string(kind);
  out.namespace_name = meta.namespace_name;
  out.name = meta.name;
  const auto read = [&]() -> absl::Status {
    GPUA_RETURN_IF_ERROR(RequireName(object, meta));
    const JsonReader m = object.Field("metadata");
    GPUA_ASSIGN_OR_RETURN(out.uid, m.Field("uid").String());
    GPUA_ASSIGN_OR_RETURN(out.resource_version, m.Field("resourceVersion").String());
    const JsonReader spec = object.Field("spec");
    // A missing replicas is 1 (the API default); a Job runs `parallelism` pods at once.
    GPUA_ASSIGN_OR_RETURN(out.replicas,
                          ReadCount(spec.Field(kind == "Job" ? "parallelism" : "replicas"), 1));
    return m.Field("ownerReferences").ForEach([&](const JsonReader& o) -> absl::Status {
      GPUA_ASSIGN_OR_RETURN(bool controller, o.Field("controller").Bool());
      if (!controller) return absl::OkStatus();
      OwnerReference ref{"", "", "", true};
      GPUA_ASSIGN_OR_RETURN(ref.kind, o.Field("kind").String());
      GPUA_ASSIGN_OR_RETURN(ref.name, o.Field("name").String());
      GPUA_ASSIGN_OR_RETURN(ref.uid, o.Field("uid").String());
      out.owner = std::move(ref);
      return absl::OkStatus();
    });
  };
  if (absl::Status s = read(); !s.ok()) return Named(kind, meta, s);
  return out;
}

bool Owns(const WorkloadObject& owner, const OwnerReference& ref) {
  return owner.kind == ref.kind && owner.name == ref.name &&
         (ref.uid.empty() || owner.uid == ref.uid);
}

absl::StatusOr<ConfigMapObject> DecodeConfigMap(const JsonReader& object) {
  ConfigMapObject out;
  const Meta meta = ReadMeta(object);
  out.namespace_name = meta.namespace_name;
  out.name = meta.name;
  const auto read = [&]() -> absl::Status {
    GPUA_RETURN_IF_ERROR(RequireName(object, meta));
    GPUA_ASSIGN_OR_RETURN(out.resource_version,
                          object.Field("metadata").Field("resourceVersion").String());
    GPUA_ASSIGN_OR_RETURN(out.data, object.Field("data").StringMap());
    return absl::OkStatus();
  };
  if (absl::Status s = read(); !s.ok()) return Named("ConfigMap", meta, s);
  return out;
}

absl::StatusOr<LeaseObject> DecodeLease(const JsonReader& object) {
  LeaseObject out;
  const Meta meta = ReadMeta(object);
  out.namespace_name = meta.namespace_name;
  out.name = meta.name;
  const auto read = [&]() -> absl::Status {
    GPUA_RETURN_IF_ERROR(RequireName(object, meta));
    GPUA_ASSIGN_OR_RETURN(out.resource_version,
                          object.Field("metadata").Field("resourceVersion").String());
    const JsonReader spec = object.Field("spec");
    GPUA_ASSIGN_OR_RETURN(out.holder, spec.Field("holderIdentity").String());
    GPUA_ASSIGN_OR_RETURN(int32_t seconds, ReadCount(spec.Field("leaseDurationSeconds"), 0));
    out.lease_duration = absl::Seconds(seconds);
    GPUA_ASSIGN_OR_RETURN(out.acquire_time, ReadTime(spec.Field("acquireTime")));
    GPUA_ASSIGN_OR_RETURN(out.renew_time, ReadTime(spec.Field("renewTime")));
    GPUA_ASSIGN_OR_RETURN(out.transitions, ReadCount(spec.Field("leaseTransitions"), 0));
    return absl::OkStatus();
  };
  if (absl::Status s = read(); !s.ok()) return Named("Lease", meta, s);
  return out;
}

}  // namespace gpua::kube
