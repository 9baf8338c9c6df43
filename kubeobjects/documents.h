// Kubernetes objects as files hold them: a JSON document (an object or an array) or several
// one after another (`kubectl get -o json --watch`), or a YAML stream of one or more documents,
// with `List` and `*List` objects flattened into their items, as `kubectl get -o json|yaml` prints
// them.
#ifndef GPUA_KUBEOBJECTS_DOCUMENTS_H_
#define GPUA_KUBEOBJECTS_DOCUMENTS_H_

#include <nlohmann/json.hpp>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpua {

// The objects in `text`; `source` names the input in errors.
absl::StatusOr<std::vector<nlohmann::json>> ParseObjects(absl::string_view text,
                                                         absl::string_view source);

// Converts one YAML document to the JSON it denotes: quoted scalars stay strings, plain ones
// become numbers, booleans or null where YAML 1.2's core schema says so.
absl::StatusOr<nlohmann::json> YamlToJson(absl::string_view text, absl::string_view source);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_DOCUMENTS_H_
