// The simulation end to end on small traces: the controller's behaviours show in the figures.
#include "autoscaler/sim/simulation.h"

#include <catch2/catch.hpp>

#include "cloudproviders/node_group_file.h"

namespace gpua::sim {
namespace {

constexpr char kGroups[] = R"(
nodeGroups:
- id: h100
  maxSize: 8
  pricePerHour: 98.32
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
    spec:
      taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
  options: {scaleDownUnneededTime: 10m}
  simulation:
    provisioningDelay: {p50: 2m, p95: 2m}
    gpuReadyDelay: {p50: 1m, p95: 1m}
)";

constexpr char kTrainer[] =
    R"({"spec": {"tolerations": [{"operator": "Exists"}], "containers": [{"name": "main", "resources": {"requests": {"nvidia.com/gpu": "8", "cpu": "32"}}}]}})";

SimulationOptions Options(absl::Duration idle = absl::Minutes(10)) {
  SimulationOptions o;
  auto groups = ParseNodeGroupFile(kGroups, "groups.yaml");
  REQUIRE(groups.ok());
  o.groups = *groups;
  for (NodeGroupConfig& g : o.groups) g.options.scale_down_unneeded_time = idle;
  return o;
}

Trace Parse(const std::string& text) {
  auto t = ParseTrace(text, "trace.jsonl", ".");
  INFO((t.ok() ? "" : std::string(t.status().message())));
  REQUIRE(t.ok());
  return *t;
}

TEST_CASE("four 8-GPU jobs: four nodes come up, run them, and go after the idle timeout", "[sim]") {
  const Trace trace = Parse(absl::StrCat(
      R"({"at": "0s", "name": "train", "count": 4, "runFor": "1h", "pod": )", kTrainer, "}\n"));
  auto r = Simulate(trace, Options());
  REQUIRE(r.ok());
  CHECK(r->total.scale_ups == 4);
  CHECK(r->total.scale_downs == 4);
  CHECK(r->pods_finished == 4);
  // Waiting: the loop's quiet second, two minutes to provision, one for the GPUs.
  CHECK(r->total.gpu_pending.p50 == Approx(181).margin(15));
  CHECK(r->total.gpu_hours_used == Approx(32).margin(0.01));
  // Billed: 4 nodes x (1h of work + 1m GPU start + 10m idle timeout + a little).
  CHECK(r->total.node_hours == Approx(4 * (1 + 11.0 / 60)).margin(0.1));
  CHECK(r->total.lower_bound_cost_usd <= r->total.cost_usd);
  INFO("warnings: " << r->controller_warnings);
}

}  // namespace
}  // namespace gpua::sim
