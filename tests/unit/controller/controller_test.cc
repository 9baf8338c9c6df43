// The loop itself, Controller::RunOnce, on the three shared fakes and a manual clock: what one
// loop and a run of loops do, read as the loop's behaviour. Each step has its own tests; these
// show that the loop hands each what it needs, in order, and keeps what it must between loops.
#include "autoscaler/controller/controller.h"

#include <catch2/catch.hpp>

#include "autoscaler/controller/mig/mig_layout_book.h"
#include "autoscaler/controller/model/events.h"
#include "base/clock.h"
#include "tests/support/fake_cluster.h"
#include "tests/support/fake_kube_writer.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {
namespace {

constexpr char kStatus[] = "kube-system/cluster-autoscaler-status";

struct LoopFixture {
  LoopFixture() {
    options.scale_up.expander = "price";
    options.scale_down.delay_after_add = absl::ZeroDuration();
    h100 = &cloud.AddGroup("h100", 0, 4, H100Template());
    h100->price_per_hour = 10;
    a100 = &cloud.AddGroup("a100", 0, 4, A100Template());
    a100->price_per_hour = 20;
    AutoscalingOptions idle;
    idle.scale_down_unneeded_time = absl::Minutes(10);
    for (FakeNodeGroup* g : {h100, a100}) g->options = idle;
  }

  Controller& controller() {
    if (running == nullptr) {
      running =
          std::make_unique<Controller>(ControllerSeams{source, cloud, writer, clock, log}, options);
    }
    return *running;
  }
  // One loop now; then the cluster shows what the loop wrote, as the informers would: its
  // taints, labels and annotations on the nodes, the ConfigMap it wrote, and no node whose
  // instance the cloud deleted (as its node lifecycle controller removes them).
  LoopReport Loop() {
    LoopReport report = controller().RunOnce(clock.Now());
    for (NodePtr& n : source.view.nodes) n = AsWritten(*n);
    std::erase_if(source.view.nodes, [&](const NodePtr& n) { return !Listed(n->provider_id); });
    ShowStatusConfigMap();
    return report;
  }
  NodePtr AsWritten(const NodeObject& node) const {
    auto seen = std::make_shared<NodeObject>(node);
    const std::string& name = node.node.name;
    seen->node.taints.clear();
    if (auto t = writer.taints.find(name); t != writer.taints.end()) {
      for (const auto& [key, taint] : t->second) seen->node.taints.push_back(taint);
    }
    if (auto l = writer.labels.find(name); l != writer.labels.end()) {
      for (const auto& [key, value] : l->second) seen->node.labels[key] = value;
    }
    if (auto a = writer.annotations.find(name); a != writer.annotations.end()) {
      for (const auto& [key, value] : a->second) seen->annotations[key] = value;
    }
    if (auto u = writer.unschedulable.find(name); u != writer.unschedulable.end()) {
      seen->node.unschedulable = u->second;
    }
    return seen;
  }
  bool Listed(const std::string& provider_id) {
    for (const std::string group : {"h100", "a100", "a100-mig"}) {
      const FakeNodeGroup* g = cloud.Find(group);
      if (g == nullptr) continue;
      for (const Instance& i : g->instances) {
        if (i.id == provider_id) return true;
      }
    }
    return false;
  }
  void ShowStatusConfigMap() {
    auto it = writer.config_maps.find(kStatus);
    if (it == writer.config_maps.end()) return;
    auto cm = std::make_shared<ConfigMapObject>();
    cm->namespace_name = "kube-system";
    cm->name = "cluster-autoscaler-status";
    cm->annotations = Labels(it->second.annotations.begin(), it->second.annotations.end());
    source.view.config_maps = {cm};
  }
  // The controller process ends and a new one starts on the same cluster.
  void Restart() { running.reset(); }

  ControllerOptions options;
  FakeCloudProvider cloud;
  FakeNodeGroup* h100 = nullptr;
  FakeNodeGroup* a100 = nullptr;
  FakeClusterSource source;
  FakeKubeWriter writer;
  ManualClock clock{kNow};
  MemoryLogSink log;
  std::unique_ptr<Controller> running;
};

TEST_CASE("a loop on a cluster not yet listed does nothing and says why", "[controller][loop]") {
  LoopFixture f;
  f.source.synced = false;
  f.source.AddPod(PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow));
  const LoopReport r = f.Loop();
  CHECK(r.skipped == "the cluster's objects are not all listed yet");
  CHECK(f.writer.calls.empty());
  CHECK(f.h100->increases.empty());
}

