// JSON text from outside (files, flags, answers decoded into documents), read one way by every
// reader that builds an nlohmann document: nested at most kMaxJsonDepth levels (simdjson's own
// limit is 1024; deeper text overflowed the stack of whatever walked it), each key at most
// once in an object (the two readers keep different ones: simdjson the first, nlohmann the
// last, so a repeat is ambiguous and is refused), every number finite. An error starts with
// `source` and names the line and column, or the path of the repeated key or the deep value.
#ifndef GPUA_KUBEOBJECTS_JSON_TEXT_H_
#define GPUA_KUBEOBJECTS_JSON_TEXT_H_

#include <istream>
#include <nlohmann/json.hpp>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpua {

inline constexpr int kMaxJsonDepth = 1000;

// One JSON document: `text` holds exactly one value.
absl::StatusOr<nlohmann::json> ParseJson(absl::string_view text, absl::string_view source);

// The documents of `text`, one after another as `kubectl get -o json --watch` prints them.
absl::StatusOr<std::vector<nlohmann::json>> ParseJsonSequence(absl::string_view text,
                                                              absl::string_view source);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_JSON_TEXT_H_
