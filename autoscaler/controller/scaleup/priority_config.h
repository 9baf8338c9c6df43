// The priority expander's configuration, as cluster-autoscaler reads it: the `priorities` key
// of the ConfigMap cluster-autoscaler-priority-expander in --namespace, YAML mapping a
// priority to the regexes of the group ids that have it.
//
//   priorities: |-
//     50: [".*-spot"]
//     10: [".*-on-demand"]
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEUP_PRIORITY_CONFIG_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEUP_PRIORITY_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"
#include "estimator/expander.h"

namespace gpua {

inline constexpr char kPriorityExpanderConfigMap[] = "cluster-autoscaler-priority-expander";

// Errors name `source` and the priority at fault.
absl::StatusOr<PriorityConfig> ParsePriorityConfig(absl::string_view yaml,
                                                   absl::string_view source);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEUP_PRIORITY_CONFIG_H_
