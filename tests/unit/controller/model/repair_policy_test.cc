// Repair policies as data: the defaults, a file that changes them for the cluster and per
// group, and files that are wrong, refused with the field named.
#include "autoscaler/controller/model/repair_policy.h"

#include <algorithm>
#include <catch2/catch.hpp>

namespace gpua {
namespace {

const RepairPolicy* Find(const std::vector<RepairPolicy>& list, absl::string_view reason) {
  auto it = std::find_if(list.begin(), list.end(),
                         [&](const RepairPolicy& p) { return p.Reason() == reason; });
  return it == list.end() ? nullptr : &*it;
}

TEST_CASE("the defaults carry the agents' names with their tolerations", "[controller][repair]") {
  const RepairPolicies defaults;
  const std::vector<RepairPolicy>& list = defaults.For("any-group");
  const RepairPolicy* eks = Find(list, "AcceleratedHardwareReady=False");
  REQUIRE(eks != nullptr);
  CHECK(eks->toleration == absl::Minutes(10));
  REQUIRE(Find(list, "Ready=Unknown") != nullptr);
  CHECK(Find(list, "Ready=Unknown")->toleration == absl::Minutes(30));
  CHECK(Find(list, "nvidia.com/GPUReady=False") != nullptr);
  CHECK(Find(list, "GpuXidWatch=True") != nullptr);
  CHECK(Find(list, "SysLogsGPUFallenOff=True") != nullptr);
  CHECK(Find(list, "XidCriticalError=True") != nullptr);
  REQUIRE(Find(list, "GPUsMissing") != nullptr);
  CHECK(Find(list, "GPUsMissing")->signal == RepairSignal::kGpusMissing);
}

TEST_CASE("a policy file changes, adds and removes policies, for the cluster and per group",
          "[controller][repair]") {
  absl::StatusOr<RepairPolicies> p = RepairPolicies::Parse(R"(
policies:
- {condition: AcceleratedHardwareReady, status: "False", toleration: 2m}
- {taint: example.com/gpu-quarantine, toleration: 0s}
- {condition: Ready, status: Unknown, disabled: true}
nodeGroups:
  h100-train:
    policies:
    - {gpusMissing: true, toleration: 1h}
  cpu:
    disabled: true
)",
                                                           "policy.yaml");
  REQUIRE(p.ok());
  const std::vector<RepairPolicy>& cluster = p->For("l4");
  CHECK(Find(cluster, "AcceleratedHardwareReady=False")->toleration == absl::Minutes(2));
  REQUIRE(Find(cluster, "taint example.com/gpu-quarantine") != nullptr);
  CHECK(Find(cluster, "taint example.com/gpu-quarantine")->toleration == absl::ZeroDuration());
  CHECK(Find(cluster, "Ready=Unknown") == nullptr);
  CHECK(Find(cluster, "Ready=False") != nullptr);
  const std::vector<RepairPolicy>& train = p->For("h100-train");
  CHECK(Find(train, "GPUsMissing")->toleration == absl::Hours(1));
  CHECK(Find(train, "AcceleratedHardwareReady=False")->toleration == absl::Minutes(2));
  CHECK(Find(cluster, "GPUsMissing")->toleration == absl::Minutes(10));
  CHECK(p->For("cpu").empty());

  absl::StatusOr<RepairPolicies> only = RepairPolicies::Parse(
      R"({"defaults": false, "policies": [{"condition": "GpuMemWatch", "status": "True"}]})",
      "policy.json");
  REQUIRE(only.ok());
  REQUIRE(only->cluster().size() == 1);
  CHECK(only->cluster()[0].toleration == absl::Minutes(10));
}

TEST_CASE("a wrong policy file is refused with the file and the field named",
          "[controller][repair]") {
  const auto error = [](const std::string& text) {
    absl::StatusOr<RepairPolicies> p = RepairPolicies::Parse(text, "p.yaml");
    REQUIRE_FALSE(p.ok());
    return std::string(p.status().message());
  };
  CHECK_THAT(
      error("policies: [{condition: Ready, status: Maybe}]"),
      Catch::Contains("p.yaml: policies[0].status") && Catch::Contains("True, False or Unknown"));
  CHECK_THAT(error("policies: [{condition: Ready, taint: x, status: \"False\"}]"),
             Catch::Contains("policies[0]") && Catch::Contains("exactly one of"));
  CHECK_THAT(error("policies: [{taint: x, status: \"True\"}]"),
             Catch::Contains("policies[0].status") && Catch::Contains("only a condition"));
  CHECK_THAT(error("policies: [{gpusMissing: true, toleration: soon}]"),
             Catch::Contains("policies[0].toleration") && Catch::Contains("invalid duration"));
  CHECK_THAT(error("policies: [{gpusMissing: true, action: reboot}]"),
             Catch::Contains("policies[0].action") && Catch::Contains("can reboot"));
  CHECK_THAT(error("policies: [{gpusMissing: true, tolerance: 1m}]"), Catch::Contains("tolerance"));
  CHECK_THAT(error("nodeGroups: {a: {disabled: true, policies: []}}"),
             Catch::Contains("nodeGroups[a]") && Catch::Contains("disabled"));
  CHECK_THAT(error("policies: {condition: Ready}"), Catch::Contains("a list of policies"));
  CHECK_THAT(error("- 1"), Catch::Contains("must be an object"));
  CHECK_THAT(error("policies: [{condition: Ready, status: \"False\"}"), Catch::Contains("p.yaml"));
}

}  // namespace
}  // namespace gpua
