// What `gpu-autoscaler simulate` runs with no arguments: examples/simulate's week of mixed
// GPU work and its node groups, compiled into the binary so it runs from anywhere.
#ifndef GPUA_AUTOSCALER_CLI_EMBEDDED_EXAMPLE_H_
#define GPUA_AUTOSCALER_CLI_EMBEDDED_EXAMPLE_H_

#include "absl/strings/string_view.h"

namespace gpua {

struct EmbeddedExample {
  absl::string_view trace_name;
  absl::string_view trace;
  absl::string_view node_groups_name;
  absl::string_view node_groups;
};

const EmbeddedExample& SimulateExample();

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_EMBEDDED_EXAMPLE_H_
