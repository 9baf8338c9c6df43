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

}  // namespace
}  // namespace gpua::sim
