#include "kubeobjects/documents.h"

#include <yaml-cpp/yaml.h>

#include <regex>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace gpua {
namespace {

nlohmann::json PlainScalar(const std::string& s) {
  static const std::regex kInt("[-+]?[0-9]+");
  static const std::regex kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (std::regex_match(s, kInt)) {
    int64_t v;
    if (absl::SimpleAtoi(s, &v)) return v;
  }
  if (std::regex_match(s, kFloat)) {
    double d;
    if (absl::SimpleAtod(s, &d)) return d;
  }
  return s;
}

nlohmann::json ToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json obj = nlohmann::json::object();
      for (const auto& kv : node) obj[kv.first.Scalar()] = ToJson(kv.second);
      return obj;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& item : node) arr.push_back(ToJson(item));
      return arr;
    }
    case YAML::NodeType::Scalar:
      // A quoted scalar has the non-specific tag "!": always a string.
      return node.Tag() == "!" ? nlohmann::json(node.Scalar()) : PlainScalar(node.Scalar());
    default:
      return nullptr;
  }
}

absl::StatusOr<std::vector<nlohmann::json>> YamlDocuments(absl::string_view text,
                                                          absl::string_view source) {
  try {
    std::vector<nlohmann::json> docs;
    for (const YAML::Node& doc : YAML::LoadAll(std::string(text))) {
      if (!doc.IsNull()) docs.push_back(ToJson(doc));
    }
    return docs;
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": line ", e.mark.line + 1, ", column ",
                                                   e.mark.column + 1, ": ", e.msg));
  }
}

void Flatten(nlohmann::json object, std::vector<nlohmann::json>* out) {
  if (object.is_object() && object.contains("items") && object["items"].is_array() &&
      object.value("kind", "").ends_with("List")) {
    for (auto& item : object["items"]) Flatten(std::move(item), out);
    return;
  }
  out->push_back(std::move(object));
}

// One JSON document, or several one after another (as `kubectl get -o json --watch` prints
// them).
absl::StatusOr<std::vector<nlohmann::json>> JsonDocuments(absl::string_view text,
                                                          absl::string_view source) {
  nlohmann::json whole = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (!whole.is_discarded()) return std::vector<nlohmann::json>{std::move(whole)};
  std::vector<nlohmann::json> docs;
  std::istringstream in{std::string(text)};
  while ((in >> std::ws).peek() != std::char_traits<char>::eof()) {
    // Exceptions only here, where nlohmann says where the text broke.
    try {
      nlohmann::json doc;
      in >> doc;
      docs.push_back(std::move(doc));
    } catch (const nlohmann::json::parse_error& e) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": invalid JSON",
          docs.empty() ? "" : absl::StrCat(" in document ", docs.size() + 1), ": ", e.what()));
    }
  }
  return docs;
}

}  // namespace

absl::StatusOr<nlohmann::json> YamlToJson(absl::string_view text, absl::string_view source) {
  GPUA_ASSIGN_OR_RETURN(std::vector<nlohmann::json> docs, YamlDocuments(text, source));
  if (docs.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": expected one YAML document, found ", docs.size()));
  }
  return std::move(docs.front());
}

absl::StatusOr<std::vector<nlohmann::json>> ParseObjects(absl::string_view text,
                                                         absl::string_view source) {
  std::vector<nlohmann::json> docs;
  const absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(text);
  if (absl::StartsWith(trimmed, "{") || absl::StartsWith(trimmed, "[")) {
    GPUA_ASSIGN_OR_RETURN(std::vector<nlohmann::json> parsed, JsonDocuments(text, source));
    for (nlohmann::json& d : parsed) {
      if (d.is_array()) {
        for (auto& item : d) docs.push_back(std::move(item));
      } else {
        docs.push_back(std::move(d));
      }
    }
  } else {
    GPUA_ASSIGN_OR_RETURN(docs, YamlDocuments(text, source));
  }
  std::vector<nlohmann::json> objects;
  for (auto& d : docs) Flatten(std::move(d), &objects);
  return objects;
}

}  // namespace gpua
