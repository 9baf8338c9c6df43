#include "kubeobjects/object_meta.h"

#include "kubeobjects/api_time.h"

namespace gpua {

absl::StatusOr<std::optional<OwnerReference>> DecodeControllerRef(const JsonReader& meta) {
  std::optional<OwnerReference> found;
  GPUA_RETURN_IF_ERROR(
      meta.Field("ownerReferences").ForEach([&](const JsonReader& o) -> absl::Status {
        GPUA_ASSIGN_OR_RETURN(bool controller, o.Field("controller").Bool());
        if (!controller) return absl::OkStatus();
        OwnerReference owner{"", "", "", true};
        GPUA_ASSIGN_OR_RETURN(owner.kind, o.Field("kind").String());
        GPUA_ASSIGN_OR_RETURN(owner.name, o.Field("name").String());
        GPUA_ASSIGN_OR_RETURN(owner.uid, o.Field("uid").String());
        found = std::move(owner);
        return absl::OkStatus();
      }));
  return found;
}

absl::StatusOr<absl::Time> ReadApiTime(const JsonReader& field) {
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

}  // namespace gpua
