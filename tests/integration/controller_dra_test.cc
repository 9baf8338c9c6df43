// The controller with GPUs as DRA devices, against the fake API server serving
// resource.k8s.io/v1 in the API's JSON shapes and a gRPC plugin over the simulated cloud
// whose templates carry ResourceSlices: pods whose GPUs are ResourceClaims scale pools from
// zero, once, while the new node's driver publishes its slices; nodes whose devices are
// allocated stay, and idle ones go.
#include <catch2/catch.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/integration/controller_harness.h"
#include "tests/support/dra_pools.h"

namespace gpua::testing {
namespace {

// The DRA pools (dra_pools.h), and nvlink: two NVLink domains of four GPUs each, in slices of
// its own.
const std::string kGroups = DraNodeGroups(R"(- id: nvlink
  maxSize: 2
  pricePerHour: 60
  template:
    metadata:
      labels: {node.kubernetes.io/instance-type: nvlink-8}
    status:
      allocatable: {cpu: "96", memory: 1Ti, pods: "110"}
  resourceSlices:
  - apiVersion: resource.k8s.io/v1
    kind: ResourceSlice
    metadata: {name: nvlink-template}
    spec:
      driver: gpu.example.com
      nodeName: template
      pool: {name: template, generation: 1, resourceSliceCount: 1}
      devices:
      - {name: g0, attributes: {nvlinkDomain: {string: a}}}
      - {name: g1, attributes: {nvlinkDomain: {string: a}}}
      - {name: g2, attributes: {nvlinkDomain: {string: a}}}
      - {name: g3, attributes: {nvlinkDomain: {string: a}}}
      - {name: g4, attributes: {nvlinkDomain: {string: b}}}
      - {name: g5, attributes: {nvlinkDomain: {string: b}}}
      - {name: g6, attributes: {nvlinkDomain: {string: b}}}
      - {name: g7, attributes: {nvlinkDomain: {string: b}}}
  simulation:
    provisioningDelay: {p50: 30s, p95: 30s}
)");

nlohmann::json DeviceClass(const std::string& name, const std::string& cel,
                           const std::string& extended_resource = "") {
  nlohmann::json c = {{"apiVersion", "resource.k8s.io/v1"},
                      {"kind", "DeviceClass"},
                      {"metadata", {{"name", name}}},
                      {"spec", {{"selectors", {{{"cel", {{"expression", cel}}}}}}}}};
  if (!extended_resource.empty()) c["spec"]["extendedResourceName"] = extended_resource;
  return c;
}

// NVIDIA's classes as its driver's chart installs them, and one for the nvlink pool.
void AddClasses(ControllerHarness& h, const std::string& gpu_extended_resource = "") {
  h.server.Upsert("deviceclasses", DeviceClass("gpu.nvidia.com",
                                               "device.driver == 'gpu.nvidia.com' && "
                                               "device.attributes['gpu.nvidia.com'].type == 'gpu'",
                                               gpu_extended_resource));
  h.server.Upsert("deviceclasses",
                  DeviceClass("mig.nvidia.com",
                              "device.driver == 'gpu.nvidia.com' && "
                              "device.attributes['gpu.nvidia.com'].type == 'mig'"));
  h.server.Upsert("deviceclasses",
                  DeviceClass("gpu.example.com", "device.driver == 'gpu.example.com'"));
}

nlohmann::json ClaimSpec(const std::string& device_class, int count, const std::string& cel = "",
                         const std::string& match_attribute = "") {
  nlohmann::json exactly = {{"deviceClassName", device_class}, {"count", count}};
  if (!cel.empty()) exactly["selectors"] = {{{"cel", {{"expression", cel}}}}};
  nlohmann::json devices = {{"requests", {{{"name", "gpus"}, {"exactly", exactly}}}}};
  if (!match_attribute.empty()) {
    devices["constraints"] = {{{"requests", {"gpus"}}, {"matchAttribute", match_attribute}}};
  }
  return {{"devices", devices}};
}

void AddClaimTemplate(ControllerHarness& h, const std::string& name, const nlohmann::json& spec) {
  h.server.Upsert("resourceclaimtemplates", {{"apiVersion", "resource.k8s.io/v1"},
                                             {"kind", "ResourceClaimTemplate"},
                                             {"metadata", {{"name", name}, {"namespace", "ml"}}},
                                             {"spec", {{"spec", spec}}}});
}

// A pending pod whose GPUs come from a claim made from `claim_template`; when `made` is
// set, the resourceclaim controller has made that claim (unallocated) and said so in the
// pod's status, as it does before the scheduler tries the pod.
void AddPendingClaimPod(ControllerHarness& h, const std::string& name,
                        const std::string& claim_template, bool made = false) {
  nlohmann::json status = {
      {"phase", "Pending"},
      {"conditions",
       {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}}}};
  if (made) {
    const std::string claim = absl::StrCat(name, "-gpu-x7k2p");
    h.server.Upsert("resourceclaims", {{"apiVersion", "resource.k8s.io/v1"},
                                       {"kind", "ResourceClaim"},
                                       {"metadata", {{"name", claim}, {"namespace", "ml"}}},
                                       {"spec", (*h.server.Get("resourceclaimtemplates", "ml",
                                                               claim_template))["spec"]["spec"]}});
    status["resourceClaimStatuses"] = {{{"name", "gpu"}, {"resourceClaimName", claim}}};
  }
  h.server.Upsert(
      "pods",
      {{"apiVersion", "v1"},
       {"kind", "Pod"},
       {"metadata",
        {{"name", name},
         {"namespace", "ml"},
         {"uid", absl::StrCat("uid-", name)},
         {"ownerReferences",
          {{{"apiVersion", "batch/v1"},
            {"kind", "Job"},
            {"name", name},
            {"uid", "job-" + name},
            {"controller", true}}}}}},
       {"spec",
        {{"containers",
          {{{"name", "main"},
            {"resources", {{"requests", {{"cpu", "4"}}}, {"claims", {{{"name", "gpu"}}}}}}}}},
         {"resourceClaims", {{{"name", "gpu"}, {"resourceClaimTemplateName", claim_template}}}},
         {"tolerations", {{{"operator", "Exists"}}}}}},
       {"status", status}});
}

TEST_CASE(
    "8 pods claiming one H100 each scale the pool from zero by one 8-GPU node, once, "
    "while its driver publishes the GPUs 30 s late",
    "[controller][dra]") {
  ControllerHarness h(kGroups);
  AddClasses(h);
  AddClaimTemplate(h, "one-h100",
                   ClaimSpec("gpu.nvidia.com", 1,
                             "device.attributes['gpu.nvidia.com'].productName == "
                             "'NVIDIA H100 80GB HBM3'"));
  for (int i = 0; i < 8; ++i) AddPendingClaimPod(h, absl::StrCat("train-", i), "one-h100", i < 4);
  LoopReport first = h.Step();
  REQUIRE(first.skipped.empty());
  REQUIRE(first.scale_ups.size() == 1);
  CHECK(first.scale_ups[0].request.group == "h100-dra");
  CHECK(first.scale_ups[0].request.delta == 1);
  CHECK(h.TargetSize("h100-dra") == 1);
  // Registered at 30 s, without devices until 60 s: nothing more is asked for meanwhile.
  for (absl::Duration step :
       {absl::Seconds(10), absl::Seconds(21), absl::Seconds(10), absl::Seconds(10)}) {
    LoopReport r = h.Step(step);
    INFO("at " << absl::FormatDuration(h.clock.Now() - first.start));
    CHECK(r.scale_ups.empty());
    CHECK(r.fit_existing == 8);
    CHECK(h.TargetSize("h100-dra") == 1);
    if (h.NodeExists("h100-dra-0")) {
      const GroupState* g = r.state.FindGroup("h100-dra");
      REQUIRE(g != nullptr);
      CHECK(g->counts.not_started == 1);
    }
  }
  LoopReport published = h.Step(absl::Seconds(10));
  CHECK(published.scale_ups.empty());
  CHECK(published.fit_existing == 8);
  const GroupState* g = published.state.FindGroup("h100-dra");
  REQUIRE(g != nullptr);
  CHECK(g->counts.ready == 1);
  CHECK(g->counts.unready == 0);
  CHECK(h.TargetSize("h100-dra") == 1);
}

TEST_CASE("14 claims for 1g.10gb MIG devices bring two one-GPU A100 nodes: seven partitions each",
          "[controller][dra][mig]") {
  ControllerHarness h(kGroups);
  AddClasses(h);
  AddClaimTemplate(
      h, "mig-1g",
      ClaimSpec("mig.nvidia.com", 1, "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"));
  for (int i = 0; i < 14; ++i) AddPendingClaimPod(h, absl::StrCat("infer-", i), "mig-1g");
  LoopReport first = h.Step();
  REQUIRE(first.scale_ups.size() == 1);
  CHECK(first.scale_ups[0].request.group == "a100-mig-dra");
  CHECK(first.scale_ups[0].request.delta == 2);
  CHECK(h.TargetSize("a100-mig-dra") == 2);
  for (int i = 0; i < 4; ++i) {
    LoopReport r = h.Step(absl::Seconds(15));
    CHECK(r.scale_ups.empty());
    CHECK(r.fit_existing == 14);
  }
  CHECK(h.TargetSize("a100-mig-dra") == 2);
}

TEST_CASE(
    "a claim for GPUs of one NVLink domain gets a node when a domain holds them, and an "
    "event naming why when none can",
    "[controller][dra]") {
  ControllerHarness h(kGroups);
  AddClasses(h);
  AddClaimTemplate(h, "nvlink-4",
                   ClaimSpec("gpu.example.com", 4, "", "gpu.example.com/nvlinkDomain"));
  AddClaimTemplate(h, "nvlink-5",
                   ClaimSpec("gpu.example.com", 5, "", "gpu.example.com/nvlinkDomain"));
  AddPendingClaimPod(h, "four", "nvlink-4");
  AddPendingClaimPod(h, "five", "nvlink-5");
  LoopReport first = h.Step();
  REQUIRE(first.scale_ups.size() == 1);
  CHECK(first.scale_ups[0].request.group == "nvlink");
  CHECK(first.scale_ups[0].request.delta == 1);
  REQUIRE(first.scale_ups[0].request.pods.size() == 1);
  CHECK(first.scale_ups[0].request.pods[0]->spec.name == "four");
  CHECK(first.without_scale_up == 1);
  const std::vector<std::string> events = h.EventsFor("five");
  REQUIRE(events.size() == 1);
  INFO(events[0]);
  CHECK(absl::StartsWith(events[0], "NotTriggerScaleUp: "));
  CHECK_THAT(events[0], Catch::Contains("nvlinkDomain"));
}

TEST_CASE(
    "a pod asking nvidia.com/gpu is served by DRA devices through the class's "
    "extendedResourceName",
    "[controller][dra]") {
  ControllerHarness h(kGroups);
  AddClasses(h, "nvidia.com/gpu");
  h.AddPendingPod("legacy", {{"nvidia.com/gpu", "8"}});
  LoopReport first = h.Step();
  REQUIRE(first.scale_ups.size() == 1);
  CHECK(first.scale_ups[0].request.group == "h100-dra");
  CHECK(first.scale_ups[0].request.delta == 1);
}

TEST_CASE(
    "a claim naming a template that does not exist, or a class whose CEL cannot be "
    "evaluated, scales nothing and says which in the pod's event",
    "[controller][dra][bad-input]") {
  ControllerHarness h(kGroups);
  AddClasses(h);
  h.server.Upsert("deviceclasses",
                  DeviceClass("broken.example.com",
                              "device.attributes['gpu.nvidia.com'].productName.startsWith(1)"));
  AddClaimTemplate(h, "broken", ClaimSpec("broken.example.com", 1));
  AddPendingClaimPod(h, "orphan", "no-such-template");
  AddPendingClaimPod(h, "bad-cel", "broken");
  LoopReport first = h.Step();
  CHECK(first.skipped.empty());
  CHECK(first.scale_ups.empty());
  CHECK(first.without_scale_up == 2);
  const std::vector<std::string> orphan = h.EventsFor("orphan");
  REQUIRE(orphan.size() == 1);
  CHECK_THAT(orphan[0], Catch::Contains("ResourceClaimTemplate ml/no-such-template not found"));
  const std::vector<std::string> bad = h.EventsFor("bad-cel");
  REQUIRE(bad.size() == 1);
  CHECK_THAT(bad[0], Catch::Contains("productName.startsWith(1)"));
  // The controller goes on: a good pod beside them is planned, on the cheapest whole GPU.
  AddClaimTemplate(h, "any-gpu", ClaimSpec("gpu.nvidia.com", 1));
  AddPendingClaimPod(h, "good", "any-gpu");
  LoopReport second = h.Step(absl::Seconds(10));
  REQUIRE(second.scale_ups.size() == 1);
  CHECK(second.scale_ups[0].request.group == "a100-mig-dra");
}

// One H100 node and a cpu node running from the start, the H100's GPUs published; the idle
// timeout is 5m.
constexpr char kRunningGroups[] = R"(
nodeGroups:
- id: cpu
  minSize: 0
  maxSize: 4
  targetSize: 1
  pricePerHour: 2.1
  template:
    status:
      allocatable: {cpu: "64", memory: 256Gi, pods: "110"}
  options: {scaleDownUnneededTime: 5m}
- id: h100-dra
  minSize: 0
  maxSize: 4
  targetSize: 1
  pricePerHour: 98.32
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
      annotations: {gpu-autoscaler.io/dra-driver: gpu.nvidia.com}
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110"}
  options: {scaleDownUnneededTime: 5m}
)";

