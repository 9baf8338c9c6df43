// GPU health against the fake API server and a gRPC plugin over the simulated cloud: a node an
// agent says is broken is tainted, drained and replaced within its toleration and a loop; many
// broken at once are repaired a few at a time; a node that loses GPUs counts as broken; a
// restart repeats nothing; and nothing broken in one place keeps other groups from scaling.
#include <catch2/catch.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kubeobjects/documents.h"
#include "kubeobjects/node_marks.h"
#include "tests/integration/controller_harness.h"

namespace gpua::testing {
namespace {

// `h100` nodes running, each with an 8-GPU training pod; an idle timeout long enough that
// scale-down keeps out of the way.
std::string H100Groups(int nodes, int max = 8) {
  return absl::StrCat(R"(
nodeGroups:
- id: h100
  minSize: 0
  maxSize: )",
                      max, R"(
  targetSize: )",
                      nodes, R"(
  pricePerHour: 98.32
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
  options: {scaleDownUnneededTime: 2h}
)");
}

void Busy(ControllerHarness& h, int nodes) {
  for (int i = 0; i < nodes; ++i) {
    h.AddRunningPod(absl::StrCat("train-", i), absl::StrCat("h100-", i), {{"nvidia.com/gpu", "8"}},
                    "ReplicaSet", "train");
  }
}

bool Has(const std::vector<std::string>& taints, absl::string_view prefix) {
  return std::any_of(taints.begin(), taints.end(),
                     [&](const std::string& t) { return absl::StartsWith(t, prefix); });
}

int UnderRepair(ControllerHarness& h, int nodes) {
  int n = 0;
  for (int i = 0; i < nodes; ++i) {
    n += h.Annotations(absl::StrCat("h100-", i)).count(kRepairAnnotation);
  }
  return n;
}

TEST_CASE(
    "a node with AcceleratedHardwareReady=False is tainted, drained and replaced within "
    "its toleration and a loop",
    "[controller][repair]") {
  ControllerHarness h(H100Groups(2));
  Busy(h, 2);
  h.Step();
  h.SetCondition("h100-1", "AcceleratedHardwareReady", "False", "NvidiaXID79Error");
  for (int minute = 1; minute < 10; ++minute) {
    h.Step(absl::Minutes(1));
    REQUIRE_FALSE(Has(h.Taints("h100-1"), kUnhealthyTaint));
  }
  LoopReport due = h.Step(absl::Minutes(1));  // 10m: its toleration has run out
  CHECK(due.repairs.cordoned == 1);
  CHECK(due.repairs.started == std::vector<std::string>{"h100-1"});
  CHECK(due.repairs.replacements == std::vector<std::string>{"h100"});
  CHECK(Has(h.Taints("h100-1"), "gpu-autoscaler.io/unhealthy=AcceleratedHardwareReady-False"));
  CHECK(Has(h.Taints("h100-1"), "ToBeDeletedByClusterAutoscaler="));
  CHECK_THAT(h.Annotations("h100-1")[kRepairAnnotation],
             Catch::Contains("AcceleratedHardwareReady=False for 10m (NvidiaXID79Error)"));
  CHECK(h.TargetSize("h100") == 3);
  // Its pod was evicted in the same loop; once it has gone the node goes.
  bool gone = false;
  for (int i = 0; i < 5 && !gone; ++i) {
    h.Step(absl::Minutes(1));
    gone = !h.NodeExists("h100-1");
  }
  CHECK(gone);
  CHECK(h.TargetSize("h100") == 2);
  CHECK(h.NodeExists("h100-2"));  // the replacement
  CHECK_FALSE(Has(h.Taints("h100-2"), kUnhealthyTaint));
  CHECK(h.EventsFor("h100-1").size() >= 2);
  const std::string metrics = h.registry.Render();
  CHECK_THAT(metrics,
             Catch::Contains("gpu_autoscaler_node_repairs_total{reason=\"AcceleratedHardwareReady="
                             "False\"} 1"));
}

