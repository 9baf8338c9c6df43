// Scale-up as one step of the loop: rounds, nominations and what pods hear, on the shared
// fakes.
#include "autoscaler/controller/scaleup/scale_up_step.h"

#include <catch2/catch.hpp>

#include "autoscaler/controller/model/events.h"
#include "tests/support/fake_cluster.h"
#include "tests/support/fake_kube_writer.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {
namespace {

struct StepFixture : LoopFakes {
  StepFixture() {
    options.scale_up.expander = "price";
    cloud.AddGroup("h100", 0, 4, H100Template()).price_per_hour = 10;
    cloud.AddGroup("a100", 0, 4, A100Template()).price_per_hour = 20;
  }
  ScaleUpResult Run(absl::Time now) {
    LoopInputs in = BuildLoopInputs(source, cloud, options, kept.backoff, now);
    const PendingPods pending = SelectPendingPods(*in.view, options.scale_up, now);
    return step.Run(PlanningInputOf(in, kept, now), {pending, {}, placeholders});
  }
  std::vector<PodPtr> placeholders;  // warm capacity, as planning/buffer_pods.h makes it
  ScaleUpStep step{writer, log, options};
};

TEST_CASE("a stockout in the cheapest pool moves the pods to the next pool in the same loop",
          "[controller][scale-up][step]") {
  StepFixture f;
  f.cloud.Find("h100")->failing["IncreaseSize"] = absl::UnavailableError("stockout");
  f.source.AddPod(PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow));
  const ScaleUpResult r = f.Run(kNow);
  REQUIRE(r.outcomes.size() == 2);
  CHECK(r.outcomes[0].request.group == "h100");
  CHECK_FALSE(r.outcomes[0].status.ok());
  CHECK(r.outcomes[1].request.group == "a100");
  CHECK(r.outcomes[1].status.ok());
  CHECK(f.cloud.Find("a100")->target == 1);
  CHECK(f.kept.backoff.Get("h100", kNow).has_value());
}

TEST_CASE("a pod asked for once is not asked for again while its node is on its way",
          "[controller][scale-up][step]") {
  StepFixture f;
  f.source.AddPod(PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow));
  REQUIRE(f.Run(kNow).outcomes.size() == 1);
  for (int i = 1; i <= 5; ++i) {
    const ScaleUpResult r = f.Run(kNow + absl::Seconds(10 * i));
    CHECK(r.outcomes.empty());
    CHECK(r.fit_existing == 1);
  }
  CHECK(f.cloud.Find("h100")->increases == std::vector<int>{1});
}

TEST_CASE("once its node registers, the pod's nominatedNodeName names it",
          "[controller][scale-up][step]") {
  StepFixture f;
  f.source.AddPod(PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow));
  REQUIRE(f.Run(kNow).outcomes.size() == 1);
  FakeNodeGroup& h100 = *f.cloud.Find("h100");
  // The instance asked for registers as a node (not ready yet: its GPUs start).
  const std::string id = h100.instances[0].id;
  auto n = std::make_shared<NodeObject>();
  n->node.name = "h100-new";
  n->node.labels = h100.node_template.labels;
  n->node.allocatable = h100.node_template.allocatable;
  n->provider_id = id;
  n->created = kNow + absl::Seconds(30);
  f.source.AddNode(n);
  f.Run(kNow + absl::Seconds(40));
  CHECK(f.writer.nominated.at("ml/train-0") == "h100-new");
}

TEST_CASE("a pod whose new node another pod took asks for a node again, and it is no repeat",
          "[controller][scale-up][step]") {
  StepFixture f;
  f.source.AddPod(PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow));
  REQUIRE(f.Run(kNow).outcomes.size() == 1);
  FakeNodeGroup& h100 = *f.cloud.Find("h100");
  // The node registers, GPUs still starting, and the scheduler binds another 8-GPU pod there
  // before the nomination is written (or for a pod of higher priority).
  auto n = std::make_shared<NodeObject>();
  n->node.name = "h100-new";
  n->node.labels = h100.node_template.labels;
  n->node.allocatable = h100.node_template.allocatable;
  n->provider_id = h100.instances[0].id;
  n->created = kNow + absl::Seconds(30);
  f.source.AddNode(n);
  RunningPod(f.source, "urgent-0", "h100-new", Res({{"nvidia.com/gpu", "8"}}));
  const ScaleUpResult r = f.Run(kNow + absl::Seconds(40));
  REQUIRE(r.outcomes.size() == 1);
  CHECK(r.outcomes[0].status.ok());
  CHECK_FALSE(r.outcomes[0].repeat);
  CHECK(f.log.Contains("Pod ml/train-0 no longer fits the node of group h100 (h100-new)"));
  CHECK(h100.increases == std::vector<int>{1, 1});
}

