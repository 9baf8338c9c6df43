// `gpu-autoscaler record`'s core: the pods seen come and go become trace lines that
// `simulate` reads back, with what was left out said.
#include "autoscaler/sim/trace_recorder.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "autoscaler/sim/trace.h"
#include "kubeobjects/api_time.h"
#include "kubeobjects/pods.h"

namespace gpua::sim {
namespace {

absl::Time Utc(const char* text) {
  absl::Time t;
  REQUIRE(ParseApiTime(text, &t));
  return t;
}

// A pod asking for `gpus` GPUs, created, bound and ended at the times given ("" for not).
nlohmann::json Pod(const std::string& name, const std::string& created, const std::string& bound,
                   const std::string& ended, int gpus = 1) {
  nlohmann::json pod = {
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"namespace", "research"},
        {"uid", "uid-" + name},
        {"creationTimestamp", created},
        {"labels", {{"team", "vision"}}},
        {"annotations",
         {{"gpu-autoscaler.io/cuda-version", "12.2"}, {"owner-email", "someone@example.com"}}}}},
      {"spec",
       {{"containers",
         {{{"name", "trainer"},
           {"image", "registry.example.com/vision/train:7"},
           {"resources",
            {{"requests", {{"nvidia.com/gpu", std::to_string(gpus)}, {"cpu", "8"}}}}}}}},
        {"tolerations", {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}}}}},
      {"status", {{"phase", "Pending"}}}};
  if (!bound.empty()) {
    pod["spec"]["nodeName"] = "node-1";
    pod["status"]["phase"] = "Running";
    pod["status"]["conditions"] = {
        {{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", bound}}};
  }
  if (!ended.empty()) {
    pod["status"]["phase"] = "Succeeded";
    pod["status"]["containerStatuses"] = {
        {{"name", "trainer"}, {"state", {{"terminated", {{"finishedAt", ended}}}}}}};
  }
  return pod;
}

RecordWindow Window(const char* start, const char* end) {
  RecordWindow w;
  w.start = Utc(start);
  w.end = Utc(end);
  w.source = "test";
  return w;
}

std::vector<nlohmann::json> Lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (!absl::StartsWith(line, "#")) out.push_back(nlohmann::json::parse(line));
  }
  return out;
}

Trace ReadBack(const RecordedTrace& recorded) {
  absl::StatusOr<Trace> trace = ParseTrace(recorded.text, "recorded", ".");
  INFO(recorded.text);
  INFO((trace.ok() ? "" : std::string(trace.status().message())));
  REQUIRE(trace.ok());
  return *std::move(trace);
}

TEST_CASE(
    "a pod stating it was created after it was bound (a skewed clock, a broken object) "
    "arrives when it was bound, and its trace reads back",
    "[record]") {
  TraceRecorder recorder;
  recorder.Saw(
      Pod("skewed", "4052-12-01T10:00:00Z", "2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z"),
      Utc("2026-12-01T11:05:00Z"));
  const RecordedTrace recorded =
      recorder.Write(Window("2026-12-01T09:30:00Z", "2026-12-01T20:00:00Z"));
  const Trace trace = ReadBack(recorded);
  REQUIRE(trace.arrivals.size() == 1);
  CHECK(trace.arrivals[0].at == absl::Hours(10));
  CHECK(trace.arrivals[0].run_for == absl::Hours(1));
}

TEST_CASE(
    "a live recording keeps the times it saw over later ones a pod states: a binding stated "
    "after its end, a container ended hours after the pod was seen finished",
    "[record]") {
  TraceRecorder recorder;
  // The scheduler's clock runs two hours ahead: the stated binding is after the stated end.
  recorder.Saw(Pod("ahead", "2026-12-01T10:00:00Z", "2026-12-01T12:00:00Z", ""),
               Utc("2026-12-01T10:05:00Z"));
  recorder.Saw(Pod("ahead", "2026-12-01T10:00:00Z", "2026-12-01T12:00:00Z", "2026-12-01T11:00:00Z"),
               Utc("2026-12-01T11:05:00Z"));
  // The node's clock runs seven hours ahead: its containers state they ended at 18:00.
  recorder.Saw(Pod("node-ahead", "2026-12-01T10:00:00Z", "2026-12-01T10:02:00Z", ""),
               Utc("2026-12-01T10:05:00Z"));
  recorder.Saw(
      Pod("node-ahead", "2026-12-01T10:00:00Z", "2026-12-01T10:02:00Z", "2026-12-01T18:00:00Z"),
      Utc("2026-12-01T11:05:00Z"));
  const RecordedTrace recorded =
      recorder.Write(Window("2026-12-01T09:30:00Z", "2026-12-01T20:00:00Z"));
  CHECK(recorded.summary.never_bound == 0);
  const Trace trace = ReadBack(recorded);
  REQUIRE(trace.arrivals.size() == 2);
  std::vector<absl::Duration> runs;
  for (const auto& arrival : trace.arrivals) {
    CHECK(arrival.at == absl::Hours(10));
    runs.push_back(arrival.run_for);
  }
  std::sort(runs.begin(), runs.end());
  CHECK(runs == std::vector<absl::Duration>{absl::Minutes(55), absl::Minutes(63)});
}

