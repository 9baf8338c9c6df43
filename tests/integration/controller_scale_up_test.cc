// The controller's scale-up against the fake API server and a gRPC plugin over the
// simulated cloud, one behaviour a scenario, on a manual clock.
#include <catch2/catch.hpp>
#include <set>

#include "absl/strings/str_cat.h"
#include "tests/integration/controller_harness.h"

namespace gpua::testing {
namespace {

// Nodes come 30 s after they are asked for; their GPUs are advertised 20 s after that.
constexpr char kGroups[] = R"(
nodeGroups:
- id: h100
  maxSize: 4
  pricePerHour: 98.32
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
    spec:
      taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
  options: {maxNodeProvisionTime: 5m}
  simulation:
    provisioningDelay: {p50: 30s, p95: 30s}
    gpuReadyDelay: {p50: 20s, p95: 20s}
- id: a100-mig
  maxSize: 4
  pricePerHour: 32.77
  template:
    metadata:
      labels:
        nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
        nvidia.com/gpu.count: "8"
        nvidia.com/mig.strategy: mixed
      annotations:
        gpu-autoscaler.io/mig-layouts: all-1g.5gb,all-3g.20gb
    status:
      allocatable: {cpu: "95", memory: 1100Gi, pods: "110"}
  simulation:
    provisioningDelay: {p50: 30s, p95: 30s}
    gpuReadyDelay: {p50: 20s, p95: 20s}
- id: l4-shared
  maxSize: 4
  pricePerHour: 1.32
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-L4}
      annotations:
        gpu-autoscaler.io/gpu-count: "4"
        gpu-autoscaler.io/gpu-sharing: time-slicing
        gpu-autoscaler.io/gpu-replicas: "4"
        gpu-autoscaler.io/gpu-renamed: "true"
    status:
      allocatable: {cpu: "47", memory: 180Gi, pods: "110"}
  simulation:
    provisioningDelay: {p50: 30s, p95: 30s}
    gpuReadyDelay: {p50: 20s, p95: 20s}
)";

// The pod is asked for once; while its node comes up and its GPUs are not advertised yet,
// nothing more is asked for, and once they are the scheduler has a place for it.
void NoSecondNodeWhileGpusStart(ControllerHarness& h, const std::string& group,
                                const std::string& pod) {
  LoopReport first = h.Step();
  REQUIRE(first.skipped.empty());
  REQUIRE(first.scale_ups.size() == 1);
  CHECK(first.scale_ups[0].request.group == group);
  CHECK(first.scale_ups[0].status.ok());
  CHECK(h.TargetSize(group) == 1);
  // Registered at 30 s; GPUs at 50 s. Every loop in between asks for nothing.
  for (absl::Duration step : {absl::Seconds(10), absl::Seconds(21), absl::Seconds(5),
                              absl::Seconds(5), absl::Seconds(5)}) {
    LoopReport r = h.Step(step);
    INFO("at " << absl::FormatDuration(h.clock.Now() - first.start));
    CHECK(r.scale_ups.empty());
    CHECK(r.fit_existing == 1);
    CHECK(h.TargetSize(group) == 1);
  }
  LoopReport ready = h.Step(absl::Seconds(10));
  CHECK(ready.scale_ups.empty());
  CHECK(ready.fit_existing == 1);
  const GroupState* g = ready.state.FindGroup(group);
  REQUIRE(g != nullptr);
  CHECK(g->counts.ready == 1);
  CHECK(g->counts.not_started == 0);
  const std::vector<std::string> events = h.EventsFor(pod);
  REQUIRE(events.size() == 1);
  CHECK(events[0] ==
        absl::StrCat("TriggeredScaleUp: pod triggered scale-up: [{", group, " 0->1 (max: 4)}]"));
}

TEST_CASE("a pending 8-GPU pod scales its pool from zero, once, while the GPUs start",
          "[controller][scale-up]") {
  ControllerHarness h(kGroups);
  h.AddPendingPod("train-0", {{"nvidia.com/gpu", "8"}});
  NoSecondNodeWhileGpusStart(h, "h100", "train-0");
}