TEST_CASE("a pod no pool can hold hears why once, not every loop", "[controller][scale-up][step]") {
  StepFixture f;
  f.source.AddPod(PendingPod("huge-0", Res({{"nvidia.com/gpu", "16"}}), kNow));
  for (int i = 0; i < 3; ++i) {
    const ScaleUpResult r = f.Run(kNow + absl::Seconds(10 * i));
    CHECK(r.without_scale_up == 1);
    CHECK(r.outcomes.empty());
  }
  const auto said = f.writer.EventsWithReason(event_reason::kNotTriggerScaleUp);
  REQUIRE(said.size() == 1);
  CHECK_THAT(said[0].message, Catch::StartsWith("pod didn't trigger scale-up: a100, h100: "));
}

TEST_CASE("a pod that cannot be read is reported and never planned for",
          "[controller][scale-up][step]") {
  StepFixture f;
  ScaleUpStep& step = f.step;
  auto bad =
      std::make_shared<PodObject>(*PendingPod("broken-0", Res({{"nvidia.com/gpu", "1"}}), kNow));
  bad->spec.invalid = absl::InvalidArgumentError("Pod ml/broken-0: spec.containers[0]: bad");
  step.ReportInvalidPods({bad}, kNow);
  step.ReportInvalidPods({bad}, kNow + absl::Seconds(10));
  const auto said = f.writer.EventsWithReason(event_reason::kNotTriggerScaleUp);
  REQUIRE(said.size() == 1);
  CHECK(said[0].type == "Warning");
  CHECK_THAT(said[0].message, Catch::Contains("it cannot be read"));
}

PodPtr WarmSlot(const std::string& name, const ResourceList& requests) {
  auto p = std::make_shared<PodObject>(*PendingPod(name, requests, kNow));
  p->capacity_buffer = "serving/warm";
  return p;
}

TEST_CASE("warm capacity brings a node up from zero, once, and no pod hears of it",
          "[controller][scale-up][step][warm]") {
  StepFixture f;
  f.placeholders = {WarmSlot("warm-buffer-0", Res({{"nvidia.com/gpu", "8"}}))};
  const ScaleUpResult first = f.Run(kNow);
  REQUIRE(first.outcomes.size() == 1);
  CHECK(first.outcomes[0].request.group == "h100");
  CHECK(first.fit_existing == 0);
  for (int i = 1; i <= 5; ++i) {
    const ScaleUpResult r = f.Run(kNow + absl::Seconds(10 * i));
    CHECK(r.outcomes.empty());
    CHECK(r.fit_existing == 0);  // warm room on its way keeps no removal waiting
  }
  CHECK(f.cloud.Find("h100")->increases == std::vector<int>{1});
  for (const EventRecord& e : f.writer.events) CHECK(e.object.kind != "Pod");
  CHECK(f.writer.nominated.empty());
}

TEST_CASE("a pod that waits takes the room before warm capacity does",
          "[controller][scale-up][step][warm]") {
  StepFixture f;
  f.log.set_verbosity(1);
  f.cloud.Find("h100")->max_size = 1;
  f.cloud.Find("a100")->max_size = 0;
  f.placeholders = {WarmSlot("warm-buffer-0", Res({{"nvidia.com/gpu", "8"}}))};
  f.source.AddPod(PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow));
  const ScaleUpResult r = f.Run(kNow);
  REQUIRE(r.outcomes.size() == 1);
  REQUIRE(r.outcomes[0].request.pods.size() == 1);
  CHECK(r.outcomes[0].request.pods[0]->spec.name == "train-0");
  CHECK(r.without_scale_up == 0);  // the placeholder is no pod: said in the log, not counted
  CHECK(f.log.Contains("Warm capacity of CapacityBuffer serving/warm"));
  for (const EventRecord& e : f.writer.events) {
    CHECK(e.object.name != "warm-buffer-0");
  }
}

}  // namespace
}  // namespace gpua::testing
