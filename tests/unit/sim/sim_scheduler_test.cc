// The simulation's kube-scheduler: each pod shape's list of admitting nodes is kept and
// follows the nodes that come, go and change, and must place pods as a fresh list would.
#include "autoscaler/sim/sim_scheduler.h"

#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"
#include "autoscaler/sim/trace.h"
#include "base/clock.h"
#include "cloudproviders/node_group_file.h"
#include "tests/unit/sim/sim_test_util.h"

namespace gpua::sim {
namespace {

using testing::CpuGroups;
using testing::MachineOf;

// One pod of the same shape every ten minutes, each running a day.
constexpr char kTrace[] =
    R"({"at": 0, "name": "p0", "runFor": "24h", "pod": {"spec": {"containers": [{"name": "m", "resources": {"requests": {"cpu": "1"}}}]}}}
{"at": 600, "name": "p1", "runFor": "24h", "pod": {"spec": {"containers": [{"name": "m", "resources": {"requests": {"cpu": "1"}}}]}}}
{"at": 1200, "name": "p2", "runFor": "24h", "pod": {"spec": {"containers": [{"name": "m", "resources": {"requests": {"cpu": "1"}}}]}}}
{"at": 1800, "name": "p3", "runFor": "24h", "pod": {"spec": {"containers": [{"name": "m", "resources": {"requests": {"cpu": "1"}}}]}}}
{"at": 2400, "name": "p4", "runFor": "24h", "pod": {"spec": {"containers": [{"name": "m", "resources": {"requests": {"cpu": "1"}}}]}}}
)";

TEST_CASE(
    "pods of one shape go to the nodes that admit them as the nodes come, go and are "
    "tainted between passes") {
  ManualClock clock;
  const std::vector<NodeGroupConfig> groups = CpuGroups();
  auto trace = ParseTrace(kTrace, "trace.jsonl", ".");
  REQUIRE(trace.ok());
  REQUIRE(trace->arrivals.size() == 5);
  SimCluster cluster(groups, clock);
  SimScheduler scheduler(Scoring::kLeastAllocated);
  const absl::Time t = clock.Now();
  const auto place = [&](int i) {
    cluster.Arrive(trace->arrivals[i]);
    scheduler.Run(cluster);
    return cluster.pod(absl::StrCat("default/p", i)).node;
  };
  // One change at a time, so the kept list takes each in rather than being made afresh.
  cluster.SyncNodes({MachineOf("a", t), MachineOf("b", t)});
  CHECK(place(0) == "cpu-a");  // a tie goes to the first by name

  REQUIRE(cluster.AddTaint("cpu-a", {"dedicated", "x", TaintEffect::kNoSchedule}).ok());
  CHECK(place(1) == "cpu-b");
  cluster.SyncNodes({MachineOf("a", t), MachineOf("b", t), MachineOf("c", t)});
  cluster.SyncNodes({MachineOf("a", t), MachineOf("c", t)});  // b goes with its pod
  CHECK(place(2) == "cpu-c");

  CHECK(cluster.pod("default/p1-r1").node == "cpu-c");  // b's pod, made again

  // The taint goes: a holds one pod and c two, so a wins.
  REQUIRE(cluster.RemoveTaint("cpu-a", "dedicated").ok());
  CHECK(place(3) == "cpu-a");
  // b comes back empty: the least allocated node wins.
  cluster.SyncNodes({MachineOf("a", t), MachineOf("b", t), MachineOf("c", t)});
  CHECK(place(4) == "cpu-b");
}

TEST_CASE(
    "the cluster remembers which nodes changed what they admit, for its last "
    "NodeChangeLog::kKept versions") {
  ManualClock clock;
  const std::vector<NodeGroupConfig> groups = CpuGroups();
  SimCluster cluster(groups, clock);
  const absl::Time start = clock.Now();
  cluster.SyncNodes({MachineOf("a", start), MachineOf("b", start)});
  const int64_t before = cluster.nodes_version();
  REQUIRE(cluster.AddTaint("cpu-b", {"dedicated", "x", TaintEffect::kNoSchedule}).ok());
  std::vector<std::string> changed;
  REQUIRE(cluster.NodesChangedSince(before, &changed));
  CHECK(changed == std::vector<std::string>{"cpu-b"});

  // A mark that only lowers the node's score, or an annotation, changes no verdict.
  const int64_t marked = cluster.nodes_version();
  REQUIRE(cluster
              .AddTaint("cpu-a", {"DeletionCandidateOfClusterAutoscaler", "1",
                                  TaintEffect::kPreferNoSchedule})
              .ok());
  REQUIRE(cluster.Annotate("cpu-a", "note", "x").ok());
  CHECK(cluster.nodes_version() == marked);

  for (size_t i = 0; i < NodeChangeLog::kKept; ++i) {
    REQUIRE(cluster.SetUnschedulable("cpu-a", i % 2 == 0).ok());
  }
  changed.clear();
  CHECK_FALSE(cluster.NodesChangedSince(before, &changed));  // forgotten: list them afresh
  REQUIRE(cluster.NodesChangedSince(cluster.nodes_version() - 1, &changed));
  CHECK(changed == std::vector<std::string>{"cpu-a"});
}

}  // namespace
}  // namespace gpua::sim
