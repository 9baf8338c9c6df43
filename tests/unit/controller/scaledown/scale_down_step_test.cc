// Scale-down as one step of the loop, on the shared fakes: judged, marked, removed when its
// time has come, and held by the cooldowns it keeps.
#include "autoscaler/controller/scaledown/scale_down_step.h"

#include <catch2/catch.hpp>

#include "tests/support/fake_cluster.h"
#include "tests/support/fake_kube_writer.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {
namespace {

struct StepFixture {
  StepFixture() : group(cloud.AddGroup("a100", 0, 4, H100Template())) {
    AutoscalingOptions o;
    o.scale_down_unneeded_time = absl::Minutes(10);
    group.options = o;
    RegisterNode(source, group, "a100-0", kNow - absl::Hours(2));
  }
  // One loop at `now`; the taints the writer left are on the nodes the next loop sees, as the
  // informers would show them.
  ScaleDownResult Loop(absl::Time now, int nodes_added = 0) {
    LoopInputs in = BuildLoopInputs(source, cloud, options, backoff, now);
    nodes.BeginLoop(*in.view);
    ScaleDownResult r =
        step.Run(*in.view, in.state, *in.groups, 0, nodes_added, {}, nodes, now, report);
    for (NodePtr& n : source.view.nodes) {
      auto copy = std::make_shared<NodeObject>(*n);
      copy->node.taints.clear();
      for (const auto& [key, taint] : writer.taints[n->node.name])
        copy->node.taints.push_back(taint);
      n = copy;
    }
    return r;
  }
  ControllerOptions options;
  FakeCloudProvider cloud;
  FakeNodeGroup& group;
  FakeClusterSource source;
  FakeKubeWriter writer;
  MemoryLogSink log;
  NodeGroupBackoff backoff{BackoffOptions{}};
  RunningNodeCache nodes;
  ScaleDownReport report;
  ScaleDownStep step{writer, log, options};
};

TEST_CASE(
    "an idle A100 node is removed after its pool's 10m idle timeout and the pool reaches zero",
    "[controller][scale-down][step]") {
  StepFixture f;
  const ScaleDownResult first = f.Loop(kNow);
  CHECK(first.unneeded == 1);
  CHECK(first.next_due == kNow + absl::Minutes(10));
  CHECK(f.writer.HasTaint("a100-0", "DeletionCandidateOfClusterAutoscaler"));
  CHECK(f.group.deletions.empty());
  f.Loop(kNow + absl::Minutes(5));
  CHECK(f.group.deletions.empty());  // its time has not come
  f.Loop(kNow + absl::Minutes(10));
  CHECK(f.group.deletions == std::vector<std::vector<std::string>>{{"a100-0"}});
  CHECK(f.group.target == 0);
  REQUIRE(f.report.deleted.size() == 1);
  CHECK(f.report.deleted[0].reason == "empty");
}

TEST_CASE("a busy node stays and says why, and its utilization is handed to the idle-GPU count",
          "[controller][scale-down][step]") {
  StepFixture f;
  RunningPod(f.source, "train-0", "a100-0", Res({{"nvidia.com/gpu", "8"}}));
  const ScaleDownResult r = f.Loop(kNow);
  CHECK(r.unneeded == 0);
  CHECK(r.unremovable.at("NotUnderutilized") == 1);
  REQUIRE(r.gpu_use.size() == 1);
  CHECK(r.gpu_use[0] == Approx(1.0));
  CHECK_FALSE(f.writer.HasTaint("a100-0", "DeletionCandidateOfClusterAutoscaler"));
}

TEST_CASE("no removal starts within --scale-down-delay-after-add of this step's last scale-up",
          "[controller][scale-down][step]") {
  StepFixture f;
  f.options.scale_down.delay_after_add = absl::Minutes(30);
  f.Loop(kNow, /*nodes_added=*/1);
  const ScaleDownResult due = f.Loop(kNow + absl::Minutes(10));
  CHECK_FALSE(due.cooldown.empty());
  CHECK(f.group.deletions.empty());
  CHECK(due.unneeded == 1);  // judged all the same: its unneeded time keeps running
  f.Loop(kNow + absl::Minutes(30));
  CHECK(f.group.deletions.size() == 1);
}

}  // namespace
}  // namespace gpua::testing
