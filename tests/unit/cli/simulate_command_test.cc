// `gpu-autoscaler simulate` as a user runs it: files in, figures out, errors with exit codes.

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "autoscaler/cli/app.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_file.h"

namespace gpua {
namespace {

using testing::TempPath;
using testing::WriteTempFile;

constexpr char kGroups[] = R"(
nodeGroups:
- id: l4
  maxSize: 4
  pricePerHour: 0.8
  template:
    metadata: {labels: {nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "1"}}
    spec: {taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
    status: {allocatable: {cpu: "8", memory: 32Gi, pods: "58", nvidia.com/gpu: "1"}}
  simulation:
    provisioningDelay: {p50: 1m, p95: 2m}
    gpuReadyDelay: {p50: 1m, p95: 1m}
)";

constexpr char kTrace[] = R"(# three one-GPU jobs
{"at": "0s", "name": "a", "runFor": "30m", "pod": {"spec": {"tolerations": [{"operator": "Exists"}], "containers": [{"name": "m", "resources": {"requests": {"nvidia.com/gpu": "1"}}}]}}}
{"at": "45m", "name": "b", "count": 2, "runFor": "30m", "pod": {"spec": {"tolerations": [{"operator": "Exists"}], "containers": [{"name": "m", "resources": {"requests": {"nvidia.com/gpu": "1"}}}]}}}
)";

using Ran = testing::CommandRun;

Ran Simulate(CommandArgs args) {
  args.insert(args.begin(), "simulate");
  return testing::RunCaptured(RunApp, args);
}

CommandArgs Files() {
  return {"--trace", WriteTempFile("trace.jsonl", kTrace), "--node-groups",
          WriteTempFile("groups.yaml", kGroups)};
}

CommandArgs With(CommandArgs a, const CommandArgs& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

TEST_CASE("simulate --output json prints the figures, in all and per group", "[simulate]") {
  const Ran r = Simulate(With(Files(), {"--output", "json"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const char* key :
       {"total_cost_usd", "gpu_hours_billed", "gpu_hours_used", "gpu_hours_idle", "idle_cost_usd",
        "pending_seconds", "scale_ups", "scale_downs", "preemptions", "lower_bound_cost_usd",
        "packing_bound_cost_usd", "share_spread_node_hours", "idle_gpu_hours_by_cause", "groups"}) {
    CHECK(j.contains(key));
  }
  double by_cause = 0;
  for (const auto& [cause, hours] : j["idle_gpu_hours_by_cause"].items()) {
    by_cause += hours.get<double>();
  }
  CHECK(by_cause == Approx(j["gpu_hours_idle"].get<double>()).margin(0.05));
  CHECK(j["idle_gpu_hours_by_cause"].contains("idle_timeout"));
  for (const char* p : {"p50", "p95", "p99", "max"}) CHECK(j["pending_seconds"].contains(p));
  REQUIRE(j["groups"].contains("l4"));
  CHECK(j["groups"]["l4"]["total_cost_usd"] == j["total_cost_usd"]);
  CHECK(j["pods"] == 3);
  CHECK(j["pods_finished"] == 3);
  CHECK(j["gpu_hours_used"].get<double>() == Approx(1.5));
  CHECK(j["lower_bound_cost_usd"].get<double>() <= j["total_cost_usd"].get<double>());
  CHECK(j["packing_bound_cost_usd"].get<double>() <= j["total_cost_usd"].get<double>());
  CHECK(j["groups"]["l4"]["packing_bound_cost_usd"] == j["packing_bound_cost_usd"]);
}

TEST_CASE("simulate runs the shipped DRA examples: claims through templates on DRA pools",
          "[simulate][dra]") {
  const std::string dir = std::string(GPUA_SOURCE_DIR) + "/examples/dra/";
  // Of the week its first day: the sanitizer build runs all of it too slowly for a unit test.
  for (const auto& [trace, until] :
       {std::pair{"trace.jsonl", ""}, std::pair{"week.jsonl", "24h"}}) {
    INFO(trace);
    CommandArgs args = {"--trace",  dir + trace, "--node-groups", dir + "node-groups.yaml",
                        "--output", "json"};
    if (*until != '\0') args.insert(args.end(), {"--until", until});
    const Ran r = Simulate(args);
    INFO(r.err);
    REQUIRE(r.code == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    if (*until == '\0') CHECK(j["pods_finished"] == j["pods"]);
    const nlohmann::json& h100 = j["groups"]["h100-dra"];
    CHECK(h100["scale_ups"].get<int>() > 0);
    CHECK(h100["gpu_hours_used"].get<double>() > 0);
    CHECK(h100["gpu_hours_used"].get<double>() <= h100["gpu_hours_billed"].get<double>());
    CHECK(j["packing_bound_cost_usd"].get<double>() <= j["total_cost_usd"].get<double>());
    // The bounds count the claimed H100s, not only the pods' cpu.
    CHECK(h100["packing_bound_cost_usd"].get<double>() > 0);
  }
}

TEST_CASE("simulate --sweep runs each value and prints a list, each with its setting",
          "[simulate]") {
  const Ran r = Simulate(With(
      Files(), {"--output=json", "--sweep", "scale-down-unneeded-time=0s,1h", "--parallelism=2"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 2);
  CHECK(j[0]["setting"] == "scale-down-unneeded-time=0s");
  CHECK(j[1]["setting"] == "scale-down-unneeded-time=1h");
  // The node that stays for an hour between the jobs costs more, and b's pods wait less.
  CHECK(j[1]["total_cost_usd"].get<double>() > j[0]["total_cost_usd"].get<double>());
  CHECK(j[1]["scale_ups"].get<int>() < j[0]["scale_ups"].get<int>());
}

TEST_CASE("simulate --sweep gpu-sharing runs the week as configured and on whole GPUs",
          "[simulate]") {
  const Ran r = Simulate(
      {"--until", "12h", "--output", "json", "--sweep", "gpu-sharing=as-configured,whole-gpus"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  REQUIRE(j.size() == 2);
  CHECK(j[1]["setting"] == "gpu-sharing=whole-gpus");
  // On whole GPUs each MIG slice and share takes a GPU, and no pool has shares to spread.
  CHECK(j[1]["gpu_hours_used"].get<double>() > j[0]["gpu_hours_used"].get<double>());
  CHECK(j[1]["share_spread_node_hours"] == 0);
  CHECK(j[1]["total_cost_usd"].get<double>() > j[0]["total_cost_usd"].get<double>());
}

TEST_CASE("simulate prints a table, and a group's option can be swept", "[simulate]") {
  const Ran r = Simulate(With(Files(), {"--sweep", "group/l4/scaleDownUnneededTime=2m,20m"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("SETTING") &&
                        Catch::Contains("group/l4/scaleDownUnneededTime=2m") &&
                        Catch::Contains("group/l4/scaleDownUnneededTime=20m") &&
                        Catch::Contains("Lower bound") && Catch::Contains("Packing bound") &&
                        Catch::Contains("x PACK") && Catch::Contains("IDLE GPU-H BY") &&
                        Catch::Contains("FRAGMENTS"));
}

TEST_CASE("simulate --report writes one self-contained HTML page", "[simulate]") {
  const std::string report = TempPath("report.html");
  std::remove(report.c_str());
  const Ran r =
      Simulate(With(Files(), {"--report", report, "--sweep", "scale-down-unneeded-time=0s,10m"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::ifstream in(report);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>") && Catch::Contains("<svg") &&
                       Catch::Contains("scale-down-unneeded-time=0s") &&
                       Catch::Contains("scale-down-unneeded-time=10m") &&
                       Catch::Contains("<h3>l4</h3>") && Catch::Contains("share bound $") &&
                       Catch::Contains("packing bound $") &&
                       Catch::Contains("idle GPU-hours by what kept them") &&
                       Catch::Contains("<th>pods cannot move</th>"));
  // Nothing is fetched: no scripts, no links, no images from anywhere.
  CHECK_THAT(html, !Catch::Contains("<script") && !Catch::Contains("src=") &&
                       !Catch::Contains("href=") && !Catch::Contains("@import"));
}

TEST_CASE("simulate's input and flag errors name the line, the flag or the option", "[simulate]") {
  const std::string groups = WriteTempFile("groups.yaml", kGroups);
  SECTION("a malformed trace line: exit 2, its line and field, nothing simulated") {
    const std::string bad =
        WriteTempFile("bad.jsonl", std::string(kTrace) + "{\"at\": \"later\"}\n");
    const Ran r = Simulate({"--trace", bad, "--node-groups", groups});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("line 4") && Catch::Contains("at"));
    CHECK(r.out.empty());
  }
  SECTION("a trace without a node-group file") {
    const Ran r = Simulate({"--trace", WriteTempFile("t.jsonl", kTrace)});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--trace and --node-groups go together"));
  }
  SECTION("a sweep of an unknown flag, of a bad value, of an output flag") {
    CHECK_THAT(Simulate(With(Files(), {"--sweep", "colour=red"})).err,
               Catch::Contains("--sweep: unknown flag --colour"));
    CHECK_THAT(Simulate(With(Files(), {"--sweep", "scale-down-unneeded-time=1m,soon"})).err,
               Catch::Contains("\"soon\"") && Catch::Contains("--scale-down-unneeded-time"));
    CHECK_THAT(Simulate(With(Files(), {"--sweep", "report=x.html"})).err,
               Catch::Contains("--report cannot be swept"));
    CHECK(Simulate(With(Files(), {"--sweep", "group/gpu/scaleDownUnneededTime=1m"})).code == 2);
  }
  SECTION("a report where no file can be written, said before anything runs") {
    const Ran r = Simulate(With(Files(), {"--report", "/nonexistent-dir/report.html"}));
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--report: cannot write /nonexistent-dir/report.html"));
    CHECK(r.out.empty());
  }
  SECTION("a controller flag's bad value, and an unknown one") {
    const Ran bad = Simulate(With(Files(), {"--scale-down-unneeded-time=soon"}));
    CHECK(bad.code == 2);
    CHECK_THAT(bad.err, Catch::Contains("--scale-down-unneeded-time"));
    CHECK(Simulate(With(Files(), {"--kubeconfig=x"})).code == 2);  // no cluster here
    CHECK_THAT(Simulate(With(Files(), {"--scheduler-scoring=random"})).err,
               Catch::Contains("--scheduler-scoring"));
    const Ran sharing = Simulate(With(Files(), {"--gpu-sharing=none"}));
    CHECK(sharing.code == 2);
    CHECK_THAT(sharing.err, Catch::Contains("\"none\" for flag --gpu-sharing"));
  }
}

TEST_CASE("simulate with no files runs the bundled example week, with its sweep", "[simulate]") {
  const Ran r = Simulate({"--until", "12h", "--output", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  REQUIRE(j.is_array());
  CHECK(j.size() >= 3);
  for (const nlohmann::json& run : j) {
    CHECK_THAT(run["setting"].get<std::string>(), Catch::StartsWith("scale-down-unneeded-time="));
    CHECK(run["groups"].size() == 5);
    CHECK(run["scale_ups"].get<int>() > 0);
  }
}

TEST_CASE("simulate with no files and an idle timeout given runs that one setting", "[simulate]") {
  const Ran r = Simulate({"--until", "6h", "--output", "json", "--scale-down-unneeded-time=2m"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j.is_object());  // one run, not a sweep's list
  // Another flag keeps the bundled sweep of idle timeouts, under that flag.
  const Ran swept = Simulate({"--until", "6h", "--output", "json", "--expander=least-waste"});
  REQUIRE(swept.code == 0);
  CHECK(nlohmann::json::parse(swept.out).is_array());
}

TEST_CASE("simulate says which groups have no provisioning delay to simulate", "[simulate]") {
  std::string groups = kGroups;
  groups = groups.substr(0, groups.find("  simulation:"));
  const Ran r = Simulate({"--trace", WriteTempFile("trace.jsonl", kTrace), "--node-groups",
                          WriteTempFile("instant.yaml", groups)});
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("group(s) l4 have no simulation.provisioningDelay"));
}

TEST_CASE("simulate --help lists its own flags and the controller's", "[simulate]") {
  const Ran r = Simulate({"--help"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("--trace") && Catch::Contains("--sweep") &&
                        Catch::Contains("--scale-down-unneeded-time") &&
                        Catch::Contains("--expander"));
}

}  // namespace
}  // namespace gpua
