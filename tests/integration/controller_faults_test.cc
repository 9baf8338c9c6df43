// What the controller does when a pod fits nowhere, the cloud runs out of capacity, or nodes
// never register: the pod is told why, the group is backed off and the next option taken in
// the same loop, the stale instance is removed; and it all shows in the status ConfigMap.
#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"
#include "kubeobjects/documents.h"
#include "tests/integration/controller_harness.h"

namespace gpua::testing {
namespace {

constexpr char kGroups[] = R"(
nodeGroups:
- id: h100-spot
  maxSize: 4
  pricePerHour: 30
  capacityType: spot
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
  options: {maxNodeProvisionTime: 5m}
  simulation:
    provisioningDelay: {p50: 30s, p95: 30s}
- id: h100-on-demand
  maxSize: 4
  pricePerHour: 98.32
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
  options: {maxNodeProvisionTime: 5m}
  simulation:
    provisioningDelay: {p50: 30s, p95: 30s}
- id: cpu
  maxSize: 4
  pricePerHour: 0.5
  template:
    status:
      allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
)";

ControllerOptions PriceFirst() {
  ControllerOptions o;
  o.scale_up.expander = "price";
  return o;
}

TEST_CASE("a pod no group can hold hears why, group by group, once", "[controller][faults]") {
  ControllerHarness h(kGroups, PriceFirst());
  h.AddPendingPod("mi300-job", {{"amd.com/gpu", "8"}});
  LoopReport r = h.Step();
  CHECK(r.scale_ups.empty());
  CHECK(r.without_scale_up == 1);
  h.Step(absl::Seconds(10));  // said again only when something changes
  const std::vector<std::string> events = h.EventsFor("mi300-job");
  REQUIRE(events.size() == 1);
  CHECK_THAT(events[0], Catch::StartsWith("NotTriggerScaleUp: pod didn't trigger scale-up: "));
  CHECK_THAT(events[0],
             Catch::Contains("cpu, h100-on-demand, h100-spot: Insufficient amd.com/gpu"));
}

TEST_CASE("a spot stockout falls back to the on-demand group within one loop",
          "[controller][faults]") {
  ControllerHarness h(kGroups, PriceFirst());
  h.cloud.SetStockout("h100-spot", true);
  h.AddPendingPod("train-0", {{"nvidia.com/gpu", "8"}});
  LoopReport first = h.Step();
  REQUIRE(first.scale_ups.size() == 1);
  CHECK(first.scale_ups[0].request.group == "h100-spot");  // cheapest first
  // The next loop sees the instance failed for lack of capacity: it removes it, backs the
  // group off and asks the next option, in that same loop.
  LoopReport second = h.Step(absl::Seconds(10));
  CHECK(second.stale.failed_deleted == 1);
  REQUIRE(second.scale_ups.size() == 1);
  CHECK(second.scale_ups[0].request.group == "h100-on-demand");
  CHECK(h.TargetSize("h100-spot") == 0);
  CHECK(h.TargetSize("h100-on-demand") == 1);
  const GroupState* spot = second.state.FindGroup("h100-spot");
  REQUIRE(spot != nullptr);
  REQUIRE(spot->backoff.has_value());
  CHECK(spot->backoff->error_code == "OutOfCapacity");
  CHECK(h.metrics.registry().Render().find(
            "cluster_autoscaler_node_group_backoff_status{node_group=\"h100-spot\","
            "reason=\"OutOfCapacity\"} 1") != std::string::npos);
}

TEST_CASE("a refused increase backs the group off and the same loop asks the next group",
          "[controller][faults]") {
  ControllerHarness h(kGroups, PriceFirst());
  h.cloud.FailIncreases("h100-spot", absl::ResourceExhaustedError("quota for p5 exceeded"));
  h.AddPendingPod("train-0", {{"nvidia.com/gpu", "8"}});
  LoopReport r = h.Step();
  REQUIRE(r.scale_ups.size() == 2);
  CHECK(r.scale_ups[0].request.group == "h100-spot");
  CHECK_THAT(std::string(r.scale_ups[0].status.message()),
             Catch::Contains("quota for p5 exceeded"));
  CHECK(r.scale_ups[1].request.group == "h100-on-demand");
  CHECK(r.scale_ups[1].status.ok());
  CHECK(h.TargetSize("h100-on-demand") == 1);
  const std::vector<std::string> events = h.EventsFor("cluster-autoscaler-status");
  CHECK(std::count_if(events.begin(), events.end(), [](const std::string& e) {
          return e.rfind("FailedToScaleUpGroup: Scale-up failed for group h100-spot", 0) == 0;
        }) == 1);
  // Backed off: the next loops leave the group alone even with new pods.
  h.cloud.FailIncreases("h100-spot", absl::OkStatus());
  h.AddPendingPod("train-1", {{"nvidia.com/gpu", "8"}});
  LoopReport later = h.Step(absl::Seconds(10));
  REQUIRE(later.scale_ups.size() == 1);
  CHECK(later.scale_ups[0].request.group == "h100-on-demand");
}

TEST_CASE("a provider that cannot list its groups stops no loop and changes nothing",
          "[controller][faults]") {
  ControllerHarness h(kGroups, PriceFirst());
  h.AddPendingPod("train-0", {{"nvidia.com/gpu", "8"}});
  h.cloud.FailNextCalls(absl::UnavailableError("cloud API down"), 1000);
  LoopReport down = h.Step();
  CHECK_THAT(down.skipped, Catch::Contains("cloud API down"));
  CHECK(down.scale_ups.empty());
  h.cloud.FailNextCalls(absl::OkStatus(), 0);
  LoopReport up = h.Step(absl::Seconds(10));
  CHECK(up.skipped.empty());
  REQUIRE(up.scale_ups.size() == 1);
  CHECK(up.scale_ups[0].status.ok());
}

TEST_CASE(
    "an instance that never registers is removed after the provision time and its group "
    "backed off",
    "[controller][faults]") {
  ControllerHarness h(kGroups, PriceFirst());
  h.kubelet->NeverRegister("h100-spot");
  h.AddPendingPod("train-0", {{"nvidia.com/gpu", "8"}});
  REQUIRE(h.Step().scale_ups.size() == 1);
  for (int i = 0; i < 4; ++i)
    CHECK(h.Step(absl::Minutes(1)).scale_ups.empty());  // it may still come
  LoopReport late = h.Step(absl::Minutes(2));           // 6 minutes: past the group's 5m
  CHECK(late.stale.unregistered_deleted == 1);
  CHECK(h.TargetSize("h100-spot") == 0);
  const GroupState* spot = late.state.FindGroup("h100-spot");
  REQUIRE(spot->backoff.has_value());
  CHECK(spot->backoff->error_code == "timeout");
  // The pod is not left waiting: the other group is asked in the same loop.
  REQUIRE(late.scale_ups.size() == 1);
  CHECK(late.scale_ups[0].request.group == "h100-on-demand");

  h.Step(absl::Seconds(10));  // the status is written from what the loop read at its start
  const nlohmann::json cm = h.StatusConfigMap();
  CHECK(cm["metadata"]["annotations"].contains("cluster-autoscaler.kubernetes.io/last-updated"));
  auto status = YamlToJson(cm["data"]["status"].get<std::string>(), "status");
  REQUIRE(status.ok());
  CHECK((*status)["autoscalerStatus"] == "Running");
  CHECK((*status)["clusterWide"]["health"]["status"] == "Healthy");
  bool found = false;
  for (const nlohmann::json& g : (*status)["nodeGroups"]) {
    if (g["name"] != "h100-spot") continue;
    found = true;
    CHECK(g["scaleUp"]["status"] == "Backoff");
    CHECK(g["scaleUp"]["backoffInfo"]["errorCode"] == "timeout");
    CHECK(g["health"]["cloudProviderTarget"] == 0);
    CHECK(g["health"]["maxSize"] == 4);
  }
  CHECK(found);
}

}  // namespace
}  // namespace gpua::testing
