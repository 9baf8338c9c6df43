// The simulated cluster keeps one view from loop to loop and patches it: after any mix of
// arrivals, bindings, evictions, finished pods and lost nodes, it must be the view a fresh
// read of the cluster would give, and a view someone still holds must not change under them.
#include "autoscaler/sim/sim_cluster.h"

#include <catch2/catch.hpp>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "autoscaler/sim/trace.h"
#include "base/clock.h"
#include "cloudproviders/node_group_file.h"
#include "tests/unit/sim/sim_test_util.h"

namespace gpua::sim {
namespace {

using testing::CpuGroups;
using testing::MachineOf;

constexpr char kTrace[] =
    R"({"at": 0, "name": "web", "count": 3, "runFor": "1h", "pod": {"spec": {"containers": [{"name": "m", "resources": {"requests": {"cpu": "2"}}}]}}}
{"at": 0, "name": "batch", "count": 2, "runFor": "10m", "pod": {"spec": {"containers": [{"name": "m", "resources": {"requests": {"cpu": "1"}}}]}}}
)";

std::vector<std::string> Names(const std::vector<PodPtr>& pods) {
  std::vector<std::string> out;
  for (const PodPtr& p : pods) out.push_back(p->spec.Key());
  return out;
}

// The view as a fresh read gives it: every node, every pod filed in key order.
void CheckSameAsFresh(const SimCluster& cluster, const ClusterView& view) {
  ClusterView fresh;
  for (const auto& [name, node] : cluster.nodes()) fresh.nodes.push_back(node.object);
  for (const auto& [key, pod] : cluster.pods()) fresh.AddPod(pod.object);
  CHECK(view.nodes == fresh.nodes);
  CHECK(view.pods == fresh.pods);
  CHECK(Names(view.unschedulable) == Names(fresh.unschedulable));
  CHECK(view.unschedulable == fresh.unschedulable);
  CHECK(view.pods_by_node == fresh.pods_by_node);
  // Each pod's Job is listed while it has pods, and no other Job is.
  absl::flat_hash_set<std::string> jobs;
  for (const auto& [key, pod] : cluster.pods()) {
    const WorkloadPtr job = view.ControllerOf(pod.object->spec);
    REQUIRE(job != nullptr);
    jobs.insert(job->name);
  }
  CHECK(view.workloads.size() == jobs.size());
}

TEST_CASE("the view kept between loops is the cluster read afresh, whatever changed") {
  ManualClock clock;
  const std::vector<NodeGroupConfig> groups = CpuGroups();
  auto trace = ParseTrace(kTrace, "trace.jsonl", ".");
  REQUIRE(trace.ok());
  SimCluster cluster(groups, clock);
  const absl::Time start = clock.Now();
  cluster.SyncNodes({MachineOf("a", start), MachineOf("b", start)});
  for (const TraceArrival& a : trace->arrivals) cluster.Arrive(a);
  CheckSameAsFresh(cluster, *cluster.View());

  // The scheduler finds no room for one pod and binds the others across both nodes.
  CHECK(cluster.MarkUnschedulable("default/web-2"));
  cluster.Bind("default/web-0", "cpu-a");
  cluster.Bind("default/web-1", "cpu-b");
  cluster.Bind("default/batch-0", "cpu-a");
  cluster.Bind("default/batch-1", "cpu-a");
  const std::shared_ptr<const ClusterView> held = cluster.View();
  CheckSameAsFresh(cluster, *held);
  REQUIRE(held->unschedulable.size() == 1);
  CHECK(held->PodsOn("cpu-a").size() == 3);

  // The batch pods finish and one web pod is evicted while `held` is still read.
  clock.Advance(absl::Minutes(11));
  CHECK(cluster.EndDuePods());
  REQUIRE(cluster.Evict("default", "web-0", absl::ZeroDuration()).ok());
  const std::shared_ptr<const ClusterView> next = cluster.View();
  CheckSameAsFresh(cluster, *next);
  CHECK(next != held);
  CHECK(held->PodsOn("cpu-a").size() == 3);  // unchanged under its reader
  CHECK(held->pods.size() == 5);

  // Node b is lost: its pod is made again, pending; the unschedulable one is bound on a.
  cluster.SyncNodes({MachineOf("a", start)});
  cluster.Bind("default/web-2", "cpu-a");
  CheckSameAsFresh(cluster, *cluster.View());
  CHECK(cluster.View()->PodsOn("cpu-b").empty());
  CHECK(cluster.View()->unschedulable.empty());
}

constexpr char kBudgetedTrace[] =
    R"({"at": 0, "name": "serve", "count": 3, "runFor": "1h", "disruptionBudget": {"minAvailable": 2}, "pod": {"spec": {"containers": [{"name": "m", "resources": {"requests": {"cpu": "2"}}}]}}}
)";

