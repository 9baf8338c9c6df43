#include "cloudproviders/json_reader.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "estimator/status_macros.h"

namespace gpua {
namespace {

const nlohmann::json& Null() {
  static const nlohmann::json kNull;
  return kNull;
}

absl::string_view TypeName(const nlohmann::json& v) { return v.type_name(); }

}  // namespace

JsonReader JsonReader::Field(absl::string_view name) const {
  const std::string child = path_.empty() ? std::string(name) : absl::StrCat(path_, ".", name);
  if (!value_->is_object()) return JsonReader(Null(), child);
  auto it = value_->find(std::string(name));
  return JsonReader(it == value_->end() ? Null() : *it, child);
}

bool JsonReader::Has(absl::string_view name) const {
  return value_->is_object() && value_->contains(std::string(name));
}

absl::Status JsonReader::Error(absl::string_view what) const {
  return absl::InvalidArgumentError(absl::StrCat(path_, ": ", what));
}

absl::Status JsonReader::WrongType(absl::string_view expected) const {
  return Error(absl::StrCat("expected ", expected, ", found ", TypeName(*value_)));
}

absl::StatusOr<std::string> JsonReader::String(std::string fallback) const {
  if (value_->is_null()) return fallback;
  if (!value_->is_string()) return WrongType("a string");
  return value_->get<std::string>();
}

absl::StatusOr<int64_t> JsonReader::Int(int64_t fallback) const {
  if (value_->is_null()) return fallback;
  if (value_->is_number_integer()) return value_->get<int64_t>();
  if (value_->is_number_float()) {
    const double d = value_->get<double>();
    if (d == static_cast<double>(static_cast<int64_t>(d))) return static_cast<int64_t>(d);
  }
  return WrongType("an integer");
}

absl::StatusOr<double> JsonReader::Double(double fallback) const {
  if (value_->is_null()) return fallback;
  if (!value_->is_number()) return WrongType("a number");
  return value_->get<double>();
}

absl::StatusOr<bool> JsonReader::Bool(bool fallback) const {
  if (value_->is_null()) return fallback;
  if (!value_->is_boolean()) return WrongType("true or false");
  return value_->get<bool>();
}

absl::StatusOr<std::vector<std::string>> JsonReader::Strings() const {
  std::vector<std::string> out;
  absl::Status s = ForEach([&](const JsonReader& item) -> absl::Status {
    absl::StatusOr<std::string> v = item.String();
    if (!v.ok()) return v.status();
    out.push_back(*std::move(v));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<Labels> JsonReader::StringMap() const {
  Labels out;
  if (value_->is_null()) return out;
  if (!value_->is_object()) return WrongType("an object of strings");
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (!it->is_string()) {
      return JsonReader(*it, absl::StrCat(path_, "[", it.key(), "]")).WrongType("a string");
    }
    out.emplace(it.key(), it->get<std::string>());
  }
  return out;
}

absl::StatusOr<std::optional<absl::Duration>> JsonReader::Duration() const {
  if (IsNull()) return std::optional<absl::Duration>();
  GPUA_ASSIGN_OR_RETURN(std::string text, String());
  absl::Duration d;
  if (!absl::ParseDuration(text, &d) || d < absl::ZeroDuration()) {
    return Error(absl::StrCat("invalid duration \"", text, "\" (expected e.g. 90s, 10m, 1h)"));
  }
  return std::optional<absl::Duration>(d);
}

absl::StatusOr<ResourceList> JsonReader::Resources() const {
  if (value_->is_null()) return ResourceList();
  if (!value_->is_object()) return WrongType("an object of quantities");
  std::vector<std::pair<std::string, std::string>> entries;
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (it->is_string()) {
      entries.emplace_back(it.key(), it->get<std::string>());
    } else if (it->is_number()) {
      entries.emplace_back(it.key(), it->dump());
    } else {
      return JsonReader(*it, absl::StrCat(path_, "[", it.key(), "]")).WrongType("a quantity");
    }
  }
  return ResourceList::Parse(entries, path_);
}

absl::Status JsonReader::ForEach(const std::function<absl::Status(const JsonReader&)>& fn) const {
  if (value_->is_null()) return absl::OkStatus();
  if (!value_->is_array()) return WrongType("a list");
  for (size_t i = 0; i < value_->size(); ++i) {
    absl::Status s = fn(JsonReader((*value_)[i], absl::StrCat(path_, "[", i, "]")));
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status JsonReader::RejectUnknown(const std::vector<absl::string_view>& known) const {
  if (!value_->is_object()) return absl::OkStatus();
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (std::find(known.begin(), known.end(), absl::string_view(it.key())) == known.end()) {
      return Error(absl::StrCat("unknown key \"", it.key(), "\""));
    }
  }
  return absl::OkStatus();
}

}  // namespace gpua