TEST_CASE("while the provider cannot list its groups the loop acts on nothing",
          "[controller][loop]") {
  LoopFixture f;
  f.cloud.failing["NodeGroups"] = absl::UnavailableError("plugin down");
  f.source.AddPod(PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow));
  RegisterNode(f.source, *f.h100, "h100-idle", kNow - absl::Hours(2));
  const LoopReport r = f.Loop();
  CHECK_THAT(r.skipped, Catch::StartsWith("the cloud provider failed: "));
  CHECK_THAT(r.skipped, Catch::Contains("plugin down"));
  CHECK(f.h100->increases.empty());
  CHECK(f.writer.taints.empty());  // no removal judged without the provider
}

TEST_CASE("a pending GPU pod gets one node of the cheapest pool, and no second while it comes",
          "[controller][loop]") {
  LoopFixture f;
  f.source.AddPod(PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow));
  const LoopReport first = f.Loop();
  REQUIRE(first.scale_ups.size() == 1);
  CHECK(first.scale_ups[0].request.group == "h100");
  CHECK(first.nodes_added() == 1);
  CHECK(f.writer.EventsWithReason(event_reason::kScaledUpGroup).size() == 1);
  for (int i = 0; i < 3; ++i) {
    f.clock.Advance(absl::Seconds(10));
    const LoopReport again = f.Loop();
    CHECK(again.scale_ups.empty());
    CHECK(again.fit_existing == 1);
  }
  CHECK(f.h100->increases == std::vector<int>{1});
  CHECK(f.a100->increases.empty());
}

TEST_CASE("an idle GPU node is marked, then removed after its unneeded time, down to zero",
          "[controller][loop]") {
  LoopFixture f;
  RegisterNode(f.source, *f.h100, "h100-0", kNow - absl::Hours(2));
  const LoopReport first = f.Loop();
  CHECK(first.unneeded == 1);
  CHECK(f.writer.HasTaint("h100-0", kDeletionCandidateTaint));
  CHECK(first.removals.deleted.empty());
  CHECK(first.next_removal_due == kNow + absl::Minutes(10));

  f.clock.Advance(absl::Minutes(10));
  const LoopReport due = f.Loop();
  REQUIRE(due.removals.deleted.size() == 1);
  CHECK(due.removals.deleted[0].node == "h100-0");
  CHECK(f.h100->target == 0);
  CHECK(f.source.view.nodes.empty());
}

TEST_CASE("a new node held by gpu-operator's readiness taint is awaited, not doubled or removed",
          "[controller][loop][repair]") {
  LoopFixture f;
  f.source.AddPod(PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow));
  REQUIRE(f.Loop().nodes_added() == 1);
  // The node registers Ready with its GPUs, but the Node Readiness Controller's taint is on
  // until Node Problem Detector says nvidia.com/GPUReady=True.
  f.clock.Advance(absl::Minutes(2));
  Instance& asked = f.h100->instances.back();
  asked.state = InstanceState::kRunning;
  auto node = std::make_shared<NodeObject>();
  node->node.name = "h100-0";
  node->node.labels = f.h100->node_template.labels;
  node->node.allocatable = f.h100->node_template.allocatable;
  node->provider_id = asked.id;
  node->ready = true;
  node->created = f.clock.Now();
  node->node.taints.push_back(
      {"readiness.k8s.io/nvidia-gpu-not-ready", "pending", TaintEffect::kNoSchedule});
  node->conditions.push_back({"nvidia.com/GPUReady", "False", "DriverLoading", "", f.clock.Now()});
  f.source.AddNode(node);
  for (int i = 0; i < 6; ++i) {
    f.clock.Advance(absl::Minutes(1));
    const LoopReport r = f.Loop();
    CHECK(r.scale_ups.empty());
    CHECK(r.state.FindGroup("h100")->counts.not_started == 1);
    CHECK(r.removals.started == 0);
    CHECK(r.repairs.started.empty());
  }
  CHECK(f.h100->increases == std::vector<int>{1});
}

