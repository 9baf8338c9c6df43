// Scale-down as one step of the loop, on the shared fakes: judged, marked, removed when its
// time has come, and held by the cooldowns it keeps.
#include "autoscaler/controller/scaledown/scale_down_step.h"

#include <catch2/catch.hpp>
#include <map>
#include <memory>

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
    LoopInputs in = BuildLoopInputs(source, cloud, options, kept->backoff, now);
    kept->nodes.BeginLoop(*in.view);
    ScaleDownResult r = step->Run(PlanningInputOf(in, *kept, now), {0, nodes_added, {}}, report);
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
  ScaleDownReport report;
  // A process's own: Restart() makes them anew.
  std::unique_ptr<LoopMemory> kept = std::make_unique<LoopMemory>(writer, options, log);
  std::unique_ptr<ScaleDownStep> step = std::make_unique<ScaleDownStep>(writer, log, options);

  // A new process: its step and stores start empty, and its informers show the status
  // ConfigMap as the old one left it.
  void Restart() {
    source.view.config_maps = {StatusConfigMap()};
    step.reset();
    kept = std::make_unique<LoopMemory>(writer, options, log);
    step = std::make_unique<ScaleDownStep>(writer, log, options);
  }
  ConfigMapPtr StatusConfigMap(std::map<std::string, std::string> annotations = {}) const {
    if (annotations.empty()) annotations = writer.config_maps.at(kStatus).annotations;
    auto cm = std::make_shared<ConfigMapObject>();
    cm->namespace_name = "kube-system";
    cm->name = "cluster-autoscaler-status";
    cm->annotations = Labels(annotations.begin(), annotations.end());
    return cm;
  }
  static constexpr char kStatus[] = "kube-system/cluster-autoscaler-status";
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