TEST_CASE("a MIG pod scales a reconfigurable pool once, and the new node gets its layout",
          "[controller][scale-up][mig]") {
  ControllerHarness h(kGroups);
  h.AddPendingPod("infer-0", {{"nvidia.com/mig-3g.20gb", "1"}});
  NoSecondNodeWhileGpusStart(h, "a100-mig", "infer-0");
  auto node = h.server.Get("nodes", "", "a100-mig-0");
  REQUIRE(node.has_value());
  CHECK((*node)["metadata"]["labels"]["nvidia.com/mig.config"] == "all-3g.20gb");
}

// Two MIG pods of different sizes; the controller restarts before their nodes register.
void MigLayoutsSurviveRestart(ControllerOptions options) {
  ControllerHarness h(kGroups, std::move(options));
  h.AddPendingPod("small-0", {{"nvidia.com/mig-1g.5gb", "1"}});
  h.AddPendingPod("large-0", {{"nvidia.com/mig-3g.20gb", "1"}});
  LoopReport first = h.Step();
  REQUIRE(first.scale_ups.size() == 1);
  CHECK(first.scale_ups[0].request.group == "a100-mig");
  REQUIRE(first.scale_ups[0].request.delta == 2);  // one layout a node, two layouts
  // The intent is in the cluster before the nodes are: the status ConfigMap's annotation,
  // written ahead of the increase.
  const nlohmann::json status = h.StatusConfigMap();
  const std::string book =
      status["metadata"]["annotations"].value("gpu-autoscaler.io/mig-layouts-on-their-way", "");
  CHECK_THAT(book, Catch::Contains("all-1g.5gb") && Catch::Contains("all-3g.20gb"));

  h.RestartController();  // before either node registers (at 30 s)
  for (int i = 0; i < 8; ++i) {
    LoopReport r = h.Step(absl::Seconds(10));
    CHECK(r.scale_ups.empty());
  }
  CHECK(h.TargetSize("a100-mig") == 2);
  std::multiset<std::string> layouts;
  for (const std::string node : {"a100-mig-0", "a100-mig-1"}) {
    auto n = h.server.Get("nodes", "", node);
    REQUIRE(n.has_value());
    layouts.insert((*n)["metadata"]["labels"].value("nvidia.com/mig.config", "none"));
  }
  CHECK(layouts == std::multiset<std::string>{"all-1g.5gb", "all-3g.20gb"});
  // Both nodes given theirs, the book is empty again.
  const nlohmann::json after = h.StatusConfigMap();
  CHECK(after["metadata"]["annotations"].value("gpu-autoscaler.io/mig-layouts-on-their-way", "") ==
        "{}");
}

TEST_CASE("MIG layouts of nodes asked for survive a restart: no node comes up without its layout",
          "[controller][scale-up][mig][restart]") {
  MigLayoutsSurviveRestart({});
}

TEST_CASE("MIG layouts survive a restart with --write-status-configmap=false too",
          "[controller][scale-up][mig][restart]") {
  ControllerOptions options;
  options.status.write_configmap = false;
  MigLayoutsSurviveRestart(options);
}

TEST_CASE("time-sliced share pods scale their pool once, not a node per share",
          "[controller][scale-up][sharing]") {
  ControllerHarness h(kGroups);
  for (int i = 0; i < 12; ++i) {
    h.AddPendingPod(absl::StrCat("notebook-", i), {{"nvidia.com/gpu.shared", "1"}});
  }
  LoopReport first = h.Step();
  REQUIRE(first.scale_ups.size() == 1);
  CHECK(first.scale_ups[0].request.group == "l4-shared");
  CHECK(first.scale_ups[0].request.delta == 1);  // 16 shares a node
  for (int i = 0; i < 6; ++i) {
    LoopReport r = h.Step(absl::Seconds(10));
    CHECK(r.scale_ups.empty());
    CHECK(r.fit_existing == 12);
  }
  CHECK(h.TargetSize("l4-shared") == 1);
}

std::string NominatedNode(ControllerHarness& h, const std::string& pod) {
  auto p = h.server.Get("pods", "ml", pod);
  if (!p.has_value()) return "<gone>";
  return (*p)["status"].value("nominatedNodeName", "");
}

