// The fault soak's checker catches what it is there to catch: bugs planted on purpose (a
// node deleted without its pods evicted, a group asked past its max, a pod dropped, a taint
// forgotten, two leaders) each count, and the same actions done right count nothing.
#include "autoscaler/sim/invariant_checker.h"

#include <catch2/catch.hpp>

#include "autoscaler/sim/trace.h"
#include "base/clock.h"
#include "estimator/taints.h"
#include "tests/unit/sim/sim_test_util.h"

namespace gpua::sim {
namespace {

using testing::CpuGroups;
using testing::MachineOf;

constexpr char kTrace[] =
    R"({"at": 0, "name": "train", "count": 2, "runFor": "1h", "pod": {"spec": {"containers": [{"name": "m", "resources": {"requests": {"cpu": "2"}}}]}}}
)";

struct World {
  ManualClock clock;
  std::vector<NodeGroupConfig> groups = CpuGroups();
  SimCluster cluster{groups, clock};
  SimulatedCloud cloud{groups, clock};
  InvariantChecker checker{cluster, ControllerOptions{}, absl::Seconds(10)};
  Trace trace;
  World() {
    auto t = ParseTrace(kTrace, "trace.jsonl", ".");
    REQUIRE(t.ok());
    trace = *std::move(t);
    cluster.SyncNodes({MachineOf("a", clock.Now()), MachineOf("b", clock.Now())});
    for (const TraceArrival& a : trace.arrivals) cluster.Arrive(a);
    cluster.Bind("default/train-0", "cpu-a");
    cluster.Bind("default/train-1", "cpu-b");
  }
  int64_t count(Invariant i) const { return checker.counts()[static_cast<size_t>(i)]; }
  NodeGroup& group() {
    auto groups = cloud.NodeGroups();
    REQUIRE(groups.ok());
    return *groups->front();
  }
};

TEST_CASE(
    "a node deleted while its pod still runs, never evicted, is a violation, and drained it is not",
    "[faults][invariants]") {
  World w;
  // The planted bug: delete cpu-a without evicting train-0.
  w.checker.BeforeDelete(w.group(), {NodeRef{"sim://cpu/a", "cpu-a", {}, {}}});
  CHECK(w.count(Invariant::kDeletedWithRunningPod) == 1);
  REQUIRE(!w.checker.first().empty());
  CHECK_THAT(w.checker.first().front().details,
             Catch::Contains("cpu-a") && Catch::Contains("default/train-0"));
  // Done right: the pod is evicted first.
  REQUIRE(w.cluster.Evict("default", "train-1", std::nullopt).ok());
  w.checker.BeforeDelete(w.group(), {NodeRef{"sim://cpu/b", "cpu-b", {}, {}}});
  CHECK(w.count(Invariant::kDeletedWithRunningPod) == 1);
}

TEST_CASE(
    "a node deleted after its pod's budget refused the eviction is a violation that names the "
    "budget, and a node kept is not",
    "[faults][invariants][budgets]") {
  // train's two pods run on cpu-a and cpu-b; its budget wants both (minAvailable 2).
  World w;
  TraceArrival budgeted = w.trace.arrivals.front();
  GiveDisruptionBudget(budgeted, 2);
  SimCluster cluster{w.groups, w.clock};
  InvariantChecker checker{cluster, ControllerOptions{}, absl::Seconds(10)};
  cluster.SyncNodes({MachineOf("a", w.clock.Now()), MachineOf("b", w.clock.Now())});
  cluster.Arrive(budgeted);
  cluster.Bind("default/train-0", "cpu-a");
  cluster.Bind("default/train-1", "cpu-b");

  // Done right: the Eviction API answers 429, and the node stays.
  checker.Evicting("default", "train-0");
  REQUIRE(cluster.Evict("default", "train-0", std::nullopt).value() ==
          EvictionResult::kBlockedByBudget);
  CHECK(checker.total() == 0);
  // The planted bug: a controller that skips the budget's answer and deletes the node.
  checker.BeforeDelete(w.group(), {NodeRef{"sim://cpu/a", "cpu-a", {}, {}}});
  CHECK(checker.counts()[static_cast<size_t>(Invariant::kDeletedWithRunningPod)] == 1);
  REQUIRE(!checker.first().empty());
  CHECK_THAT(checker.first().front().details,
             Catch::Contains("default/train-0") &&
                 Catch::Contains("PodDisruptionBudget default/train allowing no disruption"));
}

TEST_CASE(
    "a node deleted after a pod that says safe-to-evict false was evicted from it is a "
    "violation",
    "[faults][invariants]") {
  World w;
  TraceArrival pinned = w.trace.arrivals.front();
  auto shape = std::make_shared<PodObject>(*pinned.shape);
  shape->safe_to_evict = false;
  pinned.shape = std::move(shape);
  SimCluster cluster{w.groups, w.clock};
  InvariantChecker checker{cluster, ControllerOptions{}, absl::Seconds(10)};
  cluster.SyncNodes({MachineOf("a", w.clock.Now()), MachineOf("b", w.clock.Now())});
  cluster.Arrive(pinned);
  cluster.Bind("default/train-0", "cpu-a");
  cluster.Bind("default/train-1", "cpu-b");
  // The planted bug: the drain rules skipped, the pod evicted (the API lets it go: the
  // annotation is the autoscaler's rule, not the API server's) and the node deleted.
  checker.Evicting("default", "train-0");
  REQUIRE(cluster.Evict("default", "train-0", std::nullopt).value() == EvictionResult::kEvicted);
  checker.BeforeDelete(w.group(), {NodeRef{"sim://cpu/a", "cpu-a", {}, {}}});
  CHECK(checker.total() == 1);
  REQUIRE(!checker.first().empty());
  CHECK_THAT(checker.first().front().details, Catch::Contains("cpu-a") &&
                                                  Catch::Contains("default/train-0") &&
                                                  Catch::Contains("safe-to-evict"));
  // A node that ends its pods some other way (they finished) is not held to it.
  w.clock.Advance(absl::Hours(2));
  cluster.EndDuePods();
  checker.BeforeDelete(w.group(), {NodeRef{"sim://cpu/b", "cpu-b", {}, {}}});
  CHECK(checker.total() == 1);
}

TEST_CASE("asking a group past its max or below its min is a violation", "[faults][invariants]") {
  World w;
  NodeGroup& g = w.group();  // max 10, at 0
  w.checker.BeforeResize(g, 3, "IncreaseSize");
  CHECK(w.count(Invariant::kGroupOutsideMinMax) == 0);
  w.checker.BeforeResize(g, 11, "IncreaseSize");
  w.checker.BeforeResize(g, -1, "DecreaseTargetSize");
  CHECK(w.count(Invariant::kGroupOutsideMinMax) == 2);
}

TEST_CASE("a pod that is neither pending, running nor finished is lost", "[faults][invariants]") {
  World w;
  LoopReport report;
  w.checker.AfterLoop(report, false, 2);
  CHECK(w.count(Invariant::kPodLost) == 0);
  w.checker.AfterLoop(report, false, 3);  // one more arrived than the cluster holds
  CHECK(w.count(Invariant::kPodLost) == 1);
}

TEST_CASE("our taint on a node judged needed, untouched for two loops, is left behind",
          "[faults][invariants]") {
  World w;
  REQUIRE(
      w.cluster.AddTaint("cpu-a", {kDeletionCandidateTaint, "1", TaintEffect::kPreferNoSchedule})
          .ok());
  LoopReport report;
  report.node_verdicts = {{"cpu-a", false}, {"cpu-b", false}};
  // A loop that tried to take it off is not held against it, however the write went.
  w.checker.TriedNode("cpu-a");
  w.checker.AfterLoop(report, false, 2);
  w.checker.AfterLoop(report, /*view_stale=*/true, 2);  // it could not see the taint
  CHECK(w.count(Invariant::kTaintLeftBehind) == 0);
  w.checker.AfterLoop(report, false, 2);
  w.checker.AfterLoop(report, false, 2);
  w.checker.AfterLoop(report, false, 2);
  CHECK(w.count(Invariant::kTaintLeftBehind) == 1);  // once for the episode
  // Judged unneeded, the taint is the plan's.
  report.node_verdicts = {{"cpu-a", true}};
  World fresh;
  REQUIRE(fresh.cluster
              .AddTaint("cpu-a", {kDeletionCandidateTaint, "1", TaintEffect::kPreferNoSchedule})
              .ok());
  for (int i = 0; i < 3; ++i) fresh.checker.AfterLoop(report, false, 2);
  CHECK(fresh.count(Invariant::kTaintLeftBehind) == 0);
}

TEST_CASE("two replicas acting in one loop is a violation", "[faults][invariants]") {
  World w;
  w.checker.Leaders(1);
  w.checker.Leaders(0);
  CHECK(w.count(Invariant::kTwoLeaders) == 0);
  w.checker.Leaders(2);
  CHECK(w.count(Invariant::kTwoLeaders) == 1);
  CHECK(w.checker.total() == 1);
}

TEST_CASE("a pod placed on a node long after its GPUs failed is a violation, and soon after is not",
          "[faults][invariants][repair]") {
  ManualClock clock;
  std::vector<NodeGroupConfig> groups = CpuGroups();
  SimCluster cluster{groups, clock};
  InvariantChecker checker{cluster, ControllerOptions{}, absl::Seconds(10)};
  auto trace = ParseTrace(kTrace, "trace.jsonl", ".");
  REQUIRE(trace.ok());
  Machine fresh = MachineOf("a", clock.Now());
  fresh.gpu_failed_at = clock.Now() - absl::Minutes(5);
  Machine stale = MachineOf("b", clock.Now());
  stale.gpu_failed_at = clock.Now() - absl::Hours(1);
  cluster.SyncNodes({fresh, stale});
  REQUIRE(cluster.nodes().at("cpu-a").object->Condition("AcceleratedHardwareReady") != nullptr);
  for (const TraceArrival& a : trace->arrivals) cluster.Arrive(a);
  cluster.Bind("default/train-0", "cpu-a");  // within the toleration: the scheduler's right
  cluster.Bind("default/train-1", "cpu-b");  // an hour on: the controller should have cordoned it
  checker.AfterLoop(LoopReport{}, false, 2);
  CHECK(checker.counts()[static_cast<size_t>(Invariant::kPlacedOnBrokenNode)] == 1);
  REQUIRE(!checker.first().empty());
  CHECK_THAT(checker.first().front().details,
             Catch::Contains("cpu-b") && Catch::Contains("AcceleratedHardwareReady=False"));
  CHECK(cluster.accounts().gpu_failures == 2);
  CHECK(cluster.accounts().pods_bound_to_broken == 2);
}

}  // namespace
}  // namespace gpua::sim
