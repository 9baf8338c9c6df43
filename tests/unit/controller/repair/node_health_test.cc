// Which nodes are broken, since when, and when their toleration ends.
#include "autoscaler/controller/repair/node_health.h"

#include <catch2/catch.hpp>

#include "tests/unit/controller/repair/repair_test_util.h"

namespace gpua::testing {
namespace {

struct Fixture : LoopFakes {
  NodeGroupBackoff backoff{options.cluster_state.backoff};
  LoopInputs Build(absl::Time now) { return BuildLoopInputs(source, cloud, options, backoff, now); }
};

TEST_CASE("a condition counts from its transition, and is due after its toleration",
          "[controller][repair]") {
  Fixture f;
  H100Pool(f, 2);
  SetCondition(f.source, "h100-1", "AcceleratedHardwareReady", "False", kNow - absl::Minutes(4),
               "NvidiaXID79Error");
  NodeHealthJudge judge(f.options.repair.policies);
  LoopInputs in = f.Build(kNow);
  std::vector<UnhealthyNode> u = judge.Judge(in.state, kNow);
  REQUIRE(u.size() == 1);
  CHECK(in.state.nodes[u[0].node].node->node.name == "h100-1");
  CHECK(u[0].policy.Reason() == "AcceleratedHardwareReady=False");
  CHECK(u[0].due() == kNow + absl::Minutes(6));
  CHECK_FALSE(u[0].Due(kNow));
  CHECK(u[0].Due(kNow + absl::Minutes(6)));
  CHECK(u[0].Describe(kNow) == "AcceleratedHardwareReady=False for 4m (NvidiaXID79Error)");
  // The healthy status of the same condition is no signal.
  SetCondition(f.source, "h100-0", "GpuXidWatch", "False", kNow - absl::Hours(1));
  CHECK(judge.Judge(f.Build(kNow).state, kNow).size() == 1);
}

TEST_CASE("of several signals the one due first is judged", "[controller][repair]") {
  Fixture f;
  H100Pool(f, 1);
  SetCondition(f.source, "h100-0", "KernelReady", "False", kNow - absl::Minutes(25));
  SetCondition(f.source, "h100-0", "GpuNvlinkWatch", "True", kNow - absl::Minutes(1));
  NodeHealthJudge judge(f.options.repair.policies);
  std::vector<UnhealthyNode> u = judge.Judge(f.Build(kNow).state, kNow);
  REQUIRE(u.size() == 1);
  CHECK(u[0].policy.Reason() == "KernelReady=False");  // due in 5m; the NVLink one in 9m
}

TEST_CASE(
    "a taint, and a condition without a time, count from when first seen, and gone are forgotten",
    "[controller][repair]") {
  Fixture f;
  H100Pool(f, 1);
  absl::StatusOr<RepairPolicies> p = RepairPolicies::Parse(
      "policies: [{taint: example.com/gpu-quarantine, toleration: 5m}]", "p.yaml");
  REQUIRE(p.ok());
  f.options.repair.policies = *p;
  EditNode(f.source, "h100-0", [](NodeObject& n) {
    n.node.taints.push_back({"example.com/gpu-quarantine", "xid-79", TaintEffect::kNoSchedule});
  });
  NodeHealthJudge judge(f.options.repair.policies);
  CHECK(judge.Judge(f.Build(kNow).state, kNow).front().since == kNow);
  const absl::Time later = kNow + absl::Minutes(5);
  std::vector<UnhealthyNode> u = judge.Judge(f.Build(later).state, later);
  REQUIRE(u.size() == 1);
  CHECK(u[0].since == kNow);
  CHECK(u[0].Due(later));
  // The taint goes for a loop: when it comes back its clock starts again.
  EditNode(f.source, "h100-0", [](NodeObject& n) { n.node.taints.clear(); });
  CHECK(judge.Judge(f.Build(later).state, later).empty());
  EditNode(f.source, "h100-0", [](NodeObject& n) {
    n.node.taints.push_back({"example.com/gpu-quarantine", "", TaintEffect::kNoSchedule});
  });
  const absl::Time again = later + absl::Minutes(1);
  CHECK(judge.Judge(f.Build(again).state, again).front().since == again);
}

TEST_CASE("a node past its startup with fewer GPUs than its template is missing GPUs",
          "[controller][repair]") {
  Fixture f;
  H100Pool(f, 2);
  EditNode(f.source, "h100-0", [](NodeObject& n) {
    n.node.allocatable.Set("nvidia.com/gpu", Quantity::FromUnits(6));  // lost 2 of 8
  });
  NodeHealthJudge judge(f.options.repair.policies);
  std::vector<UnhealthyNode> u = judge.Judge(f.Build(kNow).state, kNow);
  REQUIRE(u.size() == 1);
  CHECK(u[0].policy.signal == RepairSignal::kGpusMissing);
  CHECK(u[0].since == kNow);
  CHECK(u[0].due() == kNow + absl::Minutes(10));
}

TEST_CASE("a node still starting, being removed, or of no group is not judged",
          "[controller][repair]") {
  Fixture f;
  FakeNodeGroup& g = H100Pool(f, 0);
  RegisterNode(f.source, g, "young", kNow - absl::Minutes(3));
  EditNode(f.source, "young",
           [](NodeObject& n) { n.node.allocatable.Set("nvidia.com/gpu", Quantity::FromUnits(0)); });
  RegisterNode(f.source, g, "leaving", kNow - absl::Hours(2));
  SetCondition(f.source, "leaving", "GpuMemWatch", "True", kNow - absl::Hours(1));
  EditNode(f.source, "leaving", [](NodeObject& n) {
    n.node.taints.push_back({kToBeDeletedTaint, "1", TaintEffect::kNoSchedule});
  });
  auto stray =
      std::make_shared<NodeObject>(*NodeOf("stray", H100Template(), kNow - absl::Hours(3)));
  stray->provider_id = "other://stray";
  stray->conditions.push_back({"GpuMemWatch", "True", "", "", kNow - absl::Hours(1)});
  f.source.AddNode(stray);
  NodeHealthJudge judge(f.options.repair.policies);
  CHECK(judge.Judge(f.Build(kNow).state, kNow).empty());
}

}  // namespace
}  // namespace gpua::testing
