// policy/v1 PodDisruptionBudgets: which pods a budget covers and how many may go now.
#ifndef GPUA_KUBEOBJECTS_POLICY_H_
#define GPUA_KUBEOBJECTS_POLICY_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "estimator/labels.h"
#include "estimator/pod.h"
#include "kubeobjects/json_reader.h"

namespace gpua {

struct PdbObject {
  std::string namespace_name;
  std::string name;
  std::optional<LabelSelector> selector;  // absent: selects no pod
  int32_t disruptions_allowed = 0;
  std::string resource_version;
  // True when it covers `pod` (same namespace, selector matches).
  bool Covers(const PodSpec& pod) const;
};
absl::StatusOr<PdbObject> DecodePdb(const JsonReader& object);
absl::StatusOr<PdbObject> DecodePdb(const nlohmann::json& object);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_POLICY_H_