// The pool the simulated driver published the node's GPUs in.
std::string GpuPoolOf(ControllerHarness& h, const std::string& node) {
  for (const nlohmann::json& s : h.server.List("resourceslices")) {
    if (s["spec"].value("nodeName", "") == node) return s["spec"]["pool"].value("name", "");
  }
  return "";
}

// A pod running on `node` whose claim, made from a template, is allocated `gpus` GPUs there.
void AddRunningClaimPod(ControllerHarness& h, const std::string& name, const std::string& node,
                        int gpus) {
  const std::string claim = absl::StrCat(name, "-gpu-q9z4m");
  nlohmann::json results = nlohmann::json::array();
  for (int i = 0; i < gpus; ++i) {
    results.push_back({{"request", "gpus"},
                       {"driver", "gpu.nvidia.com"},
                       {"pool", GpuPoolOf(h, node)},
                       {"device", absl::StrCat("gpu-", i)}});
  }
  const nlohmann::json on_node = {
      {"nodeSelectorTerms",
       {{{"matchFields", {{{"key", "metadata.name"}, {"operator", "In"}, {"values", {node}}}}}}}}};
  nlohmann::json status;
  status["allocation"] = {{"devices", {{"results", results}}}, {"nodeSelector", on_node}};
  status["reservedFor"] = {{{"resource", "pods"}, {"name", name}, {"uid", "uid-" + name}}};
  h.server.Upsert("resourceclaims",
                  {{"apiVersion", "resource.k8s.io/v1"},
                   {"kind", "ResourceClaim"},
                   {"metadata", {{"name", claim}, {"namespace", "ml"}, {"uid", claim + "-uid"}}},
                   {"spec", ClaimSpec("gpu.nvidia.com", gpus)},
                   {"status", status}});
  h.AddRunningPod(name, node, {{"cpu", "4"}}, "ReplicaSet", "train", nlohmann::json::object(),
                  {{"resourceClaims", {{{"name", "gpu"}, {"resourceClaimTemplateName", "gpus"}}}}});
  nlohmann::json pod = *h.server.Get("pods", "ml", name);
  pod["metadata"].erase("resourceVersion");
  pod["status"]["resourceClaimStatuses"] = {{{"name", "gpu"}, {"resourceClaimName", claim}}};
  h.server.Upsert("pods", pod);
}

