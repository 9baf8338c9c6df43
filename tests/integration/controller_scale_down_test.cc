// The controller's scale-down and spot handling against the fake API server and a gRPC plugin
// over the simulated cloud, on a manual clock: idle GPU nodes leave after their pool's idle
// timeout, down to zero; what must keep a node keeps it; a preempted node is drained and
// replaced before it is gone; a restart finishes or undoes what was begun.
#include <catch2/catch.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/integration/controller_harness.h"

namespace gpua::testing {
namespace {

// One H100 node and two cpu nodes running from the start. The H100 pool's idle timeout is
// 5 minutes; the cluster-autoscaler default delay after a scale-up does not apply (no
// scale-up here).
constexpr char kGroups[] = R"(
nodeGroups:
- id: h100
  minSize: 0
  maxSize: 4
  targetSize: 1
  pricePerHour: 98.32
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
    spec:
      taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
  options: {scaleDownUnneededTime: 5m}
- id: cpu
  minSize: 0
  maxSize: 4
  targetSize: 2
  pricePerHour: 2.1
  template:
    status:
      allocatable: {cpu: "64", memory: 256Gi, pods: "110"}
  options: {scaleDownUnneededTime: 5m}
)";

// Steps until `done`, a minute at a time, at most `minutes`; the loop reports in `last`.
bool StepUntil(ControllerHarness& h, int minutes, const std::function<bool()>& done) {
  for (int i = 0; i < minutes && !done(); ++i) h.Step(absl::Minutes(1));
  return done();
}

bool Has(const std::vector<std::string>& taints, absl::string_view prefix) {
  return std::any_of(taints.begin(), taints.end(),
                     [&](const std::string& t) { return absl::StartsWith(t, prefix); });
}

TEST_CASE(
    "an idle 8-GPU node is removed after its pool's 5m idle timeout, and the pool reaches zero",
    "[controller][scale-down]") {
  ControllerHarness h(kGroups);
  // The cpu nodes are busy: they stay.
  for (const char* node : {"cpu-0", "cpu-1"}) {
    h.AddRunningPod(absl::StrCat("api-", node), node, {{"cpu", "40"}}, "ReplicaSet", "api");
  }
  LoopReport first = h.Step();
  REQUIRE(first.scale_down_cooldown.empty());
  CHECK(first.unneeded == 1);
  CHECK(first.scale_down.candidates_by_group["h100"] == 1);
  // Its idle GPUs are there because of the idle timeout, and say so.
  CHECK(first.idle_gpus.at("h100").of(IdleCause::kIdleTimeout) == Approx(8));
  CHECK_THAT(
      h.metrics.registry().Render(),
      Catch::Contains(
          "gpu_autoscaler_idle_gpus_by_cause{node_group=\"h100\",cause=\"idle_timeout\"} 8"));
  h.Step();  // the taint the last loop wrote is seen
  CHECK(Has(h.Taints("h100-0"), "DeletionCandidateOfClusterAutoscaler="));
  for (int i = 0; i < 3; ++i) CHECK(h.Step(absl::Minutes(1)).removals.deleted.empty());
  CHECK(h.TargetSize("h100") == 1);
  LoopReport removed = h.Step(absl::Minutes(2));  // 5 minutes unneeded
  REQUIRE(removed.removals.deleted.size() == 1);
  CHECK(removed.removals.deleted[0].node == "h100-0");
  CHECK(removed.removals.deleted[0].reason == "empty");
  CHECK(h.TargetSize("h100") == 0);
  REQUIRE(StepUntil(h, 3, [&] { return !h.NodeExists("h100-0"); }));
  CHECK(h.NodeExists("cpu-0"));
  CHECK(h.NodeExists("cpu-1"));
  CHECK_THAT(h.metrics.registry().Render(),
             Catch::Contains("cluster_autoscaler_scaled_down_nodes_total{reason=\"empty\"} 1"));
  CHECK_THAT(h.metrics.registry().Render(),
             Catch::Contains("gpu_autoscaler_idle_gpu_seconds_total{node_group=\"h100\"}"));
  const std::vector<std::string> events = h.EventsFor("h100-0");
  CHECK(std::count_if(events.begin(), events.end(), [](const std::string& e) {
          return absl::StartsWith(e, "ScaleDown: node removed");
        }) == 1);
}

TEST_CASE(
    "a GPU node with only small cpu pods left goes and its pods move, while a busy cpu node stays",
    "[controller][scale-down]") {
  ControllerHarness h(kGroups);
  // 40 of 64 cores on each cpu node (62%: above the 50% threshold); 40 of 190 on the GPU node
  // (21%), whose GPUs are all free.
  h.AddRunningPod("api-0", "cpu-0", {{"cpu", "40"}}, "ReplicaSet", "api");
  h.AddRunningPod("api-1", "cpu-1", {{"cpu", "40"}}, "ReplicaSet", "api");
  h.AddRunningPod("tail-0", "h100-0", {{"cpu", "20"}}, "ReplicaSet", "tail",
                  nlohmann::json::object(), {{"terminationGracePeriodSeconds", 30}});
  h.AddRunningPod("tail-1", "h100-0", {{"cpu", "20"}}, "ReplicaSet", "tail",
                  nlohmann::json::object(), {{"terminationGracePeriodSeconds", 30}});
  h.Step();
  bool evicted = false;
  REQUIRE(StepUntil(h, 8, [&] {
    evicted = evicted || !h.server.Get("pods", "ml", "tail-0").has_value() ||
              h.server.Get("pods", "ml", "tail-0")->at("metadata").contains("deletionTimestamp");
    return h.TargetSize("h100") == 0;
  }));
  CHECK(evicted);
  CHECK(h.TargetSize("cpu") == 2);
  const std::vector<std::string> events = h.EventsFor("tail-0");
  CHECK(std::any_of(events.begin(), events.end(), [](const std::string& e) {
    return absl::StartsWith(e, "ScaleDown: deleting pod for node scale down");
  }));
}

TEST_CASE("a DaemonSet GPU agent does not keep a pool from zero", "[controller][scale-down]") {
  ControllerHarness h(kGroups);
  h.AddRunningPod("api-0", "cpu-0", {{"cpu", "40"}}, "ReplicaSet", "api");
  h.AddRunningPod("api-1", "cpu-1", {{"cpu", "40"}}, "ReplicaSet", "api");
  h.AddRunningPod("dcgm-exporter-h100", "h100-0", {{"cpu", "100m"}}, "DaemonSet", "dcgm-exporter");
  h.AddRunningPod("nvidia-device-plugin-h100", "h100-0", {{"cpu", "50m"}}, "DaemonSet",
                  "nvidia-device-plugin");
  REQUIRE(StepUntil(h, 8, [&] { return h.TargetSize("h100") == 0; }));
}

TEST_CASE(
    "what must keep a node keeps it: a budget with no disruption, local storage, "
    "scale-down-disabled",
    "[controller][scale-down]") {
  SECTION("a PodDisruptionBudget that allows no disruption holds the node until it allows one") {
    ControllerHarness h(kGroups);
    h.AddRunningPod("api-0", "cpu-0", {{"cpu", "40"}}, "ReplicaSet", "api");
    h.AddRunningPod("api-1", "cpu-1", {{"cpu", "40"}}, "ReplicaSet", "api");
    h.AddRunningPod("db-0", "h100-0", {{"cpu", "2"}}, "StatefulSet", "db");
    h.AddPdb("db", "db", 0);
    for (int i = 0; i < 8; ++i) {
      LoopReport r = h.Step(absl::Minutes(1));
      CHECK(r.unremovable["NotEnoughPdb"] == 1);
    }
    CHECK(h.TargetSize("h100") == 1);
    h.AddPdb("db", "db", 1);
    REQUIRE(StepUntil(h, 8, [&] { return h.TargetSize("h100") == 0; }));
  }
  SECTION("a pod with local storage") {
    ControllerHarness h(kGroups);
    h.AddRunningPod("api-0", "cpu-0", {{"cpu", "40"}}, "ReplicaSet", "api");
    h.AddRunningPod("api-1", "cpu-1", {{"cpu", "40"}}, "ReplicaSet", "api");
    h.AddRunningPod("cache-0", "h100-0", {{"cpu", "2"}}, "ReplicaSet", "cache",
                    nlohmann::json::object(),
                    {{"volumes", {{{"name", "scratch"}, {"emptyDir", nlohmann::json::object()}}}}});
    for (int i = 0; i < 8; ++i)
      CHECK(h.Step(absl::Minutes(1)).unremovable["LocalStorageRequested"] == 1);
    CHECK(h.TargetSize("h100") == 1);
  }
  SECTION("a node annotated scale-down-disabled") {
    ControllerHarness h(kGroups);
    h.kubelet->Sync();
    auto node = *h.server.Get("nodes", "", "h100-0");
    node["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/scale-down-disabled"] =
        "true";
    h.server.Upsert("nodes", node);
    h.AddRunningPod("api-0", "cpu-0", {{"cpu", "40"}}, "ReplicaSet", "api");
    h.AddRunningPod("api-1", "cpu-1", {{"cpu", "40"}}, "ReplicaSet", "api");
    for (int i = 0; i < 8; ++i) {
      CHECK(h.Step(absl::Minutes(1)).unremovable["ScaleDownDisabledAnnotation"] == 1);
    }
    CHECK(h.TargetSize("h100") == 1);
  }
}

TEST_CASE("a group's min size is never crossed", "[controller][scale-down]") {
  std::string groups = kGroups;
  const std::string cpu_sizes = "  minSize: 0\n  maxSize: 4\n  targetSize: 2";
  groups.replace(groups.find(cpu_sizes), cpu_sizes.size(),
                 "  minSize: 1\n  maxSize: 4\n  targetSize: 2");
  ControllerHarness h(groups);
  REQUIRE(StepUntil(h, 10, [&] { return h.TargetSize("cpu") == 1; }));
  for (int i = 0; i < 10; ++i) h.Step(absl::Minutes(1));
  CHECK(h.TargetSize("cpu") == 1);
  CHECK(h.TargetSize("h100") == 0);
}

// The cpu pool at its minimum of one idle node; the 8-GPU node's only pod left is a small
// ReplicaSet pod that tolerates the GPU taint.
std::string AtMinimum() {
  std::string groups = kGroups;
  const std::string cpu_sizes = "  minSize: 0\n  maxSize: 4\n  targetSize: 2";
  groups.replace(groups.find(cpu_sizes), cpu_sizes.size(),
                 "  minSize: 1\n  maxSize: 4\n  targetSize: 1");
  return groups;
}

bool EverMarked(ControllerHarness& h, const std::string& node) {
  return Has(h.Taints(node), "DeletionCandidateOfClusterAutoscaler=");
}

// Plays the ReplicaSet controller and the scheduler: once the evicted pod is gone, its
// replacement runs on `node`.
void ReplaceOn(ControllerHarness& h, const std::string& pod, const std::string& node) {
  if (h.server.Get("pods", "ml", pod).has_value()) return;
  if (h.server.Get("pods", "ml", pod + "-new").has_value()) return;
  h.AddRunningPod(pod + "-new", node, {{"cpu", "100m"}}, "ReplicaSet", "tail");
}

TEST_CASE(
    "a GPU node whose last small pod fits on an idle cpu node at its group's minimum is removed "
    "after its idle time, and the cpu node is never a deletion candidate",
    "[controller][scale-down]") {
  ControllerHarness h(AtMinimum());
  h.AddRunningPod("tail-0", "h100-0", {{"cpu", "100m"}}, "ReplicaSet", "tail");
  bool cpu_marked = false;
  const auto step = [&](absl::Duration d) {
    LoopReport r = h.Step(d);
    cpu_marked = cpu_marked || EverMarked(h, "cpu-0");
    ReplaceOn(h, "tail-0", "cpu-0");
    return r;
  };
  LoopReport first = step(absl::ZeroDuration());
  CHECK(first.unneeded == 1);
  CHECK(first.unremovable["NodeGroupMinSizeReached"] == 1);
  for (int i = 0; i < 12 && h.TargetSize("h100") > 0; ++i) step(absl::Minutes(1));
  CHECK(h.TargetSize("h100") == 0);
  CHECK(h.server.Get("pods", "ml", "tail-0-new").has_value());
  for (int i = 0; i < 3; ++i) step(absl::Minutes(1));
  CHECK_FALSE(h.NodeExists("h100-0"));
  CHECK(h.TargetSize("cpu") == 1);
  CHECK_FALSE(cpu_marked);
}

TEST_CASE(
    "the same GPU node held by a budget that allows no disruption goes within a loop and its "
    "idle time of the budget's deletion",
    "[controller][scale-down]") {
  ControllerHarness h(AtMinimum());
  h.AddRunningPod("tail-0", "h100-0", {{"cpu", "100m"}}, "ReplicaSet", "tail");
  h.AddPdb("tail", "tail", 0);
  for (int i = 0; i < 8; ++i) {
    CHECK(h.Step(absl::Minutes(1)).unremovable["NotEnoughPdb"] == 1);
    CHECK_FALSE(EverMarked(h, "cpu-0"));
  }
  CHECK(h.TargetSize("h100") == 1);
  h.server.Delete("poddisruptionbudgets", "ml", "tail");
  const absl::Time deleted = h.clock.Now();
  absl::Time started = absl::InfiniteFuture();
  for (int i = 0; i < 10 && started == absl::InfiniteFuture(); ++i) {
    if (h.Step(absl::Minutes(1)).removals.started > 0) started = h.clock.Now();
  }
  // One loop to see the budget gone and mark the node, then the pool's 5m idle time.
  CHECK(started <= deleted + absl::Minutes(1) + absl::Minutes(5));
  CHECK_FALSE(EverMarked(h, "cpu-0"));
}

}  // namespace
}  // namespace gpua::testing
