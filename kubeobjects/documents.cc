#include "kubeobjects/documents.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kubeobjects/json_text.h"

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

// A document that cannot be converted: the reason, with the place it names.
struct NotConvertible {
  YAML::Mark mark;
  std::string why;
};

nlohmann::json PlainScalar(const std::string& s, const YAML::Mark& mark) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (LooksInteger(s)) {
    int64_t v;
    if (absl::SimpleAtoi(s, &v)) return v;
  }
  if (LooksFloat(s)) {
    double d;
    if (absl::SimpleAtod(s, &d)) {
      // absl reads 1e400 as infinity, which every sum it meets would carry on as inf or nan.
      if (!std::isfinite(d)) {
        throw NotConvertible{mark, absl::StrCat("number ", s, " is out of range")};
      }
      return d;
    }
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

// `depth`: the collections around `node`. JSON's limit holds for YAML too (yaml-cpp's own guard
// trips first, near 500), so no YAML document reads that its JSON would not.
nlohmann::json ToJson(const YAML::Node& node, ValueBudget& budget, int depth = 0) {
  if (--budget.left < 0) throw TooManyValues{};
  if ((node.IsMap() || node.IsSequence()) && depth >= kMaxJsonDepth) {
    throw NotConvertible{node.Mark(),
                         absl::StrCat("nested more than ", kMaxJsonDepth, " levels deep")};
  }
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json obj = nlohmann::json::object();
      for (const auto& kv : node) {
        const std::string& key = kv.first.Scalar();
        // yaml-cpp keeps both; Kubernetes' reader refuses the document, and so do we.
        if (obj.contains(key)) {
          throw NotConvertible{kv.first.Mark(),
                               absl::StrCat("key \"", key, "\" appears twice in one mapping")};
        }
        obj[key] = ToJson(kv.second, budget, depth + 1);
      }
      return obj;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& item : node) arr.push_back(ToJson(item, budget, depth + 1));
      return arr;
    }
    case YAML::NodeType::Scalar:
      // A quoted scalar has the non-specific tag "!": always a string.
      return node.Tag() == "!" ? nlohmann::json(node.Scalar())
                               : PlainScalar(node.Scalar(), node.Mark());
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
  } catch (const NotConvertible& e) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": line ", e.mark.line + 1, ", column ",
                                                   e.mark.column + 1, ": ", e.why));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's guard (2,000 steps, several a level: about 500 levels) says only "bad file".
    return absl::InvalidArgumentError(absl::StrCat(source, ": line ", e.mark.line + 1, ", column ",
                                                   e.mark.column + 1,
                                                   ": nested too deep (YAML: about 500 levels)"));
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
    GPUA_ASSIGN_OR_RETURN(std::vector<nlohmann::json> parsed, ParseJsonSequence(text, source));
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
