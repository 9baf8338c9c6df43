// The workload trace: what a line says, and errors that name the line and the field.
#include "autoscaler/sim/trace.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

namespace gpua::sim {
namespace {

constexpr char kPod[] =
    R"({"spec": {"containers": [{"name": "m", "resources": {"requests": {"nvidia.com/gpu": "1"}}}]}})";

std::string ErrorOf(const std::string& text) {
  auto t = ParseTrace(text, "week.jsonl", ".");
  REQUIRE_FALSE(t.ok());
  return std::string(t.status().message());
}

TEST_CASE("a trace line gives its pods' time, count, run time, shape and gang", "[trace]") {
  const std::string text = std::string("# a comment, then a blank line\n\n") +
                           R"({"at": "1d2h", "name": "ft", "count": 3, "runFor": "90m", "pod": )" +
                           kPod + "}\n" + R"({"at": 30, "name": "g", "count": 2, "gang": true, )" +
                           R"("runFor": 60, "pod": )" + kPod + "}\n" +
                           R"({"at": "3d", "stockout": "h100", "for": "6h"})" + "\n";
  auto t = ParseTrace(text, "week.jsonl", ".");
  INFO((t.ok() ? "" : std::string(t.status().message())));
  REQUIRE(t.ok());
  REQUIRE(t->arrivals.size() == 2);
  CHECK(t->pods() == 5);
  // In time order: the gang at 30 s comes first.
  const TraceArrival& gang = t->arrivals[0];
  CHECK(gang.at == absl::Seconds(30));
  CHECK(gang.gang);
  REQUIRE(gang.shape->spec.gang.has_value());
  CHECK(gang.shape->spec.gang->min_member == 2);
  const TraceArrival& ft = t->arrivals[1];
  CHECK(ft.at == absl::Hours(26));
  CHECK(ft.count == 3);
  CHECK(ft.run_for == absl::Minutes(90));
  CHECK(ft.gpu);
  CHECK(ft.line == 3);
  // Same pod fragment, same shape.
  CHECK(ft.shape_id == gang.shape_id);
  REQUIRE(t->stockouts.size() == 1);
  CHECK(t->stockouts[0].duration == absl::Hours(6));
  CHECK(t->end == absl::Hours(26) + absl::Minutes(90));
}

TEST_CASE("a malformed line is an error that names its line and field", "[trace]") {
  const std::string good =
      std::string(R"({"at": "0s", "name": "a", "runFor": "1h", "pod": )") + kPod + "}\n";
  CHECK_THAT(
      ErrorOf(good + R"({"at": "soon", "runFor": "1h", "pod": {}})"),
      Catch::Contains("week.jsonl line 2") && Catch::Contains("at") && Catch::Contains("\"soon\""));
  CHECK_THAT(ErrorOf(good + "{not json\n"), Catch::Contains("line 2"));
  CHECK_THAT(ErrorOf(good + R"({"at": 0, "runFor": "1h", "pod": {}, "colour": "red"})"),
             Catch::Contains("line 2") && Catch::Contains("colour"));
  CHECK_THAT(ErrorOf(good + R"({"at": 0, "count": 0, "runFor": "1h", "pod": {}})"),
             Catch::Contains("line 2") && Catch::Contains("count"));
  CHECK_THAT(ErrorOf(good + R"({"at": 0, "pod": {}})"),
             Catch::Contains("line 2") && Catch::Contains("runFor"));
  CHECK_THAT(ErrorOf(good + R"({"at": -5, "runFor": "1h", "pod": {}})"),
             Catch::Contains("line 2") && Catch::Contains("negative"));
  CHECK_THAT(ErrorOf(good + R"({"at": 0, "runFor": "1h"})"),
             Catch::Contains("line 2") && Catch::Contains("pod and podTemplate"));
  CHECK_THAT(
      ErrorOf(good + R"({"at": 0, "runFor": "1h", "pod": {"spec": {"containers": [{"name": "m", )"
                     R"("resources": {"requests": {"cpu": "lots"}}}]}}})"),
      Catch::Contains("line 2") && Catch::Contains("requests[cpu]"));
  CHECK_THAT(ErrorOf(good + R"({"at": 0, "runFor": "1h", "podTemplate": "missing.yaml"})"),
             Catch::Contains("line 2") && Catch::Contains("missing.yaml"));
  CHECK_THAT(ErrorOf(""), Catch::Contains("no pod arrives"));
}

TEST_CASE(
    "a line's disruption budget is a minAvailable over its Job's pods, which carry the Job's label",
    "[trace][budgets]") {
  const std::string text =
      std::string(R"({"at": 0, "name": "serve", "count": 3, "runFor": "1h", )") +
      R"("disruptionBudget": {"minAvailable": 2}, "pod": )" + kPod + "}\n" +
      R"({"at": 0, "name": "batch", "count": 3, "runFor": "1h", "pod": )" + kPod + "}\n";
  auto t = ParseTrace(text, "week.jsonl", ".");
  INFO((t.ok() ? "" : std::string(t.status().message())));
  REQUIRE(t.ok());
  REQUIRE(t->arrivals.size() == 2);
  const TraceArrival& serve = t->arrivals[0];
  CHECK(serve.min_available == 2);
  const auto label = serve.shape->spec.labels.find(kJobNameLabel);
  REQUIRE(label != serve.shape->spec.labels.end());
  CHECK(label->second == "serve");
  CHECK_FALSE(t->arrivals[1].min_available.has_value());
  // The label does not make another shape: the scheduler places the two alike.
  CHECK(serve.shape_id == t->arrivals[1].shape_id);
}

TEST_CASE("a disruption budget a Job's pods cannot have is refused, naming the field",
          "[trace][budgets]") {
  const auto line = [](const std::string& budget) {
    return std::string(R"({"at": 0, "name": "a", "runFor": "1h", "disruptionBudget": )") + budget +
           R"(, "pod": )" + kPod + "}\n";
  };
  CHECK_THAT(ErrorOf(line(R"({"maxUnavailable": 1})")),
             Catch::Contains("line 1") && Catch::Contains("disruptionBudget.maxUnavailable") &&
                 Catch::Contains("minAvailable"));
  CHECK_THAT(ErrorOf(line(R"({"minAvailable": "50%"})")),
             Catch::Contains("disruptionBudget.minAvailable") && Catch::Contains("percentage"));
  CHECK_THAT(ErrorOf(line(R"({"minAvailable": -1})")),
             Catch::Contains("disruptionBudget.minAvailable") && Catch::Contains("from 0"));
  CHECK_THAT(ErrorOf(line("{}")),
             Catch::Contains("disruptionBudget.minAvailable") && Catch::Contains("missing"));
  CHECK_THAT(ErrorOf(line(R"({"minAvailable": 1, "selector": {}})")), Catch::Contains("selector"));
}

TEST_CASE("a pod template file is read relative to the trace, once for all lines", "[trace]") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("gpua-trace-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "pods");
  std::ofstream(dir / "pods" / "nb.yaml")
      << "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: nb\n    resources:\n"
         "      requests: {nvidia.com/mig-1g.10gb: 1}\n";
  std::ofstream(dir / "trace.jsonl")
      << R"({"at": 0, "name": "a", "runFor": 60, "podTemplate": "pods/nb.yaml"})"
      << "\n"
      << R"({"at": 10, "name": "b", "runFor": 60, "podTemplate": "pods/nb.yaml"})"
      << "\n";
  auto t = ReadTraceFile((dir / "trace.jsonl").string());
  INFO((t.ok() ? "" : std::string(t.status().message())));
  REQUIRE(t.ok());
  REQUIRE(t->arrivals.size() == 2);
  CHECK(t->arrivals[0].shape_id == t->arrivals[1].shape_id);
  CHECK(t->arrivals[0].gpu);
  CHECK(t->arrivals[1].shape->spec.name == "b");
}

TEST_CASE("durations: seconds, Go-style durations and a leading count of days", "[trace]") {
  CHECK(*ParseTraceDuration("90s") == absl::Seconds(90));
  CHECK(*ParseTraceDuration("2h30m") == absl::Minutes(150));
  CHECK(*ParseTraceDuration("1d12h") == absl::Hours(36));
  CHECK(*ParseTraceDuration("2d") == absl::Hours(48));
  CHECK_FALSE(ParseTraceDuration("xd").ok());
  CHECK_FALSE(ParseTraceDuration("-1h").ok());
  CHECK_FALSE(ParseTraceDuration("inf").ok());
  CHECK_FALSE(ParseTraceDuration("99999999999999999d").ok());
  CHECK_FALSE(ParseTraceDuration("36500d1h").ok());
}

std::string Line(const std::string& at, const std::string& name, int count = 1) {
  return std::string(R"({"at": ")") + at + R"(", "name": ")" + name + R"(", "count": )" +
         std::to_string(count) + R"(, "runFor": "1h", "pod": )" + kPod + "}\n";
}

TEST_CASE("a pod named on two lines is an error naming both, whenever each arrives", "[trace]") {
  // The same line twice, and the same name while the first still runs.
  CHECK(ErrorOf(Line("10m", "infer") + Line("10m", "infer")) ==
        "week.jsonl line 2: pod default/infer is named on line 1 too; give each line a name of "
        "its own (a pod that comes again after it ended is a new line with a new name)");
  CHECK_THAT(ErrorOf(Line("10m", "infer") + Line("5h", "infer")),
             Catch::StartsWith("week.jsonl line 2: pod default/infer is named on line 1 too"));
  // One line's n-th pod named by another line, in either order.
  CHECK_THAT(ErrorOf(Line("0s", "etl", 3) + Line("5m", "etl-2")),
             Catch::StartsWith("week.jsonl line 2: pod default/etl-2 is named on line 1 too"));
  CHECK_THAT(ErrorOf(Line("0s", "etl-2") + Line("5m", "etl", 3)),
             Catch::StartsWith("week.jsonl line 2: pod default/etl-2 is named on line 1 too"));
  // Past the count, padded, or in another namespace: other pods.
  CHECK(ParseTrace(Line("0s", "etl", 3) + Line("5m", "etl-3") + Line("5m", "etl-01"), "week.jsonl",
                   ".")
            .ok());
  const std::string other_ns = std::string(R"({"at": "0s", "name": "infer", "namespace": "b", )") +
                               R"("runFor": "1h", "pod": )" + kPod + "}\n";
  CHECK(ParseTrace(Line("0s", "infer") + other_ns, "week.jsonl", ".").ok());
}

TEST_CASE("a trace cut at a time keeps what arrived before it, each run cut there", "[trace]") {
  auto t = ParseTrace(Line("0s", "a") + Line("30m", "b") + Line("2h", "c"), "week.jsonl", ".");
  REQUIRE(t.ok());
  const Trace cut = TraceUntil(*t, absl::Hours(1));
  REQUIRE(cut.arrivals.size() == 2);
  CHECK(cut.arrivals[0].run_for == absl::Hours(1));
  CHECK(cut.arrivals[1].run_for == absl::Minutes(30));
  CHECK(cut.end == absl::Hours(1));
}

}  // namespace
}  // namespace gpua::sim