TEST_CASE(
    "a pod's node, once registered, is its nominatedNodeName, and a controller restarted while "
    "the GPUs start asks for nothing twice",
    "[controller][scale-up][nominations]") {
  ControllerHarness h(kGroups);
  h.AddPendingPod("train-0", {{"nvidia.com/gpu", "8"}});
  REQUIRE(h.Step().scale_ups.size() == 1);
  CHECK(NominatedNode(h, "train-0").empty());  // nothing to name before the node registers
  h.Step(absl::Seconds(31));                   // registered, GPUs not advertised yet
  h.Step(absl::Seconds(1));                    // the write the last loop made is seen
  CHECK(NominatedNode(h, "train-0") == "h100-0");
  h.RestartController();
  for (int i = 0; i < 4; ++i) {
    LoopReport r = h.Step(absl::Seconds(5));
    CHECK(r.scale_ups.empty());
    CHECK(r.fit_existing == 1);
  }
  CHECK(h.TargetSize("h100") == 1);
  CHECK(NominatedNode(h, "train-0") == "h100-0");
  CHECK(h.EventsFor("train-0").size() == 1);  // TriggeredScaleUp, once
  CHECK_THAT(h.metrics.registry().Render(),
             !Catch::Contains("gpu_autoscaler_repeat_scale_ups_total{node_group=\"h100\"}"));
}

nlohmann::json H100NodeTemplate() {
  return {{"metadata", {{"name", "h100-node"}, {"namespace", "ml"}}},
          {"template",
           {{"spec",
             {{"nodeSelector", {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}}},
              {"tolerations", {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}}},
              {"containers",
               {{{"name", "slot"}, {"resources", {{"requests", {{"nvidia.com/gpu", "8"}}}}}}}}}}}}};
}

nlohmann::json Buffer(const std::string& name, const std::string& pod_template, int replicas) {
  return {{"apiVersion", "autoscaling.x-k8s.io/v1beta1"},
          {"kind", "CapacityBuffer"},
          {"metadata", {{"name", name}, {"namespace", "ml"}, {"uid", "cb-" + name}}},
          {"spec", {{"podTemplateRef", {{"name", pod_template}}}, {"replicas", replicas}}}};
}

TEST_CASE(
    "a CapacityBuffer brings an H100 node up from zero with no pod waiting, keeps it idle past "
    "the idle timeout, and lets it go with the buffer",
    "[controller][scale-up][warm]") {
  ControllerOptions options;
  options.scale_up.capacity_buffers = true;
  ControllerHarness h(kGroups, options);
  h.server.Upsert("podtemplates", H100NodeTemplate());
  h.server.Upsert("capacitybuffers", Buffer("training-warm", "h100-node", 1));
  h.server.Upsert("capacitybuffers", Buffer("typo", "no-such-template", 1));
  LoopReport first = h.Step();
  REQUIRE(first.scale_ups.size() == 1);
  CHECK(first.scale_ups[0].request.group == "h100");
  CHECK(first.buffer_pods == 1);
  CHECK(h.TargetSize("h100") == 1);
  CHECK(first.scale_down_cooldown.empty());  // warm room on its way keeps no removal waiting
  // Registered at 30 s, GPUs at 50 s; then idle for far longer than the 10m idle timeout.
  h.Step(absl::Seconds(31));
  for (int minute = 0; minute < 20; ++minute) {
    LoopReport r = h.Step(absl::Minutes(1));
    CHECK(r.scale_ups.empty());
    CHECK(r.removals.deleted.empty());
  }
  CHECK(h.TargetSize("h100") == 1);
  CHECK(h.Step(absl::Seconds(10)).unremovable["WarmCapacity"] == 1);
  CHECK(h.EventsFor("h100-node").empty());  // a template, not a pod: nothing is told it
  std::vector<std::string> typo = h.EventsFor("typo");
  REQUIRE(typo.size() == 1);
  CHECK_THAT(typo[0], Catch::Contains("FailedToProvisionBuffer") &&
                          Catch::Contains("PodTemplate ml/no-such-template not found"));

  h.server.Delete("capacitybuffers", "ml", "training-warm");
  for (int minute = 0; minute < 15 && h.TargetSize("h100") > 0; ++minute) {
    h.Step(absl::Minutes(1));
  }
  CHECK(h.TargetSize("h100") == 0);
}

}  // namespace
}  // namespace gpua::testing
