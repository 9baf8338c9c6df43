// Reading Kubernetes objects from JSON with errors that name the field, never throwing.
// One walker over two documents: nlohmann::json (files, YAML, tests) and simdjson's DOM (the
// informers' list pages and watch events, where decoding speed matters). The path of a field
// ("spec.containers[0].resources.requests") is kept as parts and spelled out only when an
// error needs it, so reading a field allocates nothing.
#ifndef GPUA_KUBEOBJECTS_JSON_READER_H_
#define GPUA_KUBEOBJECTS_JSON_READER_H_

#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "estimator/labels.h"
#include "estimator/resource_list.h"

namespace gpua {

class JsonReader {
 public:
  enum class Type { kNull, kObject, kArray, kString, kInteger, kFloat, kBool };

  // `root` prefixes every path in errors ("" for none).
  explicit JsonReader(const nlohmann::json& value, std::string root = "");
  explicit JsonReader(simdjson::dom::element value, std::string root = "");

  Type type() const;
  bool IsNull() const { return type() == Type::kNull; }
  bool IsObject() const { return type() == Type::kObject; }
  // Members of an object or elements of an array; 0 for anything else.
  size_t Size() const;
  // The field's path, spelled out.
  std::string path() const;
  // The same value as the root of its own paths (an item of a list is an object in itself).
  JsonReader Rooted(std::string root = "") const;

  // A member; absent members read as null. `name` must outlive the reader (a literal, or a
  // key of the same document).
  JsonReader Field(absl::string_view name) const;
  bool Has(absl::string_view name) const { return !Field(name).IsNull(); }

  absl::Status Error(absl::string_view what) const;
  // A copy of the value as an nlohmann document (null when absent), for code that keeps an
  // object beyond the call that lent it.
  nlohmann::json ToJson() const;

  absl::StatusOr<std::string> String(std::string fallback = "") const;
  // The string without a copy; valid as long as the document.
  absl::StatusOr<absl::string_view> StringView(absl::string_view fallback = "") const;
  absl::StatusOr<int64_t> Int(int64_t fallback = 0) const;
  absl::StatusOr<double> Double(double fallback = 0) const;
  absl::StatusOr<bool> Bool(bool fallback = false) const;
  absl::StatusOr<std::vector<std::string>> Strings() const;
  // A non-negative duration such as "90s" or "10m"; null reads as unset.
  absl::StatusOr<std::optional<absl::Duration>> Duration() const;
  absl::StatusOr<Labels> StringMap() const;
  // A map of quantities; a quantity may be a JSON string or number.
  absl::StatusOr<ResourceList> Resources() const;
  // Calls fn for every element of an array (null reads as empty).
  absl::Status ForEach(const std::function<absl::Status(const JsonReader&)>& fn) const;
  // Calls fn for every member of an object in key order (null reads as empty).
  absl::Status ForEachMember(
      const std::function<absl::Status(absl::string_view key, const JsonReader&)>& fn) const;
  // Fails naming the first member not in `known` (a typo must not drop a setting).
  absl::Status RejectUnknown(const std::vector<absl::string_view>& known) const;

 private:
  // One step of the path: a member name, an array index, or a map key ("[key]").
  struct Step {
    absl::string_view name;
    int64_t index = -1;
    bool bracket = false;
  };
  struct Null {};

  JsonReader(const JsonReader& parent, const nlohmann::json* value, Step step);
  JsonReader(const JsonReader& parent, simdjson::dom::element value, Step step);
  JsonReader(const JsonReader& parent, Null, Step step);

  absl::Status WrongType(absl::string_view expected) const;
  absl::string_view TypeName() const;
  // An integer's decimal digits, whatever its size (for quantities).
  std::string IntegerText() const;

  // Exactly one of the two is in use; a null nlohmann pointer with `simd_` unset is null.
  const nlohmann::json* json_ = nullptr;
  std::optional<simdjson::dom::element> simd_;
  std::string root_;
  absl::InlinedVector<Step, 8> steps_;
};

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_JSON_READER_H_
