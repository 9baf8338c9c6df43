// Node repair: which broken nodes are tainted and replaced now, within the budget and the
// group's sizes, and how the repairer writes its intent before it acts.
#include "autoscaler/controller/repair/node_repair.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "autoscaler/controller/model/events.h"
#include "tests/unit/controller/repair/repair_test_util.h"

namespace gpua::testing {
namespace {

struct Fixture : LoopFakes {
  NodeGroupBackoff backoff{options.cluster_state.backoff};
  NodeHealthJudge judge{options.repair.policies};
  LoopInputs in;

  RepairPlan Plan(absl::Time now = kNow) {
    in = BuildLoopInputs(source, cloud, options, backoff, now);
    return PlanRepairs(in.state, *in.view, judge.Judge(in.state, now), options.repair);
  }
  std::string NameOf(int node) const { return in.state.nodes[node].node->node.name; }
  // XID 79 on `name`, for long enough to be due.
  void Break(const std::string& name, absl::Duration ago = absl::Minutes(11)) {
    SetCondition(source, name, "AcceleratedHardwareReady", "False", kNow - ago, "NvidiaXID79Error");
  }
};

TEST_CASE("three of five nodes broken at once: all tainted, one repaired at a time",
          "[controller][repair]") {
  Fixture f;
  H100Pool(f, 5);
  f.Break("h100-1", absl::Minutes(13));
  f.Break("h100-2", absl::Minutes(12));
  f.Break("h100-4", absl::Minutes(11));
  RepairPlan plan = f.Plan();
  CHECK(plan.cordon.size() == 3);
  REQUIRE(plan.start.size() == 1);
  CHECK(f.NameOf(plan.start[0].node) == "h100-1");  // the longest broken first
  REQUIRE(plan.waiting.size() == 2);
  CHECK_THAT(plan.waiting[0].reason,
             Catch::Contains("1 of the 5 nodes of group h100 are under repair") &&
                 Catch::Contains("at most 1"));
  // Once its intent is on the node, the next loop counts it and starts no other.
  EditNode(f.source, "h100-1",
           [](NodeObject& n) { n.annotations[kRepairAnnotation] = "AcceleratedHardwareReady"; });
  EditNode(f.source, "h100-1", [](NodeObject& n) {
    n.node.taints.push_back({kToBeDeletedTaint, "1", TaintEffect::kNoSchedule});
  });
  plan = f.Plan();
  CHECK(plan.under_repair == 1);
  CHECK(plan.start.empty());
  CHECK(plan.waiting.size() == 2);
}

TEST_CASE("the cluster's share bounds repairs across groups", "[controller][repair]") {
  Fixture f;
  FakeNodeGroup& big = f.cloud.AddGroup("big", 0, 20, H100Template());
  for (int i = 0; i < 10; ++i)
    RegisterNode(f.source, big, "big-" + std::to_string(i), kNow - absl::Hours(1));
  FakeNodeGroup& one = f.cloud.AddGroup("one", 0, 5, H100Template());
  RegisterNode(f.source, one, "one-0", kNow - absl::Hours(1));
  f.Break("big-0", absl::Minutes(15));
  f.Break("big-1", absl::Minutes(14));
  f.Break("one-0", absl::Minutes(13));
  const RepairPlan plan = f.Plan();  // 20% of 11 nodes: 2 at once; of big's 10: 2
  REQUIRE(plan.start.size() == 2);
  REQUIRE(plan.waiting.size() == 1);
  CHECK(f.NameOf(plan.waiting[0].why.node) == "one-0");
  CHECK_THAT(plan.waiting[0].reason, Catch::Contains("of the cluster's 11 nodes"));
}

TEST_CASE("a replacement is asked for when the pods need a home or the group its minimum",
          "[controller][repair]") {
  Fixture f;
  H100Pool(f, 3, /*min=*/2);
  RunningPod(f.source, "train-0", "h100-0", H100Template().allocatable);
  f.Break("h100-0");
  RepairPlan plan = f.Plan();
  REQUIRE(plan.start.size() == 1);
  CHECK(plan.start[0].replacement_group == "h100");  // its pod needs a home

  Fixture idle;
  H100Pool(idle, 3, /*min=*/2);
  idle.Break("h100-2");
  plan = idle.Plan();
  REQUIRE(plan.start.size() == 1);
  CHECK(plan.start[0].replacement_group.empty());  // 3 -> 2 keeps the minimum: removed only

  Fixture at_min;
  H100Pool(at_min, 2, /*min=*/2);
  at_min.Break("h100-1");
  plan = at_min.Plan();
  REQUIRE(plan.start.size() == 1);
  CHECK(plan.start[0].replacement_group == "h100");

  Fixture fixed;
  H100Pool(fixed, 2, /*min=*/2, /*max=*/2);
  fixed.Break("h100-1");
  plan = fixed.Plan();
  CHECK(plan.start.empty());
  REQUIRE(plan.waiting.size() == 1);
  CHECK_THAT(plan.waiting[0].reason, Catch::Contains("maximum size (2) and its minimum (2)"));
}

TEST_CASE(
    "a repair whose intent a restart interrupted is carried on, its replacement not asked twice",
    "[controller][repair]") {
  Fixture f;
  H100Pool(f, 2, /*min=*/2);
  EditNode(f.source, "h100-0", [](NodeObject& n) {
    n.annotations[kRepairAnnotation] = "GpuXidWatch=True for 12m";
    n.annotations[kRepairReplacementAnnotation] = "h100";
  });
  const RepairPlan plan = f.Plan();  // the signal has gone meanwhile: the repair goes on
  REQUIRE(plan.start.size() == 1);
  CHECK(plan.start[0].resumed);
  CHECK(plan.start[0].replacement_group.empty());
  CHECK(plan.start[0].description == "GpuXidWatch=True for 12m");
}

TEST_CASE("a tainted node whose signal has gone is untainted, and with repair off nothing is done",
          "[controller][repair]") {
  Fixture f;
  H100Pool(f, 2);
  EditNode(f.source, "h100-0", [](NodeObject& n) {
    n.node.taints.push_back({kUnhealthyTaint, "GpuXidWatch-True", TaintEffect::kNoSchedule});
  });
  f.Break("h100-1");
  RepairPlan plan = f.Plan();
  REQUIRE(plan.uncordon.size() == 1);
  CHECK(f.NameOf(plan.uncordon[0]) == "h100-0");

  f.options.repair.enabled = false;
  plan = f.Plan();
  CHECK(plan.unhealthy.size() == 1);  // still seen and reported
  CHECK(plan.cordon.empty());
  CHECK(plan.start.empty());
}

TEST_CASE("the repairer taints, writes its intent, then asks the replacement",
          "[controller][repair]") {
  Fixture f;
  FakeNodeGroup& g = H100Pool(f, 2);
  RunningPod(f.source, "train-0", "h100-1", H100Template().allocatable);
  f.Break("h100-1");
  RepairPlan plan = f.Plan();
  MarkRepaired(plan, f.in.state);
  CHECK(f.in.state.FindGroup("h100")->counts.being_deleted == 1);
  NodeRepairer repairer(f.writer, f.log, f.options.status);
  RepairReport report;
  PlanningInput input = PlanningInputOf(f.in, f.kept, kNow);
  const std::vector<int> begun = repairer.Act(plan, input, report);
  REQUIRE(begun.size() == 1);
  CHECK(f.NameOf(begun[0]) == "h100-1");
  CHECK(report.cordoned == 1);
  CHECK(report.by_reason["AcceleratedHardwareReady=False"] == 1);
  CHECK(report.replacements == std::vector<std::string>{"h100"});
  CHECK(g.target == 3);
  CHECK(f.writer.taints["h100-1"][kUnhealthyTaint].value == "AcceleratedHardwareReady-False");
  // The intent, then the replacement's, each before what it records.
  const auto at = [&](const std::string& prefix) {
    return std::find_if(f.writer.calls.begin(), f.writer.calls.end(),
                        [&](const std::string& c) { return c.rfind(prefix, 0) == 0; }) -
           f.writer.calls.begin();
  };
  CHECK(at("Annotate h100-1 gpu-autoscaler.io/repair=") <
        at("Annotate h100-1 gpu-autoscaler.io/repair-replacement=h100"));
  CHECK(f.writer.EventsWithReason(event_reason::kNodeUnhealthy).size() == 1);
  const auto repairing = f.writer.EventsWithReason(event_reason::kRepairingNode);
  REQUIRE(repairing.size() == 1);
  CHECK_THAT(repairing[0].message, Catch::Contains("AcceleratedHardwareReady=False for 11m") &&
                                       Catch::Contains("a new node of group h100 asked for"));
}

TEST_CASE("a refused replacement is forgotten, and a group at its minimum keeps the node",
          "[controller][repair]") {
  Fixture f;
  FakeNodeGroup& g = H100Pool(f, 1, /*min=*/1);
  g.failing["IncreaseSize"] = absl::ResourceExhaustedError("out of H100s");
  f.Break("h100-0");
  RepairPlan plan = f.Plan();
  REQUIRE(plan.start.size() == 1);
  NodeRepairer repairer(f.writer, f.log, f.options.status);
  RepairReport report;
  PlanningInput input = PlanningInputOf(f.in, f.kept, kNow);
  CHECK(repairer.Act(plan, input, report).empty());
  CHECK(f.writer.annotations["h100-0"].count(kRepairReplacementAnnotation) == 0);
  CHECK(f.writer.annotations["h100-0"].count(kRepairAnnotation) == 1);
  REQUIRE(report.errors.size() == 1);
  CHECK_THAT(report.errors[0], Catch::Contains("out of H100s"));
}

TEST_CASE("a repair that waits says so once, and again only when the reason changes",
          "[controller][repair]") {
  Fixture f;
  H100Pool(f, 5);
  f.Break("h100-0", absl::Minutes(12));
  f.Break("h100-1", absl::Minutes(11));
  NodeRepairer repairer(f.writer, f.log, f.options.status);
  for (int loop = 0; loop < 3; ++loop) {
    RepairPlan plan = f.Plan();
    plan.start.clear();  // as though begun elsewhere: only the waiting one matters here
    RepairReport report;
    PlanningInput input = PlanningInputOf(f.in, f.kept, kNow);
    repairer.Act(plan, input, report);
  }
  CHECK(f.writer.EventsWithReason(event_reason::kNodeRepairDeferred).size() == 1);
}

}  // namespace
}  // namespace gpua::testing