TEST_CASE("three of five nodes broken at once are all tainted and repaired one at a time",
          "[controller][repair]") {
  ControllerHarness h(H100Groups(5));
  Busy(h, 5);
  h.Step();
  for (const char* node : {"h100-0", "h100-2", "h100-3"}) {
    h.SetCondition(node, "GpuXidWatch", "True", "XID 48");
  }
  LoopReport due;
  for (int minute = 0; minute < 10; ++minute) due = h.Step(absl::Minutes(1));
  CHECK(due.repairs.cordoned == 3);
  CHECK(due.repair_plan.waiting.size() == 2);
  const nlohmann::json cm = h.StatusConfigMap();
  CHECK_THAT(cm["data"]["status"].get<std::string>(),
             Catch::Contains("unhealthyNodes") && Catch::Contains("GpuXidWatch=True"));
  int most = UnderRepair(h, 5);
  for (int minute = 0;
       minute < 40 && h.NodeExists("h100-0") + h.NodeExists("h100-2") + h.NodeExists("h100-3") > 0;
       ++minute) {
    h.Step(absl::Minutes(1));
    most = std::max(most, UnderRepair(h, 5));
  }
  CHECK(most == 1);
  CHECK_FALSE(h.NodeExists("h100-0"));
  CHECK_FALSE(h.NodeExists("h100-2"));
  CHECK_FALSE(h.NodeExists("h100-3"));
  CHECK(h.TargetSize("h100") == 5);
}

TEST_CASE("a node whose device plugin drops 2 of its 8 GPUs is repaired after the toleration",
          "[controller][repair]") {
  ControllerHarness h(H100Groups(2));
  Busy(h, 2);
  h.Step();
  h.kubelet->LoseGpus("h100-0", 2);
  for (int minute = 0; minute < 9; ++minute) {
    const LoopReport r = h.Step(absl::Minutes(1));
    REQUIRE(r.repairs.started.empty());
  }
  LoopReport due;
  for (int minute = 0; minute < 2 && due.repairs.started.empty(); ++minute) {
    due = h.Step(absl::Minutes(1));
  }
  CHECK(due.repairs.started == std::vector<std::string>{"h100-0"});
  CHECK(due.repairs.by_reason["GPUsMissing"] == 1);
  CHECK(Has(h.Taints("h100-0"), "gpu-autoscaler.io/unhealthy=GPUsMissing"));
}

TEST_CASE("a restart between the taint and the deletion asks no second replacement",
          "[controller][repair]") {
  ControllerHarness h(H100Groups(2));
  Busy(h, 2);
  h.AddPdb("train", "train", 0);  // the drain waits on the budget
  h.Step();
  h.SetCondition("h100-0", "SysLogsGPUFallenOff", "True", "XID 79");
  for (int minute = 0; minute < 10; ++minute) h.Step(absl::Minutes(1));
  REQUIRE(h.Annotations("h100-0").count(kRepairAnnotation) == 1);
  REQUIRE(h.TargetSize("h100") == 3);
  h.RestartController();
  for (int minute = 0; minute < 5; ++minute) {
    const LoopReport r = h.Step(absl::Minutes(1));
    CHECK(r.repairs.started.empty());
    CHECK(h.TargetSize("h100") == 3);
  }
  CHECK(h.NodeExists("h100-0"));  // its pod's budget holds it, for now
  // The drain is bounded: past --repair-drain-time the node goes with its pod.
  for (int minute = 0; minute < 8 && h.NodeExists("h100-0"); ++minute) h.Step(absl::Minutes(1));
  CHECK_FALSE(h.NodeExists("h100-0"));
  CHECK(h.TargetSize("h100") == 2);
}

// Cluster-autoscaler's #10301: one GPU-labelled node without GPU capacity stops every scale-up.
// Here it, a node of no group, a group whose template cannot be read and a group whose API fails
// are each reported and skipped while another group scales up and down.
constexpr char kMixed[] = R"(
nodeGroups:
- id: l4
  minSize: 0
  maxSize: 4
  targetSize: 1
  pricePerHour: 0.98
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "1"}
    status:
      allocatable: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "1"}
  options: {scaleDownUnneededTime: 5m}
