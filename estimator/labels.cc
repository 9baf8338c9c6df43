#include "estimator/labels.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace gpua {

absl::StatusOr<SelectorOp> ParseSelectorOp(absl::string_view text, bool allow_gt_lt) {
  if (text == "In") return SelectorOp::kIn;
  if (text == "NotIn") return SelectorOp::kNotIn;
  if (text == "Exists") return SelectorOp::kExists;
  if (text == "DoesNotExist") return SelectorOp::kDoesNotExist;
  if (allow_gt_lt && text == "Gt") return SelectorOp::kGt;
  if (allow_gt_lt && text == "Lt") return SelectorOp::kLt;
  return absl::InvalidArgumentError(absl::StrCat("unknown operator \"", text,
                                                 "\" (expected In, NotIn, Exists, DoesNotExist",
                                                 allow_gt_lt ? ", Gt, Lt)" : ")"));
}

absl::string_view SelectorOpName(SelectorOp op) {
  switch (op) {
    case SelectorOp::kIn:
      return "In";
    case SelectorOp::kNotIn:
      return "NotIn";
    case SelectorOp::kExists:
      return "Exists";
    case SelectorOp::kDoesNotExist:
      return "DoesNotExist";
    case SelectorOp::kGt:
      return "Gt";
    case SelectorOp::kLt:
      return "Lt";
  }
  return "?";
}

absl::Status Requirement::Validate() const {
  const auto error = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("requirement on \"", key, "\" with ", SelectorOpName(op), ": ", why));
  };
  if (key.empty()) return absl::InvalidArgumentError("requirement has an empty key");
  switch (op) {
    case SelectorOp::kIn:
    case SelectorOp::kNotIn:
      if (values.empty()) return error("needs at least one value");
      break;
    case SelectorOp::kExists:
    case SelectorOp::kDoesNotExist:
      if (!values.empty()) return error("takes no values");
      break;
    case SelectorOp::kGt:
    case SelectorOp::kLt: {
      int64_t v;
      if (values.size() != 1 || !absl::SimpleAtoi(values[0], &v)) {
        return error("needs exactly one integer value");
      }
      break;
    }
  }
  return absl::OkStatus();
}

bool Requirement::Matches(const std::string* value) const {
  switch (op) {
    case SelectorOp::kIn:
      return value != nullptr && std::find(values.begin(), values.end(), *value) != values.end();
    case SelectorOp::kNotIn:
      return value == nullptr || std::find(values.begin(), values.end(), *value) == values.end();
    case SelectorOp::kExists:
      return value != nullptr;
    case SelectorOp::kDoesNotExist:
      return value == nullptr;
    case SelectorOp::kGt:
    case SelectorOp::kLt: {
      int64_t have, bound;
      if (value == nullptr || values.size() != 1 || !absl::SimpleAtoi(*value, &have) ||
          !absl::SimpleAtoi(values[0], &bound)) {
        return false;
      }
      return op == SelectorOp::kGt ? have > bound : have < bound;
    }
  }
  return false;
}

namespace {

const std::string* Lookup(const Labels& labels, const std::string& key) {
  auto it = labels.find(key);
  return it == labels.end() ? nullptr : &it->second;
}

}  // namespace

bool LabelSelector::Matches(const Labels& labels) const {
  for (const Requirement& r : requirements) {
    if (!r.Matches(Lookup(labels, r.key))) return false;
  }
  return true;
}

bool NodeSelectorTerm::Matches(const Labels& labels, absl::string_view node_name) const {
  if (match_expressions.empty() && match_fields.empty()) return false;
  for (const Requirement& r : match_expressions) {
    if (!r.Matches(Lookup(labels, r.key))) return false;
  }
  const std::string name(node_name);
  for (const Requirement& r : match_fields) {
    // metadata.name is the only field a node selector may name.
    if (!r.Matches(r.key == "metadata.name" ? &name : nullptr)) return false;
  }
  return true;
}

bool NodeSelector::Matches(const Labels& labels, absl::string_view node_name) const {
  return std::any_of(terms.begin(), terms.end(),
                     [&](const NodeSelectorTerm& t) { return t.Matches(labels, node_name); });
}

}  // namespace gpua
