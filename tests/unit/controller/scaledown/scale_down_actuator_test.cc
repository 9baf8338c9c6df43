// The scale-down actuator alone: intent first, evictions that PDBs decide, deletion through
// the group, and a removal that cannot finish undone. On the shared fakes.
#include "autoscaler/controller/scaledown/scale_down_actuator.h"

#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"
#include "autoscaler/controller/model/events.h"
#include "tests/support/fake_cluster.h"
#include "tests/support/fake_kube_writer.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {
namespace {

struct RemovalFixture : LoopFakes {
  RemovalFixture() {
    FakeNodeGroup& g = cloud.AddGroup("h100", 0, 4, H100Template());
    node = RegisterNode(source, g, "h100-0", kNow - absl::Hours(2));
    RunningPod(source, "infer-0", "h100-0", Res({{"nvidia.com/gpu", "1"}}));
  }
  PlanningInput Input(LoopInputs& in, absl::Time now) { return PlanningInputOf(in, kept, now); }
  LoopInputs Inputs(absl::Time now) {
    return BuildLoopInputs(source, cloud, options, backoff, now);
  }
  // The node as the cluster shows it once a removal began at `since`.
  void MarkedForRemoval(absl::Time since) {
    auto marked = std::make_shared<NodeObject>(*node);
    marked->node.taints.push_back(
        {kToBeDeletedTaint, absl::StrCat(absl::ToUnixSeconds(since)), TaintEffect::kNoSchedule});
    marked->annotations[kRemovalReasonAnnotation] = "underutilized";
    source.ReplaceNode(marked);
  }
  void PodsGone() { source.view.pods_by_node.erase("h100-0"); }

  NodeGroupBackoff backoff{BackoffOptions{}};
  NodePtr node;
  ScaleDownActuator actuator{writer, log, options.scale_down, options.status};
};

TEST_CASE("a removal writes its intent before the first eviction, then deletes through the group",
          "[controller][scale-down][actuator]") {
  RemovalFixture f;
  LoopInputs in = f.Inputs(kNow);
  ScaleDownReport report;
  f.actuator.Start({{0, "underutilized", {}, ""}}, f.Input(in, kNow), report);
  REQUIRE(f.writer.calls.size() >= 3);
  CHECK_THAT(f.writer.calls[0],
             Catch::StartsWith("AddTaint h100-0 ToBeDeletedByClusterAutoscaler="));
  CHECK(f.writer.calls[1] == "Annotate h100-0 gpu-autoscaler.io/removal-reason=underutilized");
  CHECK(f.writer.evicted == std::vector<std::string>{"ml/infer-0"});
  CHECK(f.writer.CallsTo("Evict") == 1);
  CHECK(report.started == 1);
  CHECK(f.cloud.Find("h100")->deletions.empty());  // its pod is still there

  f.MarkedForRemoval(kNow);
  f.PodsGone();
  LoopInputs later = f.Inputs(kNow + absl::Seconds(30));
  ScaleDownReport next;
  f.actuator.Continue(f.Input(later, kNow + absl::Seconds(30)), next);
  REQUIRE(next.deleted.size() == 1);
  CHECK(next.deleted[0].node == "h100-0");
  CHECK(f.cloud.Find("h100")->deletions == std::vector<std::vector<std::string>>{{"h100-0"}});
  CHECK(f.cloud.Find("h100")->target == 0);
}

TEST_CASE("an eviction a PodDisruptionBudget blocks is asked again, never forced, then undone",
          "[controller][scale-down][actuator]") {
  RemovalFixture f;
  f.writer.eviction_results["ml/infer-0"] = EvictionResult::kBlockedByBudget;
  f.MarkedForRemoval(kNow);
  // Within the drain time: asked again each loop, the node stays marked.
  for (absl::Duration after : {absl::Seconds(10), absl::Minutes(5)}) {
    LoopInputs in = f.Inputs(kNow + after);
    ScaleDownReport report;
    f.actuator.Continue(f.Input(in, kNow + after), report);
    CHECK(report.evictions["blocked"] == 1);
    CHECK(report.rolled_back == 0);
  }
  CHECK(f.writer.evicted.empty());
  CHECK(f.cloud.Find("h100")->deletions.empty());
  // Past --max-graceful-termination-sec and --max-pod-eviction-time: undone.
  const absl::Time late = kNow + absl::Minutes(13);
  LoopInputs in = f.Inputs(late);
  ScaleDownReport report;
  f.actuator.Continue(f.Input(in, late), report);
  CHECK(report.rolled_back == 1);
  CHECK(f.writer.CallsTo("RemoveTaint") == 2);  // ToBeDeleted and DeletionCandidate
  const auto failed = f.writer.EventsWithReason(event_reason::kScaleDownFailed);
  REQUIRE(failed.size() == 1);
  CHECK_THAT(failed[0].message, Catch::Contains("PodDisruptionBudget"));
  CHECK(f.cloud.Find("h100")->deletions.empty());
}

TEST_CASE("a group that will not delete the node leaves it marked for the next loop",
          "[controller][scale-down][actuator]") {
  RemovalFixture f;
  f.cloud.Find("h100")->failing["DeleteNodes"] = absl::InternalError("api down");
  f.MarkedForRemoval(kNow);
  f.PodsGone();
  LoopInputs in = f.Inputs(kNow + absl::Seconds(10));
  ScaleDownReport report;
  f.actuator.Continue(f.Input(in, kNow + absl::Seconds(10)), report);
  CHECK(report.delete_errors == 1);
  CHECK(report.rolled_back == 0);
  CHECK(f.writer.CallsTo("RemoveTaint") == 0);
}

TEST_CASE("unneeded nodes get the DeletionCandidate taint valued with now, and others lose it",
          "[controller][scale-down][actuator]") {
  RemovalFixture f;
  LoopInputs in = f.Inputs(kNow);
  ScaleDownPlan plan;
  plan.mark = {0};
  f.actuator.Mark(plan, in.state);
  REQUIRE(f.writer.HasTaint("h100-0", kDeletionCandidateTaint));
  CHECK(f.writer.taints["h100-0"][kDeletionCandidateTaint].value ==
        absl::StrCat(absl::ToUnixSeconds(kNow)));
  CHECK(f.writer.taints["h100-0"][kDeletionCandidateTaint].effect ==
        TaintEffect::kPreferNoSchedule);
  plan.mark.clear();
  plan.unmark = {0};
  f.actuator.Mark(plan, in.state);
  CHECK_FALSE(f.writer.HasTaint("h100-0", kDeletionCandidateTaint));
}

}  // namespace
}  // namespace gpua::testing