- id: h100
  minSize: 0
  maxSize: 4
  targetSize: 1
  pricePerHour: 98.32
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
  options: {scaleDownUnneededTime: 2h}
- id: a100-broken-template
  minSize: 0
  maxSize: 4
  targetSize: 0
  template:
    metadata:
      annotations: {gpu-autoscaler.io/gpu-sharing: sometimes}
      labels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB, nvidia.com/gpu.count: "8"}
    status:
      allocatable: {cpu: "96", memory: 1000Gi, pods: "110", nvidia.com/gpu: "8"}
- id: v100-api-down
  minSize: 0
  maxSize: 4
  targetSize: 0
  template:
    metadata:
      labels: {nvidia.com/gpu.product: Tesla-V100-SXM2-16GB, nvidia.com/gpu.count: "8"}
    status:
      allocatable: {cpu: "64", memory: 500Gi, pods: "110", nvidia.com/gpu: "8"}
)";

TEST_CASE(
    "a GPU node without GPUs, a node of no group, an unreadable template and a failing "
    "group block no other group",
    "[controller][repair][faults]") {
  ControllerHarness h(kMixed);
  h.Step();
  // A GPU-labelled node no group owns, whose device plugin never came up (#10301's shape).
  h.server.Upsert("nodes", nlohmann::json::parse(R"json({
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "byo-gpu",
                 "labels": {"nvidia.com/gpu.product": "NVIDIA-A10G", "nvidia.com/gpu.count": "4"}},
    "spec": {"providerID": "aws:///us-east-1a/i-0123"},
    "status": {"allocatable": {"cpu": "48", "memory": "192Gi", "pods": "110"},
               "conditions": [{"type": "Ready", "status": "True"}]}})json"));
  // An autoscaled H100 node whose GPUs have all gone.
  h.kubelet->LoseGpus("h100-0", 8);
  h.cloud.FailGroupCalls("v100-api-down", absl::UnavailableError("the group's API is down"));
  // The l4 node is idle: it goes after its 5m. Two pending L4 pods: a scale-up.
  h.AddPendingPod("infer-0", {{"nvidia.com/gpu", "1"}});
  h.AddPendingPod("infer-1", {{"nvidia.com/gpu", "1"}});
  const LoopReport up = h.Step(absl::Seconds(10));
  REQUIRE(up.skipped.empty());
  CHECK(up.state.healthy);
  INFO("eligible " << up.eligible << " fit " << up.fit_existing << " without "
                   << up.without_scale_up << "\n"
                   << absl::StrJoin(h.log.lines(), "\n"));
  REQUIRE(up.scale_ups.size() == 1);
  CHECK(up.scale_ups[0].request.group == "l4");
  CHECK(up.scale_ups[0].status.ok());
  CHECK_FALSE(up.state.FindGroup("a100-broken-template")->provider->template_error.ok());
  CHECK_FALSE(up.state.FindGroup("v100-api-down")->provider->call_error.ok());
  // The pending pods land on the new nodes (and the idle one): then the l4 pool shrinks back
  // when they finish, although the rest stays broken.
  for (int i = 0; i < 3; ++i) h.Step(absl::Minutes(1));
  for (const nlohmann::json& pod : h.server.List("pods")) {
    h.server.Delete("pods", pod["metadata"]["namespace"], pod["metadata"]["name"]);
  }
  int l4 = h.TargetSize("l4");
  CHECK(l4 >= 2);
  for (int minute = 0; minute < 12 && l4 > 0; ++minute) {
    h.Step(absl::Minutes(1));
    l4 = h.TargetSize("l4");
  }
  CHECK(l4 == 0);
  CHECK(h.NodeExists("byo-gpu"));  // not ours: never touched
}

}  // namespace
}  // namespace gpua::testing
