// The controller's small parts: back-off, the loop's schedule, which pods may trigger a
// scale-up, the status YAML, the metrics text.
#include <catch2/catch.hpp>

#include "autoscaler/controller/loop_schedule.h"
#include "autoscaler/controller/metrics/metrics_registry.h"
#include "autoscaler/controller/model/node_group_backoff.h"
#include "autoscaler/controller/model/pending_pods.h"
#include "autoscaler/controller/status/status_report.h"
#include "kubeobjects/documents.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua {
namespace {

using testing::kNow;

TEST_CASE("back-off doubles on each failure up to its maximum and starts over after the reset",
          "[controller][backoff]") {
  NodeGroupBackoff b({absl::Minutes(5), absl::Minutes(30), absl::Hours(3)});
  CHECK(b.Fail("g", "OutOfResource", "no capacity", kNow) == absl::Minutes(5));
  REQUIRE(b.Get("g", kNow + absl::Minutes(4)).has_value());
  CHECK(b.Get("g", kNow + absl::Minutes(4))->error_code == "OutOfResource");
  CHECK_FALSE(b.Get("g", kNow + absl::Minutes(5)).has_value());
  // Failures while still backed off are the same attempt.
  CHECK(b.Fail("g", "OutOfResource", "again", kNow + absl::Minutes(1)) == absl::Minutes(5));
  CHECK(b.Fail("g", "OutOfResource", "", kNow + absl::Minutes(7)) == absl::Minutes(10));
  CHECK(b.Fail("g", "OutOfResource", "", kNow + absl::Minutes(18)) == absl::Minutes(20));
  CHECK(b.Fail("g", "OutOfResource", "", kNow + absl::Minutes(40)) == absl::Minutes(30));
  CHECK(b.Fail("g", "OutOfResource", "", kNow + absl::Hours(5)) == absl::Minutes(5));
  CHECK_FALSE(b.Get("other", kNow).has_value());
}

TEST_CASE("a new pod runs the loop after a quiet second, a burst within ten seconds",
          "[controller][schedule]") {
  LoopSchedule s(absl::Seconds(10));
  CHECK(s.Next() == absl::InfinitePast());  // the first loop runs at once
  s.LoopStarted(kNow);
  CHECK(s.Next() == kNow + absl::Seconds(10));
  s.PodArrived(kNow + absl::Seconds(2));
  CHECK(s.Next() == kNow + absl::Seconds(3));
  for (int i = 0; i < 20; ++i) s.PodArrived(kNow + absl::Seconds(2) + absl::Milliseconds(500 * i));
  CHECK(s.Next() == kNow + absl::Seconds(10));  // first at 2 s + 10 s, capped by the scan
  s.LoopStarted(kNow + absl::Seconds(10));
  s.WakeAt(kNow + absl::Seconds(13));  // a young pod comes of age
  CHECK(s.Next() == kNow + absl::Seconds(13));
}

TEST_CASE("only pods old enough, not nominated, not expendable and readable may trigger scale-up",
          "[controller][pending]") {
  ClusterView view;
  const auto pod = [&](const std::string& name, absl::Time created) {
    auto p = std::const_pointer_cast<PodObject>(
        testing::PendingPod(name, testing::Res({{"nvidia.com/gpu", "1"}}), created));
    view.AddPod(p);
    return p;
  };
  pod("ready", kNow - absl::Minutes(1));
  pod("young", kNow - absl::Seconds(5));
  pod("annotated", kNow - absl::Minutes(1))->scale_up_delay = absl::Minutes(5);
  pod("nominated", kNow - absl::Minutes(1))->nominated_node = "gpu-1";
  pod("expendable", kNow - absl::Minutes(1))->spec.priority = -100;
  pod("terminating", kNow - absl::Minutes(1))->terminating = true;
  pod("broken", kNow - absl::Minutes(1))->spec.invalid = absl::InvalidArgumentError("bad");
  ScaleUpOptions options;
  options.new_pod_scale_up_delay = absl::Seconds(30);
  const PendingPods p = SelectPendingPods(view, options, kNow);
  REQUIRE(p.eligible.size() == 1);
  CHECK(p.eligible[0]->spec.name == "ready");
  CHECK(p.too_young == 2);
  CHECK(p.nominated == 1);
  CHECK(p.expendable == 1);
  CHECK(p.invalid.size() == 1);
  CHECK(p.next_eligible == kNow + absl::Seconds(25));
}

TEST_CASE("the status YAML reads back as the object it was made from", "[controller][status]") {
  const nlohmann::ordered_json status = {
      {"time", "2026-12-01 10:00:00.000000000 +0000 UTC"},
      {"autoscalerStatus", "Running"},
      {"clusterWide",
       {{"health", {{"status", "Healthy"}, {"nodeCounts", {{"registered", {{"total", 3}}}}}}}}},
      {"nodeGroups",
       {{{"name", "h100"},
         {"scaleUp",
          {{"status", "Backoff"}, {"backoffInfo", {{"errorMessage", "quota: \"p5\" #1"}}}}}},
        {{"name", "l4"}, {"scaleUp", {{"status", "NoActivity"}}}},
        {{"name", "true"}, {"scaleUp", {{"status", "123"}}}}}},
      {"empty", nlohmann::ordered_json::array()}};
  const std::string yaml = ToYaml(status);
  // Words plain, as cluster-autoscaler writes them; what YAML would misread, quoted.
  CHECK_THAT(yaml, Catch::Contains("autoscalerStatus: Running\n"));
  CHECK_THAT(yaml, Catch::Contains("nodeGroups:\n- name: h100\n  scaleUp:\n    status: Backoff"));
  CHECK_THAT(yaml, Catch::Contains("- name: \"true\"\n  scaleUp:\n    status: \"123\""));
  CHECK_THAT(yaml, Catch::Contains("time: \"2026-12-01 10:00:00.000000000 +0000 UTC\""));
  auto back = YamlToJson(yaml, "status");
  REQUIRE(back.ok());
  CHECK(*back == nlohmann::json::parse(status.dump()));
  CHECK(StatusTime(absl::FromUnixMillis(1'764'583'200'123)) ==
        "2025-12-01 10:00:00.123000000 +0000 UTC");
}

TEST_CASE("metrics render in the text format: help, type, labels escaped, histogram buckets",
          "[controller][metrics]") {
  MetricsRegistry r;
  MetricFamily& nodes = r.Untyped("cluster_autoscaler_nodes_count", "Nodes (a gauge).", {"state"});
  MetricFamily& durations = r.Histogram("d_seconds", "Durations.", {"function"}, {0.1, 1});
  MetricFamily& errors = r.Counter("e_total", "Errors.", {"type"});
  nodes.Set({"ready"}, 3);
  durations.Observe({"main"}, 0.05);
  durations.Observe({"main"}, 0.5);
  errors.Add({"a\"b\\c"}, 2);
  const std::string text = r.Render();
  CHECK_THAT(text, Catch::Contains("# TYPE cluster_autoscaler_nodes_count untyped\n"
                                   "cluster_autoscaler_nodes_count{state=\"ready\"} 3\n"));
  CHECK_THAT(text, Catch::Contains("d_seconds_bucket{function=\"main\",le=\"0.1\"} 1\n"
                                   "d_seconds_bucket{function=\"main\",le=\"1\"} 2\n"
                                   "d_seconds_bucket{function=\"main\",le=\"+Inf\"} 2\n"
                                   "d_seconds_sum{function=\"main\"} 0.55\n"
                                   "d_seconds_count{function=\"main\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("e_total{type=\"a\\\"b\\\\c\"} 2"));
  nodes.Clear();
  CHECK(r.Render().find("cluster_autoscaler_nodes_count{") == std::string::npos);
}

}  // namespace
}  // namespace gpua
