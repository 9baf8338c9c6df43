// The scale-up actuator alone: it asks each group through its NodeGroup and says so; a group
// that fails is backed off. On the shared fakes.
#include "autoscaler/controller/scaleup/scale_up_actuator.h"

#include <catch2/catch.hpp>

#include "autoscaler/controller/model/events.h"
#include "tests/support/fake_cluster.h"
#include "tests/support/fake_kube_writer.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {
namespace {

struct ActuatorFixture {
  ActuatorFixture() { cloud.AddGroup("h100", 0, 4, H100Template()); }
  std::vector<ScaleUpOutcome> Execute(int delta, const std::map<std::string, int>& added = {}) {
    inputs = BuildLoopInputs(source, cloud, options, backoff, kNow);
    ScaleUpRequest r;
    r.group = "h100";
    r.delta = delta;
    r.pods = {PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow)};
    ScaleUpActuator actuator(writer, backoff, log, options.status);
    return actuator.Execute({r}, inputs.state, *inputs.groups, added, kNow);
  }
  ControllerOptions options;
  FakeCloudProvider cloud;
  FakeClusterSource source;
  FakeKubeWriter writer;
  MemoryLogSink log;
  NodeGroupBackoff backoff{BackoffOptions{}};
  LoopInputs inputs;
};

TEST_CASE("an increase goes to the group's NodeGroup and the pod hears TriggeredScaleUp",
          "[controller][scale-up][actuator]") {
  ActuatorFixture f;
  const std::vector<ScaleUpOutcome> out = f.Execute(2);
  REQUIRE(out.size() == 1);
  CHECK(out[0].status.ok());
  CHECK(out[0].from == 0);
  CHECK(out[0].max == 4);
  CHECK(f.cloud.Find("h100")->increases == std::vector<int>{2});
  CHECK(f.cloud.Find("h100")->target == 2);
  const auto triggered = f.writer.EventsWithReason(event_reason::kTriggeredScaleUp);
  REQUIRE(triggered.size() == 1);
  CHECK(triggered[0].object.name == "train-0");
  CHECK(triggered[0].message == "pod triggered scale-up: [{h100 0->2 (max: 4)}]");
  CHECK(f.writer.EventsWithReason(event_reason::kScaledUpGroup).size() == 1);
  CHECK_FALSE(f.backoff.Get("h100", kNow).has_value());
}

TEST_CASE("what this loop asked earlier counts in the sizes it reports",
          "[controller][scale-up][actuator]") {
  ActuatorFixture f;
  const std::vector<ScaleUpOutcome> out = f.Execute(1, {{"h100", 2}});
  REQUIRE(out.size() == 1);
  CHECK(out[0].from == 2);
  CHECK(f.writer.EventsWithReason(event_reason::kTriggeredScaleUp)[0].message ==
        "pod triggered scale-up: [{h100 2->3 (max: 4)}]");
}

TEST_CASE("a group that refuses is backed off with its error, and no pod hears it scaled",
          "[controller][scale-up][actuator]") {
  ActuatorFixture f;
  f.cloud.Find("h100")->failing["IncreaseSize"] = absl::ResourceExhaustedError("quota exceeded");
  const std::vector<ScaleUpOutcome> out = f.Execute(1);
  REQUIRE(out.size() == 1);
  CHECK(out[0].status.code() == absl::StatusCode::kResourceExhausted);
  const std::optional<BackoffInfo> b = f.backoff.Get("h100", kNow);
  REQUIRE(b.has_value());
  CHECK(b->error_code == "CloudProviderError");
  CHECK(b->error_message == "quota exceeded");
  CHECK(f.writer.EventsWithReason(event_reason::kTriggeredScaleUp).empty());
  const auto failed = f.writer.EventsWithReason(event_reason::kFailedToScaleUpGroup);
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].message == "Scale-up failed for group h100: quota exceeded");
  CHECK(f.cloud.Find("h100")->target == 0);
}

}  // namespace
}  // namespace gpua::testing
