// Reading Kubernetes objects from JSON with errors that name the field: a thin walker over
// nlohmann::json that carries the path ("spec.containers[0].resources.requests") and never
// throws.
#ifndef GPUA_CLOUDPROVIDERS_JSON_READER_H_
#define GPUA_CLOUDPROVIDERS_JSON_READER_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "estimator/labels.h"
#include "estimator/resource_list.h"

namespace gpua {

class JsonReader {
 public:
  JsonReader(const nlohmann::json& value, std::string path)
      : value_(&value), path_(std::move(path)) {}

  const nlohmann::json& value() const { return *value_; }
  const std::string& path() const { return path_; }
  bool IsNull() const { return value_->is_null(); }

  // A member; absent members read as null.
  JsonReader Field(absl::string_view name) const;
  bool Has(absl::string_view name) const;

  absl::Status Error(absl::string_view what) const;

  absl::StatusOr<std::string> String(std::string fallback = "") const;
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
  // Fails naming the first member not in `known` (a typo must not drop a setting).
  absl::Status RejectUnknown(const std::vector<absl::string_view>& known) const;

 private:
  absl::Status WrongType(absl::string_view expected) const;

  const nlohmann::json* value_;
  std::string path_;
};

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_JSON_READER_H_
