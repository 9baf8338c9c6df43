#include "autoscaler/sim/sweep.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"

namespace gpua::sim {

absl::StatusOr<Sweep> ParseSweep(absl::string_view spec) {
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("--sweep \"", spec, "\": ", why,
                     " (expected <flag>=<v1>,<v2>,... or group/<id>/<option>=<v1>,...)"));
  };
  const size_t eq = spec.find('=');
  if (eq == absl::string_view::npos || eq == 0) return bad("no name=values");
  Sweep s;
  s.name = std::string(spec.substr(0, eq));
  for (absl::string_view v : absl::StrSplit(spec.substr(eq + 1), ',')) {
    if (v.empty()) return bad("an empty value");
    s.values.emplace_back(v);
  }
  if (absl::StartsWith(s.name, "--")) s.name = s.name.substr(2);
  if (absl::StartsWith(s.name, "group/")) {
    const std::vector<std::string> parts = absl::StrSplit(s.name, '/');
    if (parts.size() != 3 || parts[1].empty() || parts[2].empty()) {
      return bad("a group option is group/<id>/<option>");
    }
    s.group = parts[1];
    s.option = parts[2];
  }
  return s;
}

absl::StatusOr<std::vector<NodeGroupConfig>> WithGroupOption(std::vector<NodeGroupConfig> groups,
                                                             const Sweep& sweep,
                                                             const std::string& value) {
  for (NodeGroupConfig& g : groups) {
    if (g.spec.id != sweep.group) continue;
    if (IsWarmSetting(sweep.option)) {
      GPUA_RETURN_IF_ERROR(
          SetWarmSetting(g.warm, sweep.option, value, absl::StrCat("--sweep group/", sweep.group)));
      if (g.warm.nodes > g.spec.max_size) {
        return absl::InvalidArgumentError(absl::StrCat("--sweep ", sweep.name, "=", value,
                                                       ": more than maxSize ", g.spec.max_size));
      }
      return groups;
    }
    GPUA_RETURN_IF_ERROR(SetNodeGroupOption(
        g.options, sweep.option, value, absl::StrCat("--sweep group/", sweep.group, " options")));
    return groups;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--sweep ", sweep.name, ": no node group \"", sweep.group, "\""));
}

std::vector<std::string> GroupsOverridingFlag(const std::vector<NodeGroupConfig>& groups,
                                              const Sweep& sweep, std::string* option) {
  struct Override {
    const char* flag;
    const char* option;
    bool (*set)(const NodeGroupOptions&);
  };
  static constexpr Override kOverrides[] = {
      {"scale-down-unneeded-time", "scaleDownUnneededTime",
       [](const NodeGroupOptions& o) { return o.scale_down_unneeded_time.has_value(); }},
      {"scale-down-unready-time", "scaleDownUnreadyTime",
       [](const NodeGroupOptions& o) { return o.scale_down_unready_time.has_value(); }},
      {"scale-down-utilization-threshold", "scaleDownUtilizationThreshold",
       [](const NodeGroupOptions& o) { return o.scale_down_utilization_threshold.has_value(); }},
      {"scale-down-gpu-utilization-threshold", "scaleDownGpuUtilizationThreshold",
       [](const NodeGroupOptions& o) {
         return o.scale_down_gpu_utilization_threshold.has_value();
       }},
      {"max-node-provision-time", "maxNodeProvisionTime",
       [](const NodeGroupOptions& o) { return o.max_node_provision_time.has_value(); }},
  };
  std::vector<std::string> ids;
  if (sweep.group_option()) return ids;
  for (const Override& o : kOverrides) {
    if (sweep.name != o.flag) continue;
    *option = o.option;
    for (const NodeGroupConfig& g : groups) {
      if (o.set(g.options)) ids.push_back(g.spec.id);
    }
  }
  return ids;
}

}  // namespace gpua::sim
