// What the simulated cluster's tests share: one CPU node group and its machines.
#ifndef GPUA_TESTS_UNIT_SIM_SIM_TEST_UTIL_H_
#define GPUA_TESTS_UNIT_SIM_SIM_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "cloudproviders/node_group_file.h"
#include "cloudproviders/simulated/simulated_cloud.h"

namespace gpua::sim::testing {

// A node-group file with one group, "cpu", of 8-core nodes.
inline constexpr char kCpuGroups[] = R"(
nodeGroups:
- id: cpu
  maxSize: 10
  template:
    status:
      allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
)";

// kCpuGroups, read.
inline std::vector<NodeGroupConfig> CpuGroups() {
  auto groups = ParseNodeGroupFile(kCpuGroups, "groups.yaml");
  REQUIRE(groups.ok());
  return *std::move(groups);
}

// A running machine of group "cpu", ready since `now`; its node is "cpu-<id>".
inline Machine MachineOf(const std::string& id, absl::Time now) {
  return {"cpu", absl::StrCat("sim://cpu/", id), now, now, std::nullopt};
}

}  // namespace gpua::sim::testing

#endif  // GPUA_TESTS_UNIT_SIM_SIM_TEST_UTIL_H_