TEST_CASE(
    "a pod that ran in the window is one line, arriving at its time since midnight UTC, "
    "running from binding to its containers' end, with none of its names or labels",
    "[record]") {
  TraceRecorder recorder;
  recorder.Saw(
      Pod("resnet-7", "2026-12-01T10:00:00Z", "2026-12-01T10:02:00Z", "2026-12-01T14:02:00Z", 8),
      Utc("2026-12-01T14:03:00Z"));
  const RecordedTrace recorded =
      recorder.Write(Window("2026-12-01T09:30:00Z", "2026-12-01T20:00:00Z"));
  CHECK(recorded.zero == Utc("2026-12-01T00:00:00Z"));
  const std::vector<nlohmann::json> lines = Lines(recorded.text);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0]["at"] == "10h");
  CHECK(lines[0]["runFor"] == "4h");
  CHECK(lines[0]["name"] == "pod-1");
  CHECK_FALSE(lines[0].contains("namespace"));
  const nlohmann::json& pod = lines[0]["pod"];
  CHECK(pod["metadata"]["annotations"] ==
        nlohmann::json{{"gpu-autoscaler.io/cuda-version", "12.2"}});
  CHECK_FALSE(pod["metadata"].contains("labels"));
  CHECK(pod["spec"]["containers"][0] ==
        nlohmann::json{{"name", "c0"},
                       {"resources", {{"requests", {{"nvidia.com/gpu", "8"}, {"cpu", "8"}}}}}});
  CHECK_FALSE(absl::StrContains(recorded.text, "resnet"));
  CHECK_FALSE(absl::StrContains(recorded.text, "research"));
  CHECK_FALSE(absl::StrContains(recorded.text, "registry.example.com"));
  CHECK_FALSE(absl::StrContains(recorded.text, "someone@example.com"));
  const Trace trace = ReadBack(recorded);
  REQUIRE(trace.arrivals.size() == 1);
  CHECK(trace.arrivals[0].at == absl::Hours(10));
  CHECK(trace.arrivals[0].run_for == absl::Hours(4));
  CHECK(trace.arrivals[0].gpu);
  CHECK(recorded.summary.pods == 1);
  CHECK(recorded.summary.gpu_pods == 1);
}

TEST_CASE(
    "a pod from before the window is there at its start with what is left of its run, one "
    "still running is cut at the end, and one that ended before is left out",
    "[record]") {
  TraceRecorder recorder;
  const absl::Time start = Utc("2026-12-02T06:00:00Z");
  recorder.Saw(Pod("early", "2026-12-01T22:00:00Z", "2026-12-01T22:00:30Z", ""), start);
  recorder.Saw(Pod("gone", "2026-12-01T20:00:00Z", "2026-12-01T20:01:00Z", "2026-12-01T23:00:00Z"),
               start);
  recorder.Saw(Pod("early", "2026-12-01T22:00:00Z", "2026-12-01T22:00:30Z", "2026-12-02T08:00:00Z"),
               Utc("2026-12-02T08:00:05Z"));
  recorder.Saw(Pod("late", "2026-12-02T11:00:00Z", "2026-12-02T11:10:00Z", ""),
               Utc("2026-12-02T11:10:05Z"));
  const RecordedTrace recorded =
      recorder.Write(Window("2026-12-02T06:00:00Z", "2026-12-02T12:00:00Z"));
  const Trace trace = ReadBack(recorded);
  REQUIRE(trace.arrivals.size() == 2);
  CHECK(trace.arrivals[0].at == absl::Hours(6));
  CHECK(trace.arrivals[0].run_for == absl::Hours(2));
  CHECK(trace.arrivals[1].at == absl::Hours(11));
  CHECK(trace.arrivals[1].run_for == absl::Minutes(50));
  CHECK(recorded.summary.still_running == 1);
  CHECK(recorded.summary.ended_before == 1);
  CHECK(absl::StrContains(recorded.text, "1 still running at the end, cut there"));
}

