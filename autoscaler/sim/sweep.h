// `simulate --sweep name=v1,v2,...`: one setting changed across runs on the same trace. The
// name is a controller flag (scale-down-unneeded-time, expander, ...) or one group's option
// in the node-group file's words, group/<id>/<option> (group/h100/scaleDownUnneededTime).
#ifndef GPUA_AUTOSCALER_SIM_SWEEP_H_
#define GPUA_AUTOSCALER_SIM_SWEEP_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cloudproviders/node_group_file.h"

namespace gpua::sim {

struct Sweep {
  std::string name;  // as given
  std::vector<std::string> values;
  // For group/<id>/<option>: the group and the option; empty for a controller flag.
  std::string group;
  std::string option;
  bool group_option() const { return !group.empty(); }
};

absl::StatusOr<Sweep> ParseSweep(absl::string_view spec);

// The groups with the sweep's group option set to `value`; an error names the group or the
// option.
absl::StatusOr<std::vector<NodeGroupConfig>> WithGroupOption(std::vector<NodeGroupConfig> groups,
                                                             const Sweep& sweep,
                                                             const std::string& value);

// The groups whose own option overrides the controller flag the sweep changes (a group's
// scaleDownUnneededTime beats --scale-down-unneeded-time), with the option's name: for
// those groups the sweep changes nothing, which the user should hear.
std::vector<std::string> GroupsOverridingFlag(const std::vector<NodeGroupConfig>& groups,
                                              const Sweep& sweep, std::string* option);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_SWEEP_H_