NodeTemplate L4Template() {
  NodeTemplate t;
  t.name = "l4";
  t.labels = {{"nvidia.com/gpu.product", "NVIDIA-L4"}, {"nvidia.com/gpu.count", "1"}};
  t.allocatable = Res({{"cpu", "8"}, {"memory", "32Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "1"}});
  return t;
}

// The fixture's H100 node serving one 1-GPU pod, and a group of 1-GPU L4 nodes at zero that
// would hold it for a thirtieth of the price.
struct ReplacementFixture : StepFixture {
  ReplacementFixture() : l4(cloud.AddGroup("l4", 0, 4, L4Template())) {
    group.price_per_hour = 98;
    l4.price_per_hour = 3.5;
    l4.options = group.options;
    RunningPod(source, "serve-0", "a100-0", Res({{"nvidia.com/gpu", "1"}}));
  }
  FakeNodeGroup& l4;
};

TEST_CASE("an H100 node serving one 1-GPU pod is replaced by one new L4 node, then removed",
          "[controller][scale-down][step][replacement]") {
  ReplacementFixture f;
  const ScaleDownResult first = f.Loop(kNow);
  CHECK(first.unremovable.at("NoPlaceToMovePods") == 1);
  CHECK(f.l4.increases == std::vector<int>{1});
  CHECK(f.report.replacements == std::vector<std::string>{"l4"});
  const std::vector<EventRecord> said = f.writer.EventsWithReason("ScaledUpGroup");
  REQUIRE(said.size() == 1);
  CHECK_THAT(said[0].message, Catch::StartsWith("Consolidation: setting group l4 size to 1 "
                                                "instead of 0 (max: 4): one new node of group l4"));
  CHECK_THAT(said[0].message, Catch::Contains("holds the 1 pod(s) of a100-0: saves $94.50/h"));

  f.Loop(kNow + absl::Minutes(1));
  CHECK(f.l4.increases.size() == 1);  // one replacement at a time, not asked twice

  RegisterNode(f.source, f.l4, "l4-0", kNow + absl::Minutes(2));
  const ScaleDownResult ready = f.Loop(kNow + absl::Minutes(3));
  CHECK(ready.unneeded == 1);  // the H100's pod now has somewhere to go
  CHECK(ready.unremovable.at("ReplacingNodes") == 1);
  CHECK(f.writer.HasTaint("a100-0", "DeletionCandidateOfClusterAutoscaler"));
  CHECK_FALSE(f.writer.HasTaint("l4-0", "DeletionCandidateOfClusterAutoscaler"));

  const ScaleDownResult due = f.Loop(kNow + absl::Minutes(10));
  // Unneeded since the replacement was asked for: it waited only for the room.
  CHECK(due.status.candidates_by_group.at("a100") == 1);
  CHECK(f.writer.evicted == std::vector<std::string>{"ml/serve-0"});
  CHECK(f.l4.increases.size() == 1);
}

constexpr char kKept[] = "gpu-autoscaler.io/replacement-under-way";

TEST_CASE(
    "a replacement begun before a restart is carried on: its new node stays and the H100 goes "
    "when it would have",
    "[controller][scale-down][step][replacement]") {
  ReplacementFixture f;
  f.Loop(kNow);
  REQUIRE(f.l4.increases.size() == 1);
  CHECK_THAT(f.writer.config_maps.at(f.kStatus).annotations.at(kKept),
             Catch::Contains(R"("group":"l4","replaced":["a100-0"])"));
  f.Restart();
  RegisterNode(f.source, f.l4, "l4-0", kNow + absl::Minutes(2));
  const ScaleDownResult ready = f.Loop(kNow + absl::Minutes(3));
  CHECK(ready.unremovable.at("ReplacingNodes") == 1);
  CHECK_FALSE(f.writer.HasTaint("l4-0", "DeletionCandidateOfClusterAutoscaler"));
  f.Loop(kNow + absl::Minutes(10));  // unneeded since the ask, before the restart
  CHECK(f.writer.evicted == std::vector<std::string>{"ml/serve-0"});
  CHECK(f.l4.increases.size() == 1);
}

TEST_CASE(
    "a replacement the cloud refused is kept as none, and an unreadable one is said and "
    "written over",
    "[controller][scale-down][step][replacement]") {
  ReplacementFixture f;
  f.l4.failing["IncreaseSize"] = absl::ResourceExhaustedError("no L4 capacity in the zone");
  f.Loop(kNow);
  CHECK(f.writer.config_maps.at(f.kStatus).annotations.at(kKept) == "{}");  // ahead, then none

  f.Restart();
  f.source.view.config_maps = {f.StatusConfigMap({{kKept, R"({"group":"l4"})"}})};
  f.l4.failing.clear();
  f.Loop(kNow + absl::Minutes(1));
  CHECK(
      f.log.Contains("ConfigMap kube-system/cluster-autoscaler-status annotation "
                     "gpu-autoscaler.io/replacement-under-way: replaced: expected a list"));
  absl::StatusOr<KeptReplacement> now_kept =
      KeptReplacement::FromJson(f.writer.config_maps.at(f.kStatus).annotations.at(kKept), "kept");
  CHECK(now_kept.ok());
}

TEST_CASE("a replacement whose node never comes is given up, and its node judged like any other",
          "[controller][scale-down][step][replacement]") {
  ReplacementFixture f;
  f.l4.options->max_node_provision_time = absl::Minutes(15);
  f.Loop(kNow);
  REQUIRE(f.l4.increases.size() == 1);
  // Asked at kNow: 15m to come, the H100's 10m unneeded time and 5m for its drain to start.
  f.Loop(kNow + absl::Minutes(29));
  CHECK(f.l4.increases.size() == 1);
  f.l4.target = 0;  // the instance never came and its request was dropped
  f.l4.instances.clear();
  f.Loop(kNow + absl::Minutes(30));
  CHECK_FALSE(f.step->kept().replacement.has_value());  // given up
  // No other for as long as that one was given (its 30 minutes).
  CHECK(f.step->kept().no_replacement_until == kNow + absl::Minutes(60));
  f.Loop(kNow + absl::Minutes(59));
  CHECK(f.l4.increases.size() == 1);  // none for as long as the last one was given
  f.Loop(kNow + absl::Minutes(60));
  CHECK(f.l4.increases.size() == 2);
}

TEST_CASE("a replacement is given up at once when its group fails to bring the node",
          "[controller][scale-down][step][replacement]") {
  ReplacementFixture f;
  f.Loop(kNow);
  REQUIRE(f.l4.increases.size() == 1);
  f.kept->backoff.Fail("l4", "OutOfResource", "stockout", kNow + absl::Minutes(1));
  REQUIRE(f.step->kept().replacement.has_value());
  f.Loop(kNow + absl::Minutes(2));
  CHECK_FALSE(f.step->kept().replacement.has_value());  // given up, long before its time
  CHECK(f.step->kept().no_replacement_until > kNow + absl::Minutes(2));
}

TEST_CASE("no replacement while consolidation is off or a scale-up acts in the same loop",
          "[controller][scale-down][step][replacement]") {
  ReplacementFixture f;
  f.Loop(kNow, /*nodes_added=*/1);
  CHECK(f.l4.increases.empty());
  f.options.scale_down.consolidation_payback = absl::ZeroDuration();
  f.Loop(kNow + absl::Minutes(1));
  CHECK(f.l4.increases.empty());
}

TEST_CASE("a replacement the cloud refuses starts the failed scale-down's cooldown",
          "[controller][scale-down][step][replacement]") {
  ReplacementFixture f;
  f.l4.failing["IncreaseSize"] = absl::ResourceExhaustedError("no L4 capacity in the zone");
  f.Loop(kNow);
  CHECK(f.log.Contains("Consolidation: asking group l4 for a node failed: no L4 capacity"));
  const ScaleDownResult next = f.Loop(kNow + absl::Minutes(1));
  CHECK_THAT(next.cooldown, Catch::Contains("failed scale-down"));
}

}  // namespace
}  // namespace gpua::testing