// What the view's one budget allows now.
int Allowed(const SimCluster& cluster) {
  const std::shared_ptr<const ClusterView> view = cluster.View();
  REQUIRE(view->pdbs.size() == 1);
  return view->pdbs.front()->disruptions_allowed;
}

TEST_CASE(
    "the simulated Eviction API keeps a Job's budget: one pod goes, the next is refused until "
    "the first is back",
    "[budgets]") {
  ManualClock clock;
  const std::vector<NodeGroupConfig> groups = CpuGroups();
  auto trace = ParseTrace(kBudgetedTrace, "trace.jsonl", ".");
  REQUIRE(trace.ok());
  SimCluster cluster(groups, clock);
  const absl::Time start = clock.Now();
  cluster.SyncNodes({MachineOf("a", start), MachineOf("b", start)});
  for (const TraceArrival& a : trace->arrivals) cluster.Arrive(a);
  // Nothing runs yet: the budget allows nothing, and a pending pod is deleted all the same
  // (the Eviction API does not hold a pod that is not running to its budget).
  CHECK(Allowed(cluster) == 0);
  const std::shared_ptr<const ClusterView> view = cluster.View();
  REQUIRE(!view->pdbs.empty());
  const PdbObject& pdb = *view->pdbs.front();
  CHECK(pdb.namespace_name == "default");
  CHECK(pdb.name == "serve");
  CHECK(pdb.Covers(cluster.pod("default/serve-0").object->spec));
  CHECK(cluster.Evict("default", "serve-2", std::nullopt).value() == EvictionResult::kEvicted);
  CHECK(cluster.pods().contains("default/serve-2-r1"));

  cluster.Bind("default/serve-0", "cpu-a");
  cluster.Bind("default/serve-1", "cpu-a");
  cluster.Bind("default/serve-2-r1", "cpu-b");
  CHECK(Allowed(cluster) == 1);
  CHECK(cluster.Evict("default", "serve-0", std::nullopt).value() == EvictionResult::kEvicted);
  CHECK(Allowed(cluster) == 0);
  CHECK(cluster.Evict("default", "serve-1", std::nullopt).value() ==
        EvictionResult::kBlockedByBudget);
  CHECK(cluster.accounts().evictions_refused == 1);
  CHECK_FALSE(cluster.pod("default/serve-1").stopping);

  // The evicted pod ends, its Job makes it again, and once it runs one may go again.
  clock.Advance(absl::Seconds(31));
  CHECK(cluster.EndDuePods());
  CHECK(Allowed(cluster) == 0);
  cluster.Bind("default/serve-0-r1", "cpu-b");
  CHECK(Allowed(cluster) == 1);
  CHECK(cluster.Evict("default", "serve-1", std::nullopt).value() == EvictionResult::kEvicted);

  // When the Job's pods are all done, its budget goes with it.
  clock.Advance(absl::Seconds(31));
  CHECK(cluster.EndDuePods());
  cluster.Bind("default/serve-1-r1", "cpu-a");
  clock.Advance(absl::Hours(2));
  CHECK(cluster.EndDuePods());
  CHECK(cluster.View()->pdbs.empty());
}

}  // namespace
}  // namespace gpua::sim