TEST_CASE(
    "a PodGroup's pods of one shape are one gang line, and a launcher with its workers are "
    "lines joined by the pod-group annotations, read back as one gang",
    "[record]") {
  TraceRecorder recorder;
  const absl::Time seen = Utc("2026-12-01T12:00:00Z");
  for (int i = 0; i < 4; ++i) {
    nlohmann::json worker = Pod("llm-" + std::to_string(i), "2026-12-01T01:00:00Z",
                                "2026-12-01T01:20:00Z", "2026-12-01T09:20:00Z", 8);
    worker["metadata"]["annotations"]["scheduling.k8s.io/group-name"] = "llm";
    recorder.Saw(worker, seen);
  }
  for (int i = 0; i < 3; ++i) {
    nlohmann::json member = Pod("mpi-" + std::to_string(i), "2026-12-01T02:00:00Z",
                                "2026-12-01T02:05:00Z", "2026-12-01T03:05:00Z", i == 0 ? 0 : 4);
    member["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"] = "mpi";
    recorder.Saw(member, seen);
  }
  const RecordedTrace recorded =
      recorder.Write(Window("2026-12-01T00:00:00Z", "2026-12-01T12:00:00Z"));
  const std::vector<nlohmann::json> lines = Lines(recorded.text);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0]["name"] == "gang-1");
  CHECK(lines[0]["count"] == 4);
  CHECK(lines[0]["gang"] == true);
  CHECK(lines[0]["runFor"] == "8h");
  CHECK(recorded.summary.gangs == 2);
  const Trace trace = ReadBack(recorded);
  REQUIRE(trace.arrivals.size() == 3);
  CHECK(trace.arrivals[0].shape->spec.gang->min_member == 4);
  // The launcher (no GPU) and the workers: two lines, one gang of three.
  const GangRef& a = *trace.arrivals[1].shape->spec.gang;
  const GangRef& b = *trace.arrivals[2].shape->spec.gang;
  CHECK(a.name == b.name);
  CHECK(a.min_member == 3);
  CHECK(b.min_member == 3);
  CHECK(trace.arrivals[1].count + trace.arrivals[2].count == 3);
}

TEST_CASE(
    "a Volcano job whose PodGroup starts it with fewer members than it has keeps that "
    "minimum in the trace",
    "[record]") {
  std::vector<nlohmann::json> objects;
  for (int i = 0; i < 4; ++i) {
    nlohmann::json worker = Pod("ddp-" + std::to_string(i), "2026-12-01T01:00:00Z",
                                "2026-12-01T01:02:00Z", "2026-12-01T03:02:00Z", 8);
    worker["metadata"]["annotations"]["scheduling.k8s.io/group-name"] = "ddp";
    objects.push_back(worker);
  }
  objects.push_back({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                     {"kind", "PodGroup"},
                     {"metadata", {{"name", "ddp"}, {"namespace", "research"}}},
                     {"spec", {{"minMember", 3}}}});
  TraceRecorder recorder;
  CHECK(RecordDump(objects, recorder) == 0);  // the PodGroup is read, not left out
  RecordWindow window;
  window.end = recorder.Latest();
  const RecordedTrace recorded = recorder.Write(window);
  const std::vector<nlohmann::json> lines = Lines(recorded.text);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0]["count"] == 4);
  CHECK_FALSE(lines[0].contains("gang"));
  const Trace trace = ReadBack(recorded);
  REQUIRE(trace.arrivals.size() == 1);
  REQUIRE(trace.arrivals[0].shape->spec.gang.has_value());
  CHECK(trace.arrivals[0].shape->spec.gang->min_member == 3);
}

