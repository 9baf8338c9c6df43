// The scale-up actuator alone, through which every increase goes: it asks each group through
// its NodeGroup and says so; a group that fails a scale-up is backed off, a replacement's
// failure backs off nothing. On the shared fakes.
#include "autoscaler/controller/increase/scale_up_actuator.h"

#include <catch2/catch.hpp>

#include "autoscaler/controller/model/events.h"
#include "tests/support/fake_cluster.h"
#include "tests/support/fake_kube_writer.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {
namespace {

struct ActuatorFixture : LoopFakes {
  ActuatorFixture() { cloud.AddGroup("h100", 0, 4, H100Template()); }
  std::vector<ScaleUpOutcome> Execute(int delta, const std::map<std::string, int>& added = {}) {
    ScaleUpRequest r;
    r.group = "h100";
    r.delta = delta;
    r.pods = {PendingPod("train-0", Res({{"nvidia.com/gpu", "8"}}), kNow)};
    return Ask(r, added);
  }
  std::vector<ScaleUpOutcome> Ask(const ScaleUpRequest& r,
                                  const std::map<std::string, int>& added = {}) {
    inputs = BuildLoopInputs(source, cloud, options, kept.backoff, kNow);
    ScaleUpActuator actuator(writer, log, options.status);
    return actuator.Execute({r}, PlanningInputOf(inputs, kept, kNow), added);
  }
  // A consolidation's ask: one node to replace `replaces`.
  static ScaleUpRequest Replacement(const std::string& replaces) {
    ScaleUpRequest r;
    r.group = "h100";
    r.delta = 1;
    r.replaces = replaces;
    return r;
  }
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
  CHECK_FALSE(f.kept.backoff.Get("h100", kNow).has_value());
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
  const std::optional<BackoffInfo> b = f.kept.backoff.Get("h100", kNow);
  REQUIRE(b.has_value());
  CHECK(b->error_code == "CloudProviderError");
  CHECK(b->error_message == "quota exceeded");
  CHECK(f.writer.EventsWithReason(event_reason::kTriggeredScaleUp).empty());
  const auto failed = f.writer.EventsWithReason(event_reason::kFailedToScaleUpGroup);
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].message == "Scale-up failed for group h100: quota exceeded");
  CHECK(f.cloud.Find("h100")->target == 0);
}

TEST_CASE("a replacement's node is asked for the same way, said in consolidation's words",
          "[controller][scale-up][actuator][consolidation]") {
  ActuatorFixture f;
  const std::vector<ScaleUpOutcome> out =
      f.Ask(ActuatorFixture::Replacement("a100-0, a100-1 ($40.00/h for $10.00/h)"));
  REQUIRE(out.size() == 1);
  CHECK(out[0].status.ok());
  CHECK(f.cloud.Find("h100")->increases == std::vector<int>{1});
  const auto scaled = f.writer.EventsWithReason(event_reason::kScaledUpGroup);
  REQUIRE(scaled.size() == 1);
  CHECK(scaled[0].message ==
        "Consolidation: setting group h100 size to 1 instead of 0 (max: 4): a100-0, a100-1 "
        "($40.00/h for $10.00/h)");
  CHECK(f.writer.EventsWithReason(event_reason::kTriggeredScaleUp).empty());  // no pod to tell
}

TEST_CASE("a replacement the group refuses backs nothing off: consolidation's cooldown runs",
          "[controller][scale-up][actuator][consolidation]") {
  ActuatorFixture f;
  f.cloud.Find("h100")->failing["IncreaseSize"] = absl::UnavailableError("stockout");
  const std::vector<ScaleUpOutcome> out = f.Ask(ActuatorFixture::Replacement("a100-0"));
  REQUIRE(out.size() == 1);
  CHECK_FALSE(out[0].status.ok());
  CHECK_FALSE(f.kept.backoff.Get("h100", kNow).has_value());
  CHECK(f.writer.EventsWithReason(event_reason::kFailedToScaleUpGroup).empty());
  CHECK(f.log.Contains("Consolidation: asking group h100 for a node failed: stockout"));
}

TEST_CASE("an increase of a MIG pool keeps its layouts in the cluster first, then in the book",
          "[controller][scale-up][actuator][mig]") {
  ActuatorFixture f;
  ScaleUpRequest r = ActuatorFixture::Replacement("a100-0");
  r.mig_layouts = {"all-3g.40gb"};
  REQUIRE(f.Ask(r).front().status.ok());
  CHECK(f.writer.calls.front() == "AnnotateConfigMap kube-system/cluster-autoscaler-status");
  CHECK(f.kept.mig.book().Of("h100") == std::vector<std::string>{"all-3g.40gb"});
}

}  // namespace
}  // namespace gpua::testing
