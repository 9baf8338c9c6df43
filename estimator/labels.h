// Labels and the label/node selectors Kubernetes matches against them.
#ifndef GPUA_ESTIMATOR_LABELS_H_
#define GPUA_ESTIMATOR_LABELS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "estimator/string_map.h"

namespace gpua {

// Ordered, so that equal label sets compare and hash alike and print the same way.
using Labels = StringMap;

enum class SelectorOp { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

// Gt and Lt exist only in node selectors.
absl::StatusOr<SelectorOp> ParseSelectorOp(absl::string_view text, bool allow_gt_lt);
absl::string_view SelectorOpName(SelectorOp op);

struct Requirement {
  std::string key;
  SelectorOp op = SelectorOp::kIn;
  std::vector<std::string> values;

  // Checks what the API server validates: In/NotIn need values, Exists/DoesNotExist none,
  // Gt/Lt exactly one integer.
  absl::Status Validate() const;
  // `value` is the label's value when the key is present.
  bool Matches(const std::string* value) const;
  friend bool operator==(const Requirement&, const Requirement&) = default;
  friend auto operator<=>(const Requirement&, const Requirement&) = default;
};

// metav1.LabelSelector: matchLabels become In requirements, all ANDed. An empty selector
// matches everything; where the API says a nil selector matches nothing, callers hold an
// absent std::optional<LabelSelector>.
struct LabelSelector {
  std::vector<Requirement> requirements;
  bool Matches(const Labels& labels) const;
  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;
  friend auto operator<=>(const LabelSelector&, const LabelSelector&) = default;
};

// One term of a required node affinity: expressions on labels and fields (only
// metadata.name exists), ANDed. A term with neither matches no node.
struct NodeSelectorTerm {
  std::vector<Requirement> match_expressions;
  std::vector<Requirement> match_fields;
  bool Matches(const Labels& labels, absl::string_view node_name) const;
  friend bool operator==(const NodeSelectorTerm&, const NodeSelectorTerm&) = default;
  friend auto operator<=>(const NodeSelectorTerm&, const NodeSelectorTerm&) = default;
};

// requiredDuringSchedulingIgnoredDuringExecution: terms ORed; no terms matches no node.
struct NodeSelector {
  std::vector<NodeSelectorTerm> terms;
  bool Matches(const Labels& labels, absl::string_view node_name) const;
  friend bool operator==(const NodeSelector&, const NodeSelector&) = default;
  friend auto operator<=>(const NodeSelector&, const NodeSelector&) = default;
};

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_LABELS_H_
