// Label selectors and selector requirements as the API writes them (matchLabels,
// matchExpressions; node selector terms), shared by pods, PodDisruptionBudgets and spread
// constraints.
#ifndef GPUA_KUBEOBJECTS_SELECTORS_H_
#define GPUA_KUBEOBJECTS_SELECTORS_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "estimator/labels.h"
#include "kubeobjects/json_reader.h"

namespace gpua {

// A list of {key, operator, values}; `node_selector` allows the node-only operators Gt, Lt.
absl::StatusOr<std::vector<Requirement>> DecodeRequirements(const JsonReader& list,
                                                            bool node_selector);

// A null selector stays absent (matches nothing); {} matches everything.
absl::StatusOr<std::optional<LabelSelector>> DecodeLabelSelector(const JsonReader& selector);

// A NodeSelector: nodeSelectorTerms, each with matchExpressions and matchFields (only
// metadata.name).
absl::StatusOr<NodeSelector> DecodeNodeSelector(const JsonReader& selector);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_SELECTORS_H_
