// The scale-up planner alone, on the shared fakes: what it is handed (view, state,
// nominations, what it kept) is all it sees.
#include "autoscaler/controller/scaleup/scale_up_planner.h"

#include <catch2/catch.hpp>

#include "estimator/expander.h"
#include "tests/support/fake_cluster.h"
#include "tests/support/fake_kube_writer.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {
namespace {

struct PlannerFixture {
  PlannerFixture() {
    options.scale_up.expander = "price";
    cloud.AddGroup("h100", 0, 2, H100Template()).price_per_hour = 10;  // the cheaper
    cloud.AddGroup("a100", 0, 2, A100Template()).price_per_hour = 20;
  }
  ScaleUpDecision Plan(const std::vector<PodPtr>& pending) {
    NodeGroupBackoff backoff(options.cluster_state.backoff);
    inputs = BuildLoopInputs(source, cloud, options, backoff, kNow);
    return PlanOn(pending);
  }
  // Plans `pending` on the inputs as they are.
  ScaleUpDecision PlanOn(const std::vector<PodPtr>& pending) {
    std::unique_ptr<Expander> expander = *MakeExpanderChain(options.scale_up.expander, {});
    ScaleUpPlanner planner(options.scale_up, options.limits);
    return planner.Plan(PlanningInputOf(inputs, loop, kNow),
                        {pending, *expander, EarlierRounds{}, nominations}, kept);
  }
  ControllerOptions options;
  FakeCloudProvider cloud;
  FakeClusterSource source;
  Nominations nominations;
  FakeKubeWriter writer;
  MemoryLogSink log;
  LoopMemory loop{writer, options, log};
  ScaleUpMemory kept;
  LoopInputs inputs;
};

TEST_CASE("an 8-GPU pod goes to the cheapest pool that holds it, one node",
          "[controller][scale-up][planner]") {
  PlannerFixture f;
  const ScaleUpDecision d = f.Plan({PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow)});
  REQUIRE(d.requests.size() == 1);
  CHECK(d.requests[0].group == "h100");
  CHECK(d.requests[0].delta == 1);
  REQUIRE(d.requests[0].pods.size() == 1);
  CHECK(d.requests[0].pods[0]->spec.name == "train-0");
  CHECK(d.without.empty());
  CHECK(d.fit_existing.empty());
}

TEST_CASE("a pool at its max is skipped and the next-best pool is asked",
          "[controller][scale-up][planner]") {
  PlannerFixture f;
  FakeNodeGroup& h100 = *f.cloud.Find("h100");
  for (int i = 0; i < 2; ++i) {  // at its max of 2, both nodes full
    const std::string name = absl::StrCat("h100-", i);
    RegisterNode(f.source, h100, name, kNow - absl::Hours(1));
    RunningPod(f.source, absl::StrCat("busy-", i), name, Res({{"nvidia.com/gpu", "8"}}));
  }
  const ScaleUpDecision d = f.Plan({PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow)});
  REQUIRE(d.requests.size() == 1);
  CHECK(d.requests[0].group == "a100");
  CHECK(d.without.empty());
}

TEST_CASE("with every pool at its max, the pod hears why from each: max reached",
          "[controller][scale-up][planner]") {
  PlannerFixture f;
  f.cloud.Find("h100")->max_size = 0;
  f.cloud.Find("a100")->max_size = 0;
  const ScaleUpDecision d = f.Plan({PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow)});
  CHECK(d.requests.empty());
  REQUIRE(d.without.size() == 1);
  const GroupReasons& why = *d.without[0].reasons;
  REQUIRE(why.size() == 2);
  CHECK_THAT(why.at("h100"),
             Catch::Contains("node group h100 can add no more nodes (0 new node(s)"));
  CHECK_THAT(why.at("a100"),
             Catch::Contains("node group a100 can add no more nodes (0 new node(s)"));
}

TEST_CASE("a backed-off pool is left out with its error, and its pods go elsewhere",
          "[controller][scale-up][planner]") {
  PlannerFixture f;
  NodeGroupBackoff backoff(f.options.cluster_state.backoff);
  backoff.Fail("h100", "OutOfResource", "no capacity in us-east-1a", kNow);
  f.inputs = BuildLoopInputs(f.source, f.cloud, f.options, backoff, kNow);
  const std::vector<PodPtr> pending = {PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow),
                                       PendingPod("huge-0", Res({{"nvidia.com/gpu", "16"}}), kNow)};
  const ScaleUpDecision d = f.PlanOn(pending);
  REQUIRE(d.requests.size() == 1);
  CHECK(d.requests[0].group == "a100");
  REQUIRE(d.without.size() == 1);  // 16 GPUs fit no node of any pool
  CHECK_THAT(d.without[0].reasons->at("h100"),
             Catch::Contains("backed off") && Catch::Contains("no capacity in us-east-1a"));
}

TEST_CASE("a pod that a node still coming holds is left to the scheduler, not asked for again",
          "[controller][scale-up][planner]") {
  PlannerFixture f;
  f.cloud.Find("h100")->IncreaseSize(1).IgnoreError();  // asked for, not registered
  const ScaleUpDecision d = f.Plan({PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow)});
  CHECK(d.requests.empty());
  REQUIRE(d.fit_existing.size() == 1);
  REQUIRE(d.on_their_way.size() == 1);
  CHECK(d.on_their_way[0].slot.group == 0);
  CHECK(d.on_their_way[0].slot.upcoming == 0);
}

}  // namespace
}  // namespace gpua::testing
