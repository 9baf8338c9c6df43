#include "kubeobjects/json_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace gpua {
namespace {

using simdjson::dom::element_type;

// simdjson keeps no number text: a float quantity is spelled with enough digits to read
// back the same value.
std::string NumberText(double d) { return absl::StrFormat("%.15g", d); }

// Debian's Abseil has its own string_view, not std::string_view.
std::string_view Std(absl::string_view s) { return std::string_view(s.data(), s.size()); }
absl::string_view Absl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

}  // namespace

JsonReader::JsonReader(const nlohmann::json& value, std::string root)
    : json_(&value), root_(std::move(root)) {}

JsonReader::JsonReader(simdjson::dom::element value, std::string root)
    : simd_(value), root_(std::move(root)) {}

JsonReader::JsonReader(const JsonReader& parent, const nlohmann::json* value, Step step)
    : json_(value), root_(parent.root_), steps_(parent.steps_) {
  steps_.push_back(step);
}

JsonReader::JsonReader(const JsonReader& parent, simdjson::dom::element value, Step step)
    : simd_(value), root_(parent.root_), steps_(parent.steps_) {
  steps_.push_back(step);
}

JsonReader::JsonReader(const JsonReader& parent, Null, Step step)
    : root_(parent.root_), steps_(parent.steps_) {
  steps_.push_back(step);
}

JsonReader::Type JsonReader::type() const {
  if (simd_.has_value()) {
    switch (simd_->type()) {
      case element_type::OBJECT:
        return Type::kObject;
      case element_type::ARRAY:
        return Type::kArray;
      case element_type::STRING:
        return Type::kString;
      case element_type::INT64:
      case element_type::UINT64:
        return Type::kInteger;
      case element_type::DOUBLE:
        return Type::kFloat;
      case element_type::BOOL:
        return Type::kBool;
      case element_type::NULL_VALUE:
        return Type::kNull;
    }
    return Type::kNull;
  }
  if (json_ == nullptr || json_->is_null()) return Type::kNull;
  if (json_->is_object()) return Type::kObject;
  if (json_->is_array()) return Type::kArray;
  if (json_->is_string()) return Type::kString;
  if (json_->is_number_integer()) return Type::kInteger;
  if (json_->is_number()) return Type::kFloat;
  if (json_->is_boolean()) return Type::kBool;
  return Type::kNull;
}

absl::string_view JsonReader::TypeName() const {
  switch (type()) {
    case Type::kNull:
      return "null";
    case Type::kObject:
      return "object";
    case Type::kArray:
      return "array";
    case Type::kString:
      return "string";
    case Type::kInteger:
    case Type::kFloat:
      return "number";
    case Type::kBool:
      return "boolean";
  }
  return "null";
}

size_t JsonReader::Size() const {
  const Type t = type();
  if (t != Type::kObject && t != Type::kArray) return 0;
  if (!simd_.has_value()) return json_->size();
  if (t == Type::kObject) return simd_->get_object().value_unsafe().size();
  size_t n = 0;
  const simdjson::dom::array array = simd_->get_array().value_unsafe();
  for ([[maybe_unused]] simdjson::dom::element e : array) ++n;
  return n;
}

std::string JsonReader::path() const {
  std::string out = root_;
  for (const Step& s : steps_) {
    if (s.index >= 0) {
      absl::StrAppend(&out, "[", s.index, "]");
    } else if (s.bracket) {
      absl::StrAppend(&out, "[", s.name, "]");
    } else {
      // A root that ends in a space ("Pod ml/web: ") is a prefix, not a field.
      absl::StrAppend(&out, out.empty() || out.back() == ' ' ? "" : ".", s.name);
    }
  }
  return out;
}

JsonReader JsonReader::Rooted(std::string root) const {
  JsonReader out = *this;
  out.root_ = std::move(root);
  out.steps_.clear();
  return out;
}

JsonReader JsonReader::Field(absl::string_view name) const {
  const Step step{name};
  if (type() != Type::kObject) return JsonReader(*this, Null{}, step);
  if (simd_.has_value()) {
    simdjson::dom::element child;
    if (simd_->get_object().value_unsafe().at_key(Std(name)).get(child) != simdjson::SUCCESS) {
      return JsonReader(*this, Null{}, step);
    }
    return JsonReader(*this, child, step);
  }
  auto it = json_->find(name);
  return it == json_->end() ? JsonReader(*this, Null{}, step) : JsonReader(*this, &*it, step);
}

