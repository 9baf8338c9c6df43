#include "kubeobjects/documents.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace gpua {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// YAML 1.2's core schema integer: [-+]?[0-9]+.
bool LooksInteger(absl::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), IsDigit);
}

// Its float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool LooksFloat(absl::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  size_t i = 0;
  const auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    return i - from;
  };
  const size_t whole = digits();
  size_t fraction = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    fraction = digits();
  }
  if (whole == 0 && fraction == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

nlohmann::json PlainScalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (LooksInteger(s)) {
    int64_t v;
    if (absl::SimpleAtoi(s, &v)) return v;
  }
  if (LooksFloat(s)) {
    double d;
    if (absl::SimpleAtod(s, &d)) return d;
  }
  return s;
}

// Aliases let a few kilobytes of YAML name billions of values ("billion laughs"). Without
// them a document holds fewer values than bytes; past four a byte (and a floor for a few
// aliases in a small file) it is refused, as Kubernetes' own YAML reader refuses excessive
// aliasing.
int64_t ValueLimit(absl::string_view text) {
  return std::max<int64_t>(4 * static_cast<int64_t>(text.size()), 10'000);
}

struct ValueBudget {
  int64_t limit;
  int64_t left = limit;
};

struct TooManyValues {};

nlohmann::json ToJson(const YAML::Node& node, ValueBudget& budget) {
  if (--budget.left < 0) throw TooManyValues{};
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json obj = nlohmann::json::object();
      for (const auto& kv : node) obj[kv.first.Scalar()] = ToJson(kv.second, budget);
      return obj;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& item : node) arr.push_back(ToJson(item, budget));
      return arr;
    }
    case YAML::NodeType::Scalar:
      // A quoted scalar has the non-specific tag "!": always a string.
      return node.Tag() == "!" ? nlohmann::json(node.Scalar()) : PlainScalar(node.Scalar());
    default:
      return nullptr;
  }
}

// Takes yaml-cpp's events and keeps none: a first pass that only counts documents.
class DocumentCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// yaml-cpp 0.7 never gets past a ',' outside a flow collection (", x"): LoadAll would add empty
// documents until memory runs out. A text holds at most one document a byte (and one more), so
// a count past that is this, and is refused before LoadAll sees it.
absl::Status CheckDocumentsEnd(absl::string_view text, absl::string_view source) {
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  DocumentCounter counter;
  for (size_t docs = 0; parser.HandleNextDocument(counter);) {
    if (++docs > text.size() + 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(source,
                       ": not YAML: the parser stops making progress (a stray ',' "
                       "outside [ ] or { }?)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<nlohmann::json>> YamlDocuments(absl::string_view text,
                                                          absl::string_view source) {
  try {
    GPUA_RETURN_IF_ERROR(CheckDocumentsEnd(text, source));
    std::vector<nlohmann::json> docs;
    ValueBudget budget{ValueLimit(text)};
    for (const YAML::Node& doc : YAML::LoadAll(std::string(text))) {
      if (!doc.IsNull()) docs.push_back(ToJson(doc, budget));
    }
    return docs;
  } catch (const TooManyValues&) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": more than ", ValueLimit(text),
                                                   " values in ", text.size(),
                                                   " bytes: aliases repeated past reason"));
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
    } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number too large
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