TEST_CASE(
    "DaemonSet, static, never-bound and unreadable pods are left out and said, and rules "
    "between pods are dropped and counted, so the trace still reads back",
    "[record]") {
  TraceRecorder recorder;
  const absl::Time seen = Utc("2026-12-01T12:00:00Z");
  nlohmann::json daemon = Pod("dcgm", "2026-12-01T00:00:00Z", "2026-12-01T00:00:01Z", "");
  daemon["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"},
                                            {"kind", "DaemonSet"},
                                            {"name", "dcgm"},
                                            {"uid", "d"},
                                            {"controller", true}}};
  recorder.Saw(daemon, seen);
  nlohmann::json mirror = Pod("etcd", "2026-12-01T00:00:00Z", "2026-12-01T00:00:01Z", "");
  mirror["metadata"]["annotations"]["kubernetes.io/config.mirror"] = "abc";
  recorder.Saw(mirror, seen);
  recorder.Saw(Pod("waiting", "2026-12-01T03:00:00Z", "", ""), seen);
  nlohmann::json bad = Pod("bad", "2026-12-01T03:00:00Z", "2026-12-01T03:00:01Z", "");
  bad["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "lots";
  recorder.Saw(bad, seen);
  nlohmann::json social = Pod("social", "2026-12-01T04:00:00Z", "2026-12-01T04:00:10Z", "");
  social["spec"]["affinity"]["podAntiAffinity"] = {
      {"requiredDuringSchedulingIgnoredDuringExecution",
       {{{"topologyKey", "kubernetes.io/hostname"},
         {"labelSelector", {{"matchLabels", {{"app", "x"}}}}}}}}};
  social["spec"]["topologySpreadConstraints"] = {
      {{"maxSkew", 1},
       {"topologyKey", "zone"},
       {"whenUnsatisfiable", "DoNotSchedule"},
       {"labelSelector", {{"matchLabels", {{"app", "x"}}}}}}};
  social["spec"]["containers"][0]["ports"] = {{{"containerPort", 80}, {"hostPort", 8080}}};
  social["spec"]["affinity"]["nodeAffinity"] = {
      {"requiredDuringSchedulingIgnoredDuringExecution",
       {{"nodeSelectorTerms",
         {{{"matchExpressions", {{{"key", "gpu"}, {"operator", "In"}, {"values", {"a100"}}}}}}}}}}};
  recorder.Saw(social, seen);
  const RecordedTrace recorded =
      recorder.Write(Window("2026-12-01T00:00:00Z", "2026-12-01T12:00:00Z"));
  const RecordSummary& s = recorded.summary;
  CHECK(s.node_pods == 2);
  CHECK(s.never_bound == 1);
  CHECK(s.unreadable == 1);
  REQUIRE(s.problems.size() == 1);
  CHECK(absl::StrContains(s.problems[0], "research/bad"));
  CHECK(absl::StrContains(s.problems[0], "spec.containers[0].resources.requests"));
  CHECK(s.pod_affinity_dropped == 1);
  CHECK(s.spread_dropped == 1);
  CHECK(s.host_ports_dropped == 1);
  const Trace trace = ReadBack(recorded);
  REQUIRE(trace.arrivals.size() == 1);
  // Node affinity is what the scheduler reads of nodes: it stays.
  CHECK(trace.arrivals[0].shape->spec.required_node_affinity.has_value());
}

TEST_CASE(
    "with keep_names the lines keep pod names and namespaces, and a name that comes again "
    "is told apart",
    "[record]") {
  TraceRecorder recorder;
  const absl::Time seen = Utc("2026-12-01T12:00:00Z");
  nlohmann::json first =
      Pod("web-0", "2026-12-01T01:00:00Z", "2026-12-01T01:00:05Z", "2026-12-01T02:00:00Z");
  nlohmann::json again =
      Pod("web-0", "2026-12-01T03:00:00Z", "2026-12-01T03:00:05Z", "2026-12-01T04:00:00Z");
  again["metadata"]["uid"] = "uid-web-0-again";
  recorder.Saw(first, seen);
  recorder.Saw(again, seen);
  RecordWindow window = Window("2026-12-01T00:00:00Z", "2026-12-01T12:00:00Z");
  window.keep_names = true;
  const std::vector<nlohmann::json> lines = Lines(recorder.Write(window).text);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0]["name"] == "web-0");
  CHECK(lines[0]["namespace"] == "research");
  CHECK(lines[1]["name"] == "web-0-2");
}