TEST_CASE("a busy node whose GPU fails is cordoned and replaced when its toleration ends, once",
          "[controller][loop][repair]") {
  LoopFixture f;
  RegisterNode(f.source, *f.h100, "h100-0", kNow - absl::Hours(2));
  RunningPod(f.source, "train-0", "h100-0", H100Template().allocatable);
  auto broken = std::make_shared<NodeObject>(*f.source.view.nodes[0]);
  broken->conditions.push_back({"AcceleratedHardwareReady", "False", "NvidiaXID79Error", "", kNow});
  f.source.ReplaceNode(broken);
  const LoopReport first = f.Loop();
  CHECK(first.repairs.started.empty());
  CHECK(first.next_repair_due == kNow + absl::Minutes(10));

  f.clock.Advance(absl::Minutes(10));
  const LoopReport due = f.Loop();
  CHECK(due.repairs.started == std::vector<std::string>{"h100-0"});
  CHECK(f.writer.HasTaint("h100-0", kUnhealthyTaint));
  CHECK(f.writer.unschedulable["h100-0"]);
  CHECK(f.writer.HasTaint("h100-0", kToBeDeletedTaint));
  CHECK(f.writer.annotations["h100-0"][kRemovalReasonAnnotation] == "repair");
  CHECK(f.writer.evicted == std::vector<std::string>{"ml/train-0"});
  CHECK(f.h100->target == 2);    // the replacement, asked in the same loop
  CHECK(due.scale_ups.empty());  // and no second node from scale-up for it

  // Another loop, and one after a restart: the repair goes on, nothing is asked again.
  f.clock.Advance(absl::Seconds(10));
  f.Loop();
  f.Restart();
  f.clock.Advance(absl::Seconds(10));
  const LoopReport after = f.Loop();
  CHECK(after.repairs.by_reason.empty());
  CHECK(f.h100->increases == std::vector<int>{1});
}

TEST_CASE("a pod no pool can hold asks for nothing and hears why, once a while",
          "[controller][loop]") {
  LoopFixture f;
  f.source.AddPod(PendingPod("huge-0", Res({{"nvidia.com/gpu", "16"}}), kNow));
  const LoopReport r = f.Loop();
  CHECK(r.scale_ups.empty());
  CHECK(r.without_scale_up == 1);
  const std::vector<EventRecord> told = f.writer.EventsWithReason(event_reason::kNotTriggerScaleUp);
  REQUIRE(told.size() == 1);
  CHECK(told[0].object.name == "huge-0");
  f.clock.Advance(absl::Seconds(10));
  f.Loop();
  CHECK(f.writer.EventsWithReason(event_reason::kNotTriggerScaleUp).size() == 1);
}

TEST_CASE("a new MIG node's layout survives a restart between the ask and the node",
          "[controller][loop][mig]") {
  LoopFixture f;
  NodeTemplate t = A100Template();
  t.name = "a100-mig";
  t.labels["nvidia.com/mig.strategy"] = "mixed";
  t.annotations = {{"gpu-autoscaler.io/mig-layouts", "all-1g.10gb,all-3g.40gb"}};
  t.allocatable.Set("nvidia.com/gpu", Quantity::FromUnits(0));
  FakeNodeGroup& mig = f.cloud.AddGroup("a100-mig", 0, 4, t);
  f.source.AddPod(PendingPod("infer-0", Res({{"nvidia.com/mig-3g.40gb", "1"}}), kNow));
  const LoopReport asked = f.Loop();
  REQUIRE(asked.scale_ups.size() == 1);
  CHECK(asked.scale_ups[0].request.group == "a100-mig");
  // Kept in the cluster before the loop ended.
  CHECK(f.writer.config_maps.at(kStatus).annotations.at(kMigLayoutBookAnnotation) ==
        R"({"a100-mig":["all-3g.40gb"]})");

  f.Restart();
  auto n = std::make_shared<NodeObject>();
  n->node.name = "a100-mig-0";
  n->node.labels = t.labels;
  n->provider_id = mig.instances[0].id;
  n->created = kNow + absl::Minutes(2);
  f.source.AddNode(n);
  f.clock.Advance(absl::Minutes(2));
  f.Loop();
  CHECK(f.writer.labels["a100-mig-0"]["nvidia.com/mig.config"] == "all-3g.40gb");
  CHECK(f.writer.annotations["a100-mig-0"][kMigLayoutAssignedAnnotation] == "all-3g.40gb");
}

}  // namespace
}  // namespace gpua::testing