namespace {

// Walks the DOM: several times faster than printing it and parsing the text again.
nlohmann::json Copy(simdjson::dom::element e) {
  using simdjson::dom::element_type;
  switch (e.type()) {
    case element_type::OBJECT: {
      nlohmann::json out = nlohmann::json::object();
      const simdjson::dom::object members = e.get_object().value_unsafe();
      for (simdjson::dom::key_value_pair kv : members) out[std::string(kv.key)] = Copy(kv.value);
      return out;
    }
    case element_type::ARRAY: {
      nlohmann::json out = nlohmann::json::array();
      const simdjson::dom::array items = e.get_array().value_unsafe();
      for (simdjson::dom::element item : items) out.push_back(Copy(item));
      return out;
    }
    case element_type::STRING:
      return std::string(e.get_string().value_unsafe());
    case element_type::INT64:
      return e.get_int64().value_unsafe();
    case element_type::UINT64:
      return e.get_uint64().value_unsafe();
    case element_type::DOUBLE:
      return e.get_double().value_unsafe();
    case element_type::BOOL:
      return e.get_bool().value_unsafe();
    case element_type::NULL_VALUE:
      break;
  }
  return nullptr;
}

}  // namespace

nlohmann::json JsonReader::ToJson() const {
  if (simd_.has_value()) return Copy(*simd_);
  return json_ == nullptr ? nlohmann::json() : *json_;
}

absl::Status JsonReader::Error(absl::string_view what) const {
  return absl::InvalidArgumentError(absl::StrCat(path(), ": ", what));
}

absl::Status JsonReader::WrongType(absl::string_view expected) const {
  return Error(absl::StrCat("expected ", expected, ", found ", TypeName()));
}

absl::StatusOr<absl::string_view> JsonReader::StringView(absl::string_view fallback) const {
  const Type t = type();
  if (t == Type::kNull) return fallback;
  if (t != Type::kString) return WrongType("a string");
  if (simd_.has_value()) return Absl(simd_->get_string().value_unsafe());
  return absl::string_view(json_->get_ref<const std::string&>());
}

absl::StatusOr<std::string> JsonReader::String(std::string fallback) const {
  if (IsNull()) return fallback;
  GPUA_ASSIGN_OR_RETURN(absl::string_view v, StringView());
  return std::string(v);
}

absl::StatusOr<int64_t> JsonReader::Int(int64_t fallback) const {
  const Type t = type();
  if (t == Type::kNull) return fallback;
  if (t == Type::kInteger) {
    if (simd_.has_value()) {
      int64_t v;
      if (simd_->get_int64().get(v) == simdjson::SUCCESS) return v;
    } else if (!json_->is_number_unsigned() ||
               json_->get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)) {
      return json_->get<int64_t>();
    }
    return WrongType("an integer within 64 bits");
  }
  if (t == Type::kFloat) {
    // 2^63 itself does not fit; below it every whole double converts exactly.
    const double d = Double().value_or(0.5);
    if (d > -9223372036854775808.0 && d < 9223372036854775808.0 && d == std::trunc(d)) {
      return static_cast<int64_t>(d);
    }
  }
  return WrongType("an integer");
}

std::string JsonReader::IntegerText() const {
  if (!simd_.has_value()) return json_->dump();  // exact, signed or not
  if (simd_->type() == element_type::UINT64)
    return absl::StrCat(simd_->get_uint64().value_unsafe());
  return absl::StrCat(simd_->get_int64().value_unsafe());
}

absl::StatusOr<double> JsonReader::Double(double fallback) const {
  const Type t = type();
  if (t == Type::kNull) return fallback;
  if (t != Type::kInteger && t != Type::kFloat) return WrongType("a number");
  if (!simd_.has_value()) return json_->get<double>();
  if (simd_->type() == element_type::INT64)
    return static_cast<double>(simd_->get_int64().value_unsafe());
  if (simd_->type() == element_type::UINT64) {
    return static_cast<double>(simd_->get_uint64().value_unsafe());
  }
  return simd_->get_double().value_unsafe();
}

absl::StatusOr<bool> JsonReader::Bool(bool fallback) const {
  const Type t = type();
  if (t == Type::kNull) return fallback;
  if (t != Type::kBool) return WrongType("true or false");
  return simd_.has_value() ? simd_->get_bool().value_unsafe() : json_->get<bool>();
}