TEST_CASE(
    "a DRA node whose GPUs a running pod's claim holds stays, and once the pod and its claim "
    "are gone it is removed after its idle timeout, and the pool reaches zero",
    "[controller][dra][scale-down]") {
  ControllerHarness h(kRunningGroups);
  AddClasses(h);
  AddClaimTemplate(h, "gpus", ClaimSpec("gpu.nvidia.com", 8));
  // The cpu node is busy, with room for the H100 node's pod were its claim not counted.
  h.AddRunningPod("api", "cpu-0", {{"cpu", "40"}}, "ReplicaSet", "api");
  h.Step();  // the driver publishes the node's GPUs
  REQUIRE_FALSE(GpuPoolOf(h, "h100-dra-0").empty());
  AddRunningClaimPod(h, "train-0", "h100-dra-0", 8);
  for (int i = 0; i < 7; ++i) {
    LoopReport r = h.Step(absl::Minutes(1));
    INFO("minute " << i);
    CHECK(r.unneeded == 0);
    CHECK(r.removals.deleted.empty());
    CHECK(r.idle_gpus.at("h100-dra").total == Approx(0));  // all eight are claimed
  }
  CHECK(h.TargetSize("h100-dra") == 1);
  h.server.Delete("pods", "ml", "train-0");
  h.server.Delete("resourceclaims", "ml", "train-0-gpu-q9z4m");
  LoopReport idle = h.Step();
  CHECK(idle.unneeded == 1);
  CHECK(idle.idle_gpus.at("h100-dra").of(IdleCause::kIdleTimeout) == Approx(8));
  bool removed = false;
  for (int i = 0; i < 8 && !removed; ++i) {
    LoopReport r = h.Step(absl::Minutes(1));
    removed = !r.removals.deleted.empty();
    if (removed) CHECK(r.removals.deleted[0].node == "h100-dra-0");
  }
  CHECK(removed);
  CHECK(h.TargetSize("h100-dra") == 0);
}

TEST_CASE("an underused DRA node stays while its pod's claim could get devices on no other node",
          "[controller][dra][scale-down]") {
  ControllerHarness h(kRunningGroups);
  AddClasses(h);
  AddClaimTemplate(h, "gpus", ClaimSpec("gpu.nvidia.com", 2));
  h.AddRunningPod("api", "cpu-0", {{"cpu", "40"}}, "ReplicaSet", "api");
  h.Step();
  AddRunningClaimPod(h, "train-0", "h100-dra-0", 2);  // 2 of 8 GPUs: under the threshold
  for (int i = 0; i < 7; ++i) {
    LoopReport r = h.Step(absl::Minutes(1));
    CHECK(r.removals.deleted.empty());
  }
  CHECK(h.NodeExists("h100-dra-0"));
  CHECK(h.TargetSize("h100-dra") == 1);
}

}  // namespace
}  // namespace gpua::testing
