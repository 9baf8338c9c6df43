// What every object's decoder reads alike: its identity (namespace, name, resourceVersion),
// named in every error the rest of it causes; its controller reference; API times and counts.
#ifndef GPUA_KUBEOBJECTS_OBJECT_META_H_
#define GPUA_KUBEOBJECTS_OBJECT_META_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "estimator/pod.h"
#include "kubeobjects/json_reader.h"

namespace gpua {

// Decodes one object of `kind` into a T with `namespace_name`, `name` and
// `resource_version`: those first, so that every later error (from `body`, which reads the
// rest into the T) names the object ("PodDisruptionBudget ns/name: spec.selector: ...").
// An object without a namespace gets `default_namespace`.
template <typename T, typename Body>
absl::StatusOr<T> DecodeNamed(const JsonReader& object, absl::string_view kind, Body body,
                              absl::string_view default_namespace = "") {
  T out;
  const JsonReader meta = object.Field("metadata");
  out.namespace_name = meta.Field("namespace").String().value_or("");
  if (out.namespace_name.empty()) out.namespace_name = std::string(default_namespace);
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

// The owner reference marked controller in `meta` (ownerReferences), if any.
absl::StatusOr<std::optional<OwnerReference>> DecodeControllerRef(const JsonReader& meta);

// An RFC 3339 time; empty or absent reads as InfinitePast.
absl::StatusOr<absl::Time> ReadApiTime(const JsonReader& field);

// A count from 0 to INT32_MAX; absent reads as `fallback`.
absl::StatusOr<int32_t> ReadCount(const JsonReader& field, int64_t fallback);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_OBJECT_META_H_