absl::StatusOr<std::vector<std::string>> JsonReader::Strings() const {
  std::vector<std::string> out;
  GPUA_RETURN_IF_ERROR(ForEach([&](const JsonReader& item) -> absl::Status {
    GPUA_ASSIGN_OR_RETURN(absl::string_view v, item.StringView());
    out.emplace_back(v);
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::optional<absl::Duration>> JsonReader::Duration() const {
  if (IsNull()) return std::optional<absl::Duration>();
  GPUA_ASSIGN_OR_RETURN(absl::string_view text, StringView());
  absl::Duration d;
  if (!absl::ParseDuration(text, &d) || d < absl::ZeroDuration()) {
    return Error(absl::StrCat("invalid duration \"", text, "\" (expected e.g. 90s, 10m, 1h)"));
  }
  return std::optional<absl::Duration>(d);
}

absl::StatusOr<Labels> JsonReader::StringMap() const {
  Labels out;
  if (IsNull()) return out;
  if (!IsObject()) return WrongType("an object of strings");
  GPUA_RETURN_IF_ERROR(
      ForEachMember([&](absl::string_view key, const JsonReader& value) -> absl::Status {
        if (value.IsNull()) return value.WrongType("a string");
        GPUA_ASSIGN_OR_RETURN(absl::string_view v, value.StringView());
        out.emplace(std::string(key), std::string(v));
        return absl::OkStatus();
      }));
  return out;
}

absl::StatusOr<ResourceList> JsonReader::Resources() const {
  ResourceList out;
  if (IsNull()) return out;
  if (!IsObject()) return WrongType("an object of quantities");
  GPUA_RETURN_IF_ERROR(
      ForEachMember([&](absl::string_view name, const JsonReader& value) -> absl::Status {
        std::string number;
        absl::string_view text;
        switch (value.type()) {
          case Type::kString:
            text = value.StringView().value_or("");
            break;
          case Type::kInteger:
            number = value.IntegerText();
            text = number;
            break;
          case Type::kFloat:
            number = NumberText(*value.Double());
            text = number;
            break;
          default:
            return value.WrongType("a quantity");
        }
        if (name.empty()) return Error("a resource has an empty name");
        absl::StatusOr<Quantity> q = Quantity::Parse(text);
        if (!q.ok()) return value.Error(q.status().message());
        out.Set(name, *q);
        return absl::OkStatus();
      }));
  return out;
}

absl::Status JsonReader::ForEach(const std::function<absl::Status(const JsonReader&)>& fn) const {
  const Type t = type();
  if (t == Type::kNull) return absl::OkStatus();
  if (t != Type::kArray) return WrongType("a list");
  int64_t i = 0;
  if (simd_.has_value()) {
    const simdjson::dom::array array = simd_->get_array().value_unsafe();
    for (simdjson::dom::element e : array) {
      GPUA_RETURN_IF_ERROR(fn(JsonReader(*this, e, Step{{}, i++})));
    }
    return absl::OkStatus();
  }
  for (const nlohmann::json& e : *json_) {
    GPUA_RETURN_IF_ERROR(fn(JsonReader(*this, &e, Step{{}, i++})));
  }
  return absl::OkStatus();
}

absl::Status JsonReader::ForEachMember(
    const std::function<absl::Status(absl::string_view, const JsonReader&)>& fn) const {
  const Type t = type();
  if (t == Type::kNull) return absl::OkStatus();
  if (t != Type::kObject) return WrongType("an object");
  if (simd_.has_value()) {
    // In key order, as nlohmann keeps an object: both documents then report the same first
    // error.
    absl::InlinedVector<std::pair<absl::string_view, simdjson::dom::element>, 16> members;
    const simdjson::dom::object object = simd_->get_object().value_unsafe();
    for (simdjson::dom::key_value_pair kv : object) members.emplace_back(Absl(kv.key), kv.value);
    std::stable_sort(members.begin(), members.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [key, value] : members) {
      GPUA_RETURN_IF_ERROR(fn(key, JsonReader(*this, value, Step{key, -1, true})));
    }
    return absl::OkStatus();
  }
  for (auto it = json_->begin(); it != json_->end(); ++it) {
    const absl::string_view key(it.key());
    GPUA_RETURN_IF_ERROR(fn(key, JsonReader(*this, &*it, Step{key, -1, true})));
  }
  return absl::OkStatus();
}

absl::Status JsonReader::RejectUnknown(const std::vector<absl::string_view>& known) const {
  if (!IsObject()) return absl::OkStatus();
  return ForEachMember([&](absl::string_view key, const JsonReader&) -> absl::Status {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return Error(absl::StrCat("unknown key \"", key, "\""));
    }
    return absl::OkStatus();
  });
}

}  // namespace gpua