TEST_CASE(
    "times the pod does not state come from the watch, bound when first seen on a node "
    "and ended when deleted",
    "[record]") {
  TraceRecorder recorder;
  nlohmann::json pod = Pod("quiet", "2026-12-01T05:00:00Z", "", "");
  recorder.Saw(pod, Utc("2026-12-01T05:00:00Z"));
  pod["spec"]["nodeName"] = "node-2";
  recorder.Saw(pod, Utc("2026-12-01T05:03:00Z"));
  recorder.Saw(pod, Utc("2026-12-01T05:30:00Z"));
  recorder.Gone(pod, Utc("2026-12-01T06:03:00Z"));
  const Trace trace =
      ReadBack(recorder.Write(Window("2026-12-01T00:00:00Z", "2026-12-01T12:00:00Z")));
  REQUIRE(trace.arrivals.size() == 1);
  CHECK(trace.arrivals[0].at == absl::Hours(5));
  CHECK(trace.arrivals[0].run_for == absl::Hours(1));
}

TEST_CASE(
    "a kubectl dump of watch events ends at its latest timestamp, DELETED says the pod "
    "went, and objects that are not pods are counted",
    "[record]") {
  nlohmann::json ran = Pod("a", "2026-12-01T01:00:00Z", "2026-12-01T01:01:00Z", "");
  ran["metadata"]["deletionTimestamp"] = "2026-12-01T03:01:00Z";
  const std::vector<nlohmann::json> objects = {
      {{"type", "ADDED"}, {"object", Pod("a", "2026-12-01T01:00:00Z", "", "")}},
      {{"type", "DELETED"}, {"object", ran}},
      Pod("b", "2026-12-01T02:00:00Z", "2026-12-01T02:00:10Z", "2026-12-01T05:00:10Z"),
      {{"kind", "Node"}, {"metadata", {{"name", "n"}}}},
  };
  TraceRecorder recorder;
  CHECK(RecordDump(objects, recorder) == 1);
  CHECK(recorder.Latest() == Utc("2026-12-01T05:00:10Z"));
  RecordWindow window;
  window.end = recorder.Latest();
  const RecordedTrace recorded = recorder.Write(window);
  CHECK(recorded.start == Utc("2026-12-01T01:00:00Z"));
  const Trace trace = ReadBack(recorded);
  REQUIRE(trace.arrivals.size() == 2);
  CHECK(trace.arrivals[0].run_for == absl::Hours(2));
  CHECK(trace.arrivals[1].run_for == absl::Hours(3));
}

TEST_CASE("the recorder keeps a slim pod that the scheduler reads the same as the whole one",
          "[record]") {
  nlohmann::json pod = Pod("big", "2026-12-01T01:00:00Z", "2026-12-01T01:00:05Z", "");
  pod["metadata"]["managedFields"] = {
      {{"manager", "kubelet"}, {"time", "2026-12-01T07:00:00Z"}, {"fieldsV1", {{"f:status", {}}}}}};
  nlohmann::json& c = pod["spec"]["containers"][0];
  c["env"] = {{{"name", "TOKEN"}, {"value", "secret"}}};
  c["command"] = {"python", "train.py"};
  c["ports"] = {{{"containerPort", 80}, {"hostPort", 8080}}};
  pod["spec"]["volumes"] = {{{"name", "data"}, {"emptyDir", nlohmann::json::object()}}};
  const nlohmann::json slim = SlimPod(pod);
  CHECK_FALSE(slim["metadata"].contains("managedFields"));
  CHECK_FALSE(slim["spec"].contains("volumes"));
  CHECK(slim["spec"]["containers"][0] ==
        nlohmann::json{{"name", "trainer"}, {"resources", c["resources"]}, {"ports", c["ports"]}});
  const PodSpec whole = DecodePod(pod);
  const PodSpec kept = DecodePod(slim);
  CHECK(kept.requests == whole.requests);
  CHECK(kept.host_ports.size() == whole.host_ports.size());
  CHECK(kept.tolerations.size() == whole.tolerations.size());
  CHECK(kept.cuda_version == whole.cuda_version);
  // managedFields are gone from what is kept, but their time still says where a dump ends.
  TraceRecorder recorder;
  recorder.Saw(pod, absl::InfinitePast());
  CHECK(recorder.Latest() == Utc("2026-12-01T07:00:00Z"));
}

// A pod of `ns` claiming one GPU through template `tmpl`, run 10:00 to 11:00.
nlohmann::json ClaimingPod(const std::string& name, const std::string& ns,
                           const std::string& tmpl) {
  nlohmann::json pod =
      Pod(name, "2026-12-01T10:00:00Z", "2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z", 0);
  pod["metadata"]["namespace"] = ns;
  pod["spec"]["resourceClaims"] = {{{"name", "gpu"}, {"resourceClaimTemplateName", tmpl}}};
  pod["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", "8"}}},
                                               {"claims", {{{"name", "gpu"}}}}};
  return pod;
}

