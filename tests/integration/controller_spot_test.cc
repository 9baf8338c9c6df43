// Spot preemption against the fake API server and a gRPC plugin over the simulated cloud: the
// simulated kubelet plays the AWS Node Termination Handler, tainting a node whose instance is
// under its two-minute notice. The controller drains the node with the notice's grace, asks
// for the capacity again before the instance is gone, and falls back to on-demand when spot
// has none.
#include <catch2/catch.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/integration/controller_harness.h"

namespace gpua::testing {
namespace {

constexpr char kGroups[] = R"(
nodeGroups:
- id: h100-spot
  minSize: 0
  maxSize: 4
  targetSize: 1
  pricePerHour: 30.0
  capacityType: spot
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
  simulation:
    provisioningDelay: {p50: 30s, p95: 30s}
    gpuReadyDelay: {p50: 10s, p95: 10s}
- id: h100-ondemand
  minSize: 0
  maxSize: 4
  targetSize: 0
  pricePerHour: 98.32
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
  simulation:
    provisioningDelay: {p50: 30s, p95: 30s}
    gpuReadyDelay: {p50: 10s, p95: 10s}
)";

ControllerOptions ByPrice() {
  ControllerOptions o;
  o.scale_up.expander = "price";
  return o;
}

// The training pod of a Job, on the spot node, with a minute to save its checkpoint.
void AddTrainer(ControllerHarness& h) {
  h.AddRunningPod("train-0", "h100-spot-0", {{"nvidia.com/gpu", "8"}}, "Job", "train",
                  nlohmann::json::object(), {{"terminationGracePeriodSeconds", 60}});
}

bool Terminating(ControllerHarness& h, const std::string& pod) {
  auto p = h.server.Get("pods", "ml", pod);
  return !p.has_value() || p->at("metadata").contains("deletionTimestamp");
}

TEST_CASE(
    "a spot interruption drains the node and asks for its replacement before the instance is gone",
    "[controller][spot]") {
  ControllerHarness h(kGroups, ByPrice());
  AddTrainer(h);
  h.Step();
  REQUIRE(h.cloud.Interrupt("sim://h100-spot/0").ok());  // reclaimed two minutes from now
  const absl::Time reclaim = h.clock.Now() + absl::Minutes(2);

  LoopReport noticed = h.Step(absl::Seconds(1));
  REQUIRE(noticed.state.preemptions.size() == 1);
  CHECK_THAT(noticed.state.preemptions[0].signal, Catch::Contains("Termination Handler"));
  CHECK(noticed.nodes_added() == 1);      // the capacity, asked for again at once
  CHECK(h.TargetSize("h100-spot") == 2);  // the cheaper pool: spot still has room
  CHECK(Terminating(h, "train-0"));       // evicted with its grace
  CHECK(h.server.Get("pods", "ml", "train-0")
            ->at("metadata")
            .value("deletionGracePeriodSeconds", 0) == 60);
  h.Step(absl::Seconds(1));
  const std::vector<std::string> taints = h.Taints("h100-spot-0");
  CHECK(std::any_of(taints.begin(), taints.end(), [](const std::string& t) {
    return absl::StartsWith(t, "ToBeDeletedByClusterAutoscaler=");
  }));

  // The Job makes a new pod once the old one has stopped; it waits for the node asked for,
  // and no second one is asked for it.
  h.Step(absl::Seconds(60));
  REQUIRE(!h.server.Get("pods", "ml", "train-0").has_value());
  h.AddPendingPod("train-0b", {{"nvidia.com/gpu", "8"}});
  LoopReport after = h.Step(absl::Seconds(1));
  CHECK(after.nodes_added() == 0);
  CHECK(after.fit_existing == 1);
  // The drained node went through its group before the cloud took it: no replacement of the
  // cloud's own on top of ours.
  CHECK(h.TargetSize("h100-spot") == 1);
  REQUIRE(h.clock.Now() < reclaim);
  for (int i = 0; i < 6; ++i) h.Step(absl::Seconds(30));
  CHECK(h.TargetSize("h100-spot") == 1);
  CHECK(h.TargetSize("h100-ondemand") == 0);
  CHECK(!h.NodeExists("h100-spot-0"));
  CHECK(h.NodeExists("h100-spot-1"));
  CHECK_THAT(h.metrics.registry().Render(),
             Catch::Contains("cluster_autoscaler_scaled_down_nodes_total{reason=\"preempted\"} 1"));
}

TEST_CASE("a spot interruption with no spot capacity left brings the pods up on-demand",
          "[controller][spot]") {
  ControllerHarness h(kGroups, ByPrice());
  AddTrainer(h);
  h.Step();
  h.cloud.SetStockout("h100-spot", true);
  REQUIRE(h.cloud.Interrupt("sim://h100-spot/0").ok());
  const absl::Time reclaim = h.clock.Now() + absl::Minutes(2);
  h.Step(absl::Seconds(1));
  // The spot replacement fails for want of capacity; the group backs off and the next ask
  // goes to the fallback.
  bool on_demand = false;
  for (int i = 0; i < 10 && !on_demand; ++i) {
    h.Step(absl::Seconds(10));
    if (!h.server.Get("pods", "ml", "train-0").has_value() &&
        !h.server.Get("pods", "ml", "train-0b").has_value()) {
      h.AddPendingPod("train-0b", {{"nvidia.com/gpu", "8"}});
    }
    on_demand = h.TargetSize("h100-ondemand") == 1;
  }
  CHECK(on_demand);
  CHECK(h.clock.Now() < reclaim);
  const std::vector<std::string> events = h.EventsFor("train-0b");
  CHECK(std::any_of(events.begin(), events.end(),
                    [](const std::string& e) { return absl::StrContains(e, "h100-ondemand"); }));
}

}  // namespace
}  // namespace gpua::testing
