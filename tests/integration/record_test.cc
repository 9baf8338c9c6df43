// `gpu-autoscaler record` against the fake API server (a watch cut mid-event, a compacted
// resourceVersion, a pod deleted while the watch was down) and from kubectl dumps.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "autoscaler/cli/record_command.h"
#include "autoscaler/sim/trace.h"
#include "base/file.h"
#include "tests/support/config_files.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_api_server.h"
#include "tests/support/run_command.h"

namespace gpua {
namespace {

using testing::Eventually;
using testing::FakeApiServer;

std::string ApiTime(absl::Time t) {
  return absl::FormatTime(absl::RFC3339_sec, t, absl::UTCTimeZone());
}

nlohmann::json GpuPod(const std::string& name, absl::Time created) {
  return {{"metadata",
           {{"name", name},
            {"namespace", "ml"},
            {"uid", "uid-" + name},
            {"creationTimestamp", ApiTime(created)}}},
          {"spec",
           {{"containers",
             {{{"name", "c"}, {"resources", {{"requests", {{"nvidia.com/gpu", "1"}}}}}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

void Bind(nlohmann::json& pod, absl::Time at) {
  pod["spec"]["nodeName"] = "gpu-1";
  pod["status"]["phase"] = "Running";
  pod["status"]["conditions"] = {
      {{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", ApiTime(at)}}};
}

// How many `verb` requests (list, watch) for pods the server has had: the recorder's progress,
// which the test waits on instead of sleeping.
int PodRequests(const FakeApiServer& server, const std::string& verb) {
  int n = 0;
  for (const FakeApiServer::Access& a : server.accesses())
    n += a.verb == verb && a.resource == "pods";
  return n;
}

std::map<std::string, nlohmann::json> LinesByName(const std::string& text) {
  std::map<std::string, nlohmann::json> out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "#")) continue;
    nlohmann::json j = nlohmann::json::parse(line);
    out[j["name"].get<std::string>()] = j;
  }
  return out;
}

TEST_CASE(
    "record loses no pod to a watch cut mid-event or a compacted resourceVersion, and a "
    "pod deleted while the watch was down ends there",
    "[kube][record]") {
  FakeApiServer server;
  server.SetBookmarkInterval(std::chrono::hours(1));  // the cut falls in a pod's event
  const absl::Time long_ago = absl::Now() - absl::Hours(1);
  nlohmann::json before = GpuPod("before", long_ago);
  Bind(before, long_ago);
  server.Upsert("pods", before);
  nlohmann::json daemon = GpuPod("dcgm", long_ago);
  daemon["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"},
                                            {"kind", "DaemonSet"},
                                            {"name", "dcgm"},
                                            {"uid", "d"},
                                            {"controller", true}}};
  Bind(daemon, long_ago);
  server.Upsert("pods", daemon);
  // No PodGroup or DRA collection is served, so the next watch is the pods' own.
  server.RefusePath("/apis/scheduling.volcano.sh/", 404);
  server.RefusePath("/apis/scheduling.x-k8s.io/", 404);
  server.RefusePath("/apis/resource.k8s.io/", 404);
  server.CutNextWatchAfter(60);

  const std::string out = (std::filesystem::temp_directory_path() / "gpua-record-1.jsonl").string();
  std::ostringstream stdout_text, stderr_text;
  int rc = -1;
  std::thread recorder([&] {
    rc = testing::RunCommand(RunRecordCommand,
                             {"--kubeconfig", testing::KubeconfigFor(server.url(), "gpua-record-1"),
                              "--for", "5s", "--out", out, "--keep-names"},
                             stdout_text, stderr_text);
  });
  // Pods listed and watched, both versions of both PodGroup collections and the three
  // versions of the three DRA collections refused: the next request is the pods' own.
  REQUIRE(Eventually([&] { return server.requests() >= 15 && PodRequests(server, "watch") == 1; }));
  // The watch after the cut waits a while for its answer; meanwhile `before` is deleted and
  // the events are forgotten, so it gets 410 and only the relist can tell.
  server.StallNext(1, absl::Milliseconds(700));
  // In whole seconds, as the API writes times, and after the recording began.
  const absl::Time now = absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now()) + 1);
  nlohmann::json job = GpuPod("job-1", now);
  server.Upsert("pods", job);                                              // cut mid-event
  REQUIRE(Eventually([&] { return PodRequests(server, "watch") >= 2; }));  // the stalled one
  server.Delete("pods", "ml", "before");
  Bind(job, now);
  server.Upsert("pods", job);
  server.Compact();
  // The stalled watch met 410; the pods were listed again and are watched from there.
  REQUIRE(Eventually(
      [&] { return PodRequests(server, "list") >= 2 && PodRequests(server, "watch") >= 3; }));
  job["status"]["phase"] = "Succeeded";
  job["status"]["containerStatuses"] = {
      {{"name", "c"},
       {"state", {{"terminated", {{"finishedAt", ApiTime(now + absl::Seconds(2))}}}}}}};
  server.Upsert("pods", job);
  recorder.join();
  INFO(stderr_text.str());
  REQUIRE(rc == 0);
  absl::StatusOr<std::string> text = ReadFile(out);
  REQUIRE(text.ok());
  INFO(*text);
  const auto lines = LinesByName(*text);
  REQUIRE(lines.size() == 2);
  REQUIRE(lines.count("before") == 1);
  REQUIRE(lines.count("job-1") == 1);
  CHECK(lines.at("job-1")["runFor"] == "2s");
  CHECK(lines.at("job-1")["namespace"] == "ml");
  // There from the start, gone within the recording: cut by its deletion, not the end.
  absl::StatusOr<absl::Duration> before_ran =
      sim::ParseTraceDuration(lines.at("before")["runFor"].get<std::string>());
  REQUIRE(before_ran.ok());
  CHECK(*before_ran <= absl::Seconds(3));
  CHECK(absl::StrContains(*text, "1 DaemonSet or static pods"));
  CHECK(sim::ParseTrace(*text, out, ".").ok());
  CHECK(absl::StrContains(stderr_text.str(), "2 pods (2 asking for GPUs) in 2 lines"));
  CHECK(absl::StrContains(stderr_text.str(), "listing again"));  // the 410 was met
}

TEST_CASE("record --from kubectl-json reads a dump of one pod after another, without names",
          "[record]") {
  const absl::Time t =
      absl::FromCivil(absl::CivilSecond(2026, 12, 1, 9, 0, 0), absl::UTCTimeZone());
  nlohmann::json a = GpuPod("resnet-a", t);
  Bind(a, t + absl::Minutes(3));
  nlohmann::json b = GpuPod("resnet-b", t + absl::Hours(1));
  Bind(b, t + absl::Hours(1));
  b["status"]["phase"] = "Succeeded";
  b["status"]["containerStatuses"] = {
      {{"name", "c"}, {"state", {{"terminated", {{"finishedAt", ApiTime(t + absl::Hours(3))}}}}}}};
  const auto dump = std::filesystem::temp_directory_path() / "gpua-record-dump.json";
  std::ofstream(dump) << a.dump(2) << "\n" << b.dump(2) << "\n";
  std::ostringstream out, err;
  const int rc =
      testing::RunCommand(RunRecordCommand, {"--from", "kubectl-json", dump.string()}, out, err);
  INFO(err.str());
  REQUIRE(rc == 0);
  const auto lines = LinesByName(out.str());
  REQUIRE(lines.size() == 2);
  CHECK(lines.at("pod-1")["at"] == "9h");
  // Still running when the dump was taken (its last timestamp, b's end): cut there.
  CHECK(lines.at("pod-1")["runFor"] == "2h57m");
  CHECK(lines.at("pod-2")["runFor"] == "2h");
  CHECK_FALSE(absl::StrContains(out.str(), "resnet"));
}

TEST_CASE("record refuses what it cannot do, naming the flag or the file", "[record]") {
  const auto run = [](const CommandArgs& args, std::string* err_text) {
    std::ostringstream out, err;
    const int rc = testing::RunCommand(RunRecordCommand, args, out, err);
    *err_text = err.str();
    return rc;
  };
  std::string err;
  CHECK(run({}, &err) == kExitUsage);
  CHECK(absl::StrContains(err, "--for is required"));
  CHECK(run({"--from", "csv", "x"}, &err) == kExitUsage);
  CHECK(absl::StrContains(err, "--from must be kubectl-json"));
  CHECK(run({"--from", "kubectl-json"}, &err) == kExitUsage);
  CHECK(absl::StrContains(err, "takes one FILE"));
  CHECK(run({"--for", "-1h", "--from", "kubectl-json", "x"}, &err) == kExitUsage);
  const auto broken = std::filesystem::temp_directory_path() / "gpua-record-broken.json";
  std::ofstream(broken) << "{\"kind\": \"Pod\"}\n{\"kind\": Pod}\n";
  CHECK(run({"--from", "kubectl-json", broken.string()}, &err) == kExitUsage);
  CHECK(absl::StrContains(err, "gpua-record-broken.json: invalid JSON in document 2"));
  const auto nodes = std::filesystem::temp_directory_path() / "gpua-record-nodes.json";
  std::ofstream(nodes)
      << R"({"kind": "NodeList", "items": [{"kind": "Node", "metadata": {"name": "n"}}]})";
  CHECK(run({"--from", "kubectl-json", nodes.string()}, &err) == kExitUsage);
  CHECK(absl::StrContains(err, "1 objects are not pods"));
  CHECK(absl::StrContains(err, "holds no pods"));
  const auto waiting = std::filesystem::temp_directory_path() / "gpua-record-waiting.json";
  std::ofstream(waiting) << GpuPod("waiting", absl::Now()).dump();
  CHECK(run({"--from", "kubectl-json", waiting.string()}, &err) == kExitFailure);
  CHECK(absl::StrContains(err, "no pod ran in the window"));
}

TEST_CASE("a long recording is written out as it goes, so a killed one leaves its checkpoint",
          "[kube][record]") {
  FakeApiServer server;
  nlohmann::json pod = GpuPod("steady", absl::Now());
  Bind(pod, absl::Now());
  server.Upsert("pods", pod);
  const std::string out = (std::filesystem::temp_directory_path() / "gpua-record-3.jsonl").string();
  std::filesystem::remove(out);
  std::atomic<bool> stop{false};
  std::ostringstream stdout_text, err;
  RealClock clock;
  std::thread recorder([&] {
    (void)RunRecordCommandUntil(
        {"--kubeconfig", testing::KubeconfigFor(server.url(), "gpua-record-3"), "--for", "1h",
         "--checkpoint-every", "300ms", "--out", out},
        {stdout_text, err, clock}, stop);
  });
  // While it still records, the file holds a trace that reads back, with the pod in it.
  const bool written = Eventually([&] {
    absl::StatusOr<std::string> text = ReadFile(out);
    return text.ok() && LinesByName(*text).size() == 1 && sim::ParseTrace(*text, out, ".").ok();
  });
  stop = true;
  recorder.join();
  INFO(err.str());
  CHECK(written);
}

TEST_CASE("record --namespace lists and watches that namespace only", "[kube][record]") {
  FakeApiServer server;
  for (const char* ns : {"ml", "web"}) {
    nlohmann::json pod = GpuPod(absl::StrCat("in-", ns), absl::Now());
    pod["metadata"]["namespace"] = ns;
    Bind(pod, absl::Now());
    server.Upsert("pods", pod);
  }
  std::ostringstream out, err;
  const int rc =
      testing::RunCommand(RunRecordCommand,
                          {"--kubeconfig", testing::KubeconfigFor(server.url(), "gpua-record-4"),
                           "--for", "1s", "--namespace", "ml", "--keep-names"},
                          out, err);
  INFO(err.str());
  REQUIRE(rc == 0);
  const auto lines = LinesByName(out.str());
  REQUIRE(lines.size() == 1);
  CHECK(lines.begin()->first == "in-ml");
}

TEST_CASE("record reads gangs' sizes from PodGroups, and does without them where none is served",
          "[kube][record]") {
  FakeApiServer server;
  for (int i = 0; i < 3; ++i) {
    nlohmann::json pod = GpuPod(absl::StrCat("ddp-", i), absl::Now());
    pod["metadata"]["annotations"]["scheduling.k8s.io/group-name"] = "ddp";
    Bind(pod, absl::Now());
    server.Upsert("pods", pod);
  }
  server.Upsert("podgroups", {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                              {"kind", "PodGroup"},
                              {"metadata", {{"name", "ddp"}, {"namespace", "ml"}}},
                              {"spec", {{"minMember", 2}}}});
  // The coscheduling collection is not served, as where its CRD is not installed.
  server.RefusePath("/apis/scheduling.x-k8s.io/", 404);
  std::ostringstream out, err;
  const int rc = testing::RunCommand(
      RunRecordCommand,
      {"--kubeconfig", testing::KubeconfigFor(server.url(), "gpua-record-5"), "--for", "1s"}, out,
      err);
  INFO(err.str());
  REQUIRE(rc == 0);
  INFO(out.str());
  absl::StatusOr<sim::Trace> trace = sim::ParseTrace(out.str(), "recorded", ".");
  REQUIRE(trace.ok());
  REQUIRE(trace->arrivals.size() == 1);
  CHECK(trace->arrivals[0].count == 3);
  REQUIRE(trace->arrivals[0].shape->spec.gang.has_value());
  CHECK(trace->arrivals[0].shape->spec.gang->min_member == 2);
}

TEST_CASE(
    "record writes pods' DRA claims with the DeviceClasses and claim templates they use, from "
    "v1 or a 1.32 server's v1beta1, and without them where DRA is not served",
    "[kube][record][dra]") {
  for (const char* served : {"v1", "v1beta1", "none"}) {
    INFO(served);
    FakeApiServer server;
    if (std::string(served) != "v1") {
      server.RefusePath("/apis/resource.k8s.io/v1/", 404);
      server.RefusePath("/apis/resource.k8s.io/v1beta2/", 404);
    }
    if (std::string(served) == "none") server.RefusePath("/apis/resource.k8s.io/", 404);
    nlohmann::json pod = GpuPod("claims", absl::Now());
    pod["spec"]["resourceClaims"] = {{{"name", "gpu"}, {"resourceClaimTemplateName", "one-gpu"}}};
    pod["spec"]["containers"][0]["resources"] = {{"claims", {{{"name", "gpu"}}}}};
    Bind(pod, absl::Now());
    server.Upsert("pods", pod);
    server.Upsert("deviceclasses",
                  {{"metadata", {{"name", "gpu.nvidia.com"}}},
                   {"spec", {{"selectors", {{{"cel", {{"expression", "true"}}}}}}}}});
    const nlohmann::json request =
        std::string(served) == "v1"
            ? nlohmann::json{{"name", "gpu"}, {"exactly", {{"deviceClassName", "gpu.nvidia.com"}}}}
            : nlohmann::json{{"name", "gpu"}, {"deviceClassName", "gpu.nvidia.com"}};
    server.Upsert("resourceclaimtemplates",
                  {{"metadata", {{"name", "one-gpu"}, {"namespace", "ml"}}},
                   {"spec", {{"spec", {{"devices", {{"requests", {request}}}}}}}}});
    std::ostringstream out, err;
    const int rc = testing::RunCommand(
        RunRecordCommand,
        {"--kubeconfig", testing::KubeconfigFor(server.url(), "gpua-record-dra"), "--for", "1s"},
        out, err);
    INFO(err.str());
    if (std::string(served) == "none") {
      // The pod's template cannot be read: it is left out, saying why, and nothing is left.
      CHECK(rc == 1);
      CHECK_THAT(err.str(), Catch::Contains("left out Pod ml/claims: claim gpu: "
                                            "ResourceClaimTemplate ml/one-gpu was not seen"));
      continue;
    }
    REQUIRE(rc == 0);
    INFO(out.str());
    absl::StatusOr<sim::Trace> trace = sim::ParseTrace(out.str(), "recorded", ".");
    INFO((trace.ok() ? "" : std::string(trace.status().message())));
    REQUIRE(trace.ok());
    REQUIRE(trace->arrivals.size() == 1);
    REQUIRE(trace->dra != nullptr);
    CHECK(trace->dra->classes->contains("gpu.nvidia.com"));
    CHECK(trace->dra->catalog.templates.contains("default/one-gpu"));  // names left out
    CHECK(trace->arrivals[0].shape->spec.claim_refs.size() == 1);
  }
}

TEST_CASE("record stopped early (SIGINT) writes what it saw until then", "[kube][record]") {
  FakeApiServer server;
  nlohmann::json pod = GpuPod("early", absl::Now());
  Bind(pod, absl::Now());
  server.Upsert("pods", pod);
  std::atomic<bool> stop{false};
  std::ostringstream out, err;
  RealClock clock;
  int rc = -1;
  std::thread recorder([&] {
    rc = RunRecordCommandUntil(
        {"--kubeconfig", testing::KubeconfigFor(server.url(), "gpua-record-2"), "--for", "1h"},
        {out, err, clock}, stop);
  });
  // Pods and both PodGroup collections listed and watched.
  REQUIRE(Eventually([&] { return server.requests() >= 6; }));
  stop = true;
  recorder.join();
  INFO(err.str());
  CHECK(rc == 0);
  CHECK(LinesByName(out.str()).size() == 1);
}

}  // namespace
}  // namespace gpua