nlohmann::json Template(const std::string& name, const std::string& ns, int count) {
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceClaimTemplate"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"resourceVersion", "7"}}},
          {"spec",
           {{"spec",
             {{"devices",
               {{"requests",
                 {{{"name", "gpu"},
                   {"exactly", {{"deviceClassName", "gpu.nvidia.com"}, {"count", count}}}}}}}}}}}}};
}

TEST_CASE(
    "a recorded pod keeps its claims, and the trace carries the DeviceClasses and the claim "
    "templates they name, one name per namespace's template when names are left out",
    "[record]") {
  TraceRecorder recorder;
  recorder.Saw(ClaimingPod("a", "vision", "one-gpu"), Utc("2026-12-01T11:05:00Z"));
  recorder.Saw(ClaimingPod("b", "speech", "one-gpu"), Utc("2026-12-01T11:05:00Z"));
  recorder.Saw(ClaimingPod("c", "speech", "unlisted"), Utc("2026-12-01T11:05:00Z"));
  recorder.SetDraObjects({
      {{"apiVersion", "resource.k8s.io/v1"},
       {"kind", "DeviceClass"},
       {"metadata", {{"name", "gpu.nvidia.com"}, {"uid", "x"}}},
       {"spec",
        {{"selectors", {{{"cel", {{"expression", "device.driver == 'gpu.nvidia.com'"}}}}}}}}},
      Template("one-gpu", "vision", 1),
      Template("one-gpu", "speech", 2),  // the same name, asking for more
      Template("unused", "speech", 1),
  });
  const RecordedTrace recorded =
      recorder.Write(Window("2026-12-01T09:30:00Z", "2026-12-01T20:00:00Z"));
  CHECK(recorded.summary.claims_unseen == 1);  // c names a template the record did not see
  REQUIRE(recorded.summary.problems.size() == 1);
  CHECK_THAT(recorded.summary.problems[0],
             Catch::Contains("Pod speech/c: claim gpu: ResourceClaimTemplate speech/unlisted "
                             "was not seen"));
  CHECK(recorded.summary.dra_objects == 3);  // the class and the two templates used
  CHECK_THAT(recorded.text, !Catch::Contains("unused"));
  CHECK_THAT(recorded.text, !Catch::Contains("resourceVersion"));

  const Trace trace = ReadBack(recorded);
  REQUIRE(trace.arrivals.size() == 2);
  REQUIRE(trace.dra != nullptr);
  CHECK(trace.dra->catalog.templates.size() == 2);
  // Each pod still asks for what its own namespace's template asked.
  std::set<int64_t> counts;
  for (const TraceArrival& a : trace.arrivals) {
    REQUIRE(a.shape->spec.claim_refs.size() == 1);
    const std::string key =
        absl::StrCat(a.shape->spec.namespace_name, "/", a.shape->spec.claim_refs[0].template_name);
    counts.insert(trace.dra->catalog.templates.at(key)->spec->requests[0].alternatives[0].count);
  }
  CHECK(counts == std::set<int64_t>{1, 2});
}

TEST_CASE("a kubectl dump's DeviceClasses and claim templates go into the trace", "[record]") {
  TraceRecorder recorder;
  std::vector<nlohmann::json> objects = {ClaimingPod("a", "vision", "one-gpu"),
                                         Template("one-gpu", "vision", 1),
                                         {{"kind", "DeviceClass"},
                                          {"metadata", {{"name", "gpu.nvidia.com"}}},
                                          {"spec", {{"selectors", nlohmann::json::array()}}}}};
  CHECK(RecordDump(objects, recorder) == 0);
  RecordWindow window = Window("2026-12-01T09:30:00Z", "2026-12-01T20:00:00Z");
  window.keep_names = true;
  const RecordedTrace recorded = recorder.Write(window);
  const Trace trace = ReadBack(recorded);
  REQUIRE(trace.dra != nullptr);
  CHECK(trace.dra->catalog.templates.contains("vision/one-gpu"));
  REQUIRE(trace.arrivals.size() == 1);
  CHECK(trace.arrivals[0].shape->spec.namespace_name == "vision");
}

}  // namespace
}  // namespace gpua::sim
