// The simulation end to end on small traces: the controller's behaviours show in the figures.
#include "autoscaler/sim/simulation.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "autoscaler/sim/result_json.h"
#include "autoscaler/sim/warm_buffers.h"
#include "cloudproviders/node_group_file.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/gpu/gpu_inventory_reader.h"

namespace gpua::sim {
namespace {

// One pool of 8xH100 nodes that take two minutes to come up and one more for their GPUs.
constexpr char kGroups[] = R"(
nodeGroups:
- id: h100
  maxSize: $MAX
  pricePerHour: 98.32
  capacityType: $CAPACITY
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
    spec:
      taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
  simulation:
    provisioningDelay: {p50: 2m, p95: $P95}
    gpuReadyDelay: {p50: 1m, p95: 1m}
    spotInterruptionsPerHour: $RATE
    gpuFailuresPerNodeHour: $FAILURES
)";

struct Pool {
  int max = 8;
  std::string capacity = "on-demand";
  std::string p95 = "2m";
  double interruptions_per_hour = 0;
  double gpu_failures_per_node_hour = 0;
};

constexpr char kTrainer[] =
    R"({"spec": {"tolerations": [{"operator": "Exists"}], "containers": [{"name": "main", "resources": {"requests": {"nvidia.com/gpu": "8", "cpu": "32"}}}]}})";

SimulationOptions Options(absl::Duration idle, const Pool& pool = {}) {
  SimulationOptions o;
  const std::string text =
      absl::StrReplaceAll(kGroups, {{"$MAX", absl::StrCat(pool.max)},
                                    {"$CAPACITY", pool.capacity},
                                    {"$P95", pool.p95},
                                    {"$RATE", absl::StrCat(pool.interruptions_per_hour)},
                                    {"$FAILURES", absl::StrCat(pool.gpu_failures_per_node_hour)}});
  auto groups = ParseNodeGroupFile(text, "groups.yaml");
  INFO((groups.ok() ? "" : std::string(groups.status().message())));
  REQUIRE(groups.ok());
  o.groups = *groups;
  o.controller.scale_down.enabled = true;
  for (NodeGroupConfig& g : o.groups) g.options.scale_down_unneeded_time = idle;
  return o;
}

Trace Parse(const std::string& text) {
  auto t = ParseTrace(text, "trace.jsonl", ".");
  INFO((t.ok() ? "" : std::string(t.status().message())));
  REQUIRE(t.ok());
  return *t;
}

// `jobs` 8-GPU jobs, one every `gap`, each running `run`.
Trace SpacedJobs(int jobs, const std::string& gap_minutes, const std::string& run) {
  std::string text;
  for (int i = 0; i < jobs; ++i) {
    absl::StrAppend(&text, R"({"at": )", i * std::stoi(gap_minutes) * 60, R"(, "name": "job-)", i,
                    R"(", "runFor": ")", run, R"(", "pod": )", kTrainer, "}\n");
  }
  return Parse(text);
}

SimulationResult Run(const Trace& trace, const SimulationOptions& options) {
  auto r = Simulate(trace, options);
  INFO((r.ok() ? "" : std::string(r.status().message())));
  REQUIRE(r.ok());
  INFO("first warnings: " << (r->first_warnings.empty() ? "" : r->first_warnings.front()));
  CHECK(r->total.lower_bound_cost_usd <= r->total.cost_usd);
  CHECK(r->total.packing_bound_cost_usd <= r->total.cost_usd);
  return *std::move(r);
}

TEST_CASE("four 8-GPU jobs: four nodes come up, run them, and go after the idle timeout", "[sim]") {
  const Trace trace = Parse(absl::StrCat(
      R"({"at": "0s", "name": "train", "count": 4, "runFor": "1h", "pod": )", kTrainer, "}\n"));
  const SimulationResult r = Run(trace, Options(absl::Minutes(10)));
  CHECK(r.total.scale_ups == 4);
  CHECK(r.total.scale_downs == 4);
  CHECK(r.pods_finished == 4);
  // Waiting: the loop's quiet second, two minutes to provision, one for the GPUs.
  CHECK(r.total.gpu_pending.p50 == Approx(181).margin(15));
  CHECK(r.total.gpu_hours_used == Approx(32).margin(0.01));
  // Billed: 4 nodes x (1h of work + 1m GPU start + 10m idle timeout + a little).
  CHECK(r.total.node_hours == Approx(4 * (1 + 11.0 / 60)).margin(0.1));
}

TEST_CASE("a run cut short by --until is held against the bounds of the same window", "[sim]") {
  // Three 8-GPU jobs of 4 hours; the run stops after one.
  const Trace trace = Parse(absl::StrCat(
      R"({"at": "0s", "name": "train", "count": 3, "runFor": "4h", "pod": )", kTrainer, "}\n"));
  SimulationOptions options = Options(absl::Minutes(10));
  options.until = absl::Hours(1);
  const absl::StatusOr<SimulationResult> r = Simulate(trace, options);
  REQUIRE(r.ok());
  // Three nodes for the hour, less the minutes they took to come up; the bounds bill that hour
  // as if the jobs had started on arrival (so a little over the run's cost), not the four hours
  // the trace runs, which put them at four times the cost.
  CHECK(r->total.node_hours == Approx(3 * 57.0 / 60).margin(0.1));
  CHECK(r->total.packing_bound_cost_usd == Approx(3 * 98.32).margin(1));
  CHECK(r->total.lower_bound_cost_usd == Approx(3 * 98.32).margin(1));
  CHECK(r->total.packing_bound_cost_usd < 1.1 * r->total.cost_usd);
}

TEST_CASE("idle timeout 0 leaves GPU-hours idle near zero and makes every job wait, 1h the reverse",
          "[sim]") {
  // Ten 20-minute jobs, one every half hour: the gaps are shorter than an hour.
  const Trace trace = SpacedJobs(10, "30", "20m");
  const SimulationResult eager = Run(trace, Options(absl::ZeroDuration()));
  const SimulationResult lazy = Run(trace, Options(absl::Hours(1)));
  INFO("idle GPU-h " << eager.total.gpu_hours_idle << " vs " << lazy.total.gpu_hours_idle);

  CHECK(eager.total.gpu_hours_idle < 0.15 * eager.total.gpu_hours_billed);
  CHECK(eager.total.scale_ups == 10);        // a new node for every job
  CHECK(eager.total.gpu_pending.p50 > 170);  // each waits for a node and its GPUs

  CHECK(lazy.total.scale_ups == 1);  // the first node stays warm between jobs
  CHECK(lazy.total.gpu_pending.p50 < 5);
  CHECK(lazy.total.gpu_hours_idle > 3 * eager.total.gpu_hours_idle);
  CHECK(lazy.total.cost_usd > eager.total.cost_usd);
  CHECK(lazy.total.gpu_hours_used == Approx(eager.total.gpu_hours_used).margin(0.01));
}

// A pool of 4xV100 nodes at a price.
constexpr char kV100Pool[] = R"(
- id: $ID
  maxSize: 20
  pricePerHour: $PRICE
  template:
    metadata:
      labels: {nvidia.com/gpu.product: Tesla-V100-SXM2-16GB, nvidia.com/gpu.count: "4"}
    spec:
      taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
    status:
      allocatable: {cpu: "32", memory: 240Gi, pods: "110", nvidia.com/gpu: "4"}
  simulation:
    provisioningDelay: {p50: 2m, p95: 2m}
    gpuReadyDelay: {p50: 1m, p95: 1m}
)";

TEST_CASE("by default no pod goes to a dearer pool when a cheaper one holds it as well",
          "[sim][expander]") {
  std::string text;
  for (int i = 0; i < 12; ++i) {
    absl::StrAppend(
        &text, R"({"at": )", i * 600, R"(, "name": "v-)", i,
        R"(", "count": 2, "runFor": "40m", "pod": {"spec": {"tolerations": [{"operator": "Exists"}], "containers": [{"name": "m", "resources": {"requests": {"nvidia.com/gpu": "2", "cpu": "8"}}}]}}})",
        "\n");
  }
  const Trace trace = Parse(text);
  // Two pools that hold the same pods equally well; the one listed first is 27% dearer.
  const auto pool = [](const std::string& id, const std::string& price) {
    return absl::StrReplaceAll(kV100Pool, {{"$ID", id}, {"$PRICE", price}});
  };
  auto groups = ParseNodeGroupFile(
      absl::StrCat("nodeGroups:", pool("v100-dear", "12.24"), pool("v100-cheap", "9.64")),
      "groups.yaml");
  REQUIRE(groups.ok());
  SimulationOptions options;
  options.groups = *groups;
  options.controller.scale_down.enabled = true;
  const SimulationResult cheapest = Run(trace, options);
  options.controller.scale_up.expander = "least-waste";
  const SimulationResult least_waste = Run(trace, options);
  const auto cost_of = [](const SimulationResult& r, const std::string& id) {
    for (const GroupFigures& g : r.groups) {
      if (g.id == id) return g.figures.cost_usd;
    }
    return -1.0;
  };
  CHECK(cost_of(cheapest, "v100-dear") == 0);
  CHECK(cost_of(cheapest, "v100-cheap") > 0);
  CHECK(cheapest.pods_finished == 24);
  // cluster-autoscaler's least-waste alone sees a tie and takes the first pool listed.
  CHECK(cost_of(least_waste, "v100-dear") > 0);
  CHECK(cheapest.total.cost_usd < least_waste.total.cost_usd);
  CHECK(cheapest.total.gpu_pending.p95 <= least_waste.total.gpu_pending.p95 + 1);
}

TEST_CASE("a preempted spot node's pods wait only for the replacement node", "[sim]") {
  Pool spot;
  spot.capacity = "spot";
  spot.interruptions_per_hour = 0.5;
  const Trace trace = SpacedJobs(3, "0", "1h");
  SimulationOptions options = Options(absl::Minutes(10), spot);
  options.until = absl::Hours(24);  // a preempted job starts over: time for all to finish
  const SimulationResult r = Run(trace, options);
  REQUIRE(r.total.preemptions > 0);
  CHECK(r.pods_restarted > 0);
  CHECK(r.pods_finished == 3);
  // Every wait, first ones and after each preemption, is at most a node's start (2m, and
  // 1m for its GPUs) and a loop or two: the replacement is asked for at the notice.
  CHECK(r.total.gpu_pending.max <= 3 * 60 + 25);
}

TEST_CASE("nodes whose GPUs fail are cordoned and replaced, their cost and time to repair told",
          "[sim][repair]") {
  Pool failing;
  failing.gpu_failures_per_node_hour = 0.25;
  const Trace trace = SpacedJobs(4, "0", "6h");
  SimulationOptions options = Options(absl::Minutes(10), failing);
  options.until = absl::Hours(24);
  const SimulationResult r = Run(trace, options);
  REQUIRE(r.total.gpu_failures >= 2);
  // Each broken node is repaired once its 10m toleration runs out: its pod is evicted and made
  // again on the replacement, asked for in the same loop.
  CHECK(r.total.repairs >= r.total.gpu_failures - r.broken_at_end - 1);
  CHECK(r.pods_restarted >= r.total.repairs - 1);
  CHECK(r.time_to_repair.p50 >= 600);
  CHECK(r.time_to_repair.p50 <= 600 + 120);
  CHECK(r.total.broken_node_hours > 0);
  CHECK(r.total.broken_cost_usd == Approx(r.total.broken_node_hours * 98.32));
  // Nothing is placed on a node past its toleration: a pod bound to a broken node was bound
  // in the minutes before the controller could know.
  const nlohmann::json j = ResultJson(r);
  CHECK(j["repair"]["time_to_repair_seconds"]["count"].get<int>() >= 1);
  CHECK(j["groups"]["h100"]["gpu_failures"] == r.total.gpu_failures);
}

TEST_CASE("a gang is never half-provisioned", "[sim]") {
  const Trace gang =
      Parse(absl::StrCat(R"({"at": "0s", "name": "pretrain", "count": 4, )",
                         R"("gang": true, "runFor": "2h", "pod": )", kTrainer, "}\n"));
  SECTION("a pool that can hold three of four nodes adds none") {
    Pool small;
    small.max = 3;
    const SimulationResult r = Run(gang, Options(absl::ZeroDuration(), small));
    CHECK(r.total.scale_ups == 0);
    CHECK(r.total.node_hours == 0);
    CHECK(r.pods_finished == 0);
    CHECK(r.pods_without_group == 4);
  }
  SECTION("with room, the four start together once the last node is up, even at timeout 0") {
    Pool varied;  // nodes come up at different times: the first ones wait for the last
    varied.p95 = "8m";
    const SimulationResult r = Run(gang, Options(absl::ZeroDuration(), varied));
    CHECK(r.total.scale_ups == 4);
    CHECK(r.pods_finished == 4);
    CHECK(r.total.gpu_pending.p50 == r.total.gpu_pending.max);  // bound at one moment
    CHECK(r.total.gpu_hours_used == Approx(4 * 8 * 2).margin(0.01));
  }
}

TEST_CASE("the same seed gives the same figures, another seed different ones", "[sim]") {
  Pool spot;
  spot.capacity = "spot";
  spot.p95 = "6m";
  spot.interruptions_per_hour = 0.3;
  const Trace trace = SpacedJobs(12, "40", "90m");
  SimulationOptions options = Options(absl::Minutes(5), spot);
  const nlohmann::json first = ResultJson(Run(trace, options));
  const nlohmann::json again = ResultJson(Run(trace, options));
  CHECK(first == again);
  options.seed = 2;
  const nlohmann::json other = ResultJson(Run(trace, options));
  CHECK(first != other);
}

TEST_CASE("a stockout backs the group off, and its pods wait until capacity returns", "[sim]") {
  const Trace trace = Parse(absl::StrCat(R"({"at": "0s", "stockout": "h100", "for": "1h"})", "\n",
                                         R"({"at": "0s", "name": "job", "runFor": "1h", "pod": )",
                                         kTrainer, "}\n"));
  const SimulationResult r = Run(trace, Options(absl::Minutes(10)));
  CHECK(r.pods_finished == 1);
  CHECK(r.total.gpu_pending.max >= 3600);
  CHECK(r.total.gpu_pending.max < 3600 + 45 * 60);  // after the backoff, within its cap
}

// A pool of 4xL4 nodes at an eighth of an H100 node's price, beside kGroups' H100 pool.
constexpr char kL4Pool[] = R"(
- id: l4x4
  maxSize: 4
  pricePerHour: 12.0
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "4"}
    spec:
      taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
    status:
      allocatable: {cpu: "48", memory: 192Gi, pods: "110", nvidia.com/gpu: "4"}
  simulation:
    provisioningDelay: {p50: 2m, p95: 2m}
    gpuReadyDelay: {p50: 1m, p95: 1m}
)";

TEST_CASE("a service pod sent to an H100 node during an L4 stockout moves to one new L4 node",
          "[sim][replacement]") {
  const std::string server =
      R"({"spec": {"tolerations": [{"key": "nvidia.com/gpu", )"
      R"("operator": "Exists"}], "containers": [{"name": "m", )"
      R"("resources": {"requests": {"nvidia.com/gpu": "1", "cpu": "4"}}}]}})";
  const Trace trace = Parse(absl::StrCat(R"({"at": "0s", "stockout": "l4x4", "for": "1h"})", "\n",
                                         R"({"at": "0s", "name": "serve", "runFor": "1d", "pod": )",
                                         server, "}\n"));
  SimulationOptions options = Options(absl::Minutes(10));
  auto l4 = ParseNodeGroupFile(absl::StrCat("nodeGroups:", kL4Pool), "l4.yaml");
  REQUIRE(l4.ok());
  options.groups.push_back((*l4)[0]);
  options.groups.back().options.scale_down_unneeded_time = absl::Minutes(10);
  const SimulationResult r = Run(trace, options);
  const auto group = [&](const std::string& id) {
    for (const GroupFigures& g : r.groups) {
      if (g.id == id) return g.figures;
    }
    FAIL("no group " << id);
    return Figures{};
  };
  // Asked for at 5m (when the L4 pool's backoff ended) and at 35m, both into the stockout and
  // given up at once; the third, after the stockout, came.
  CHECK(r.total.replacements == 3);
  CHECK(group("l4x4").replacements == 3);
  // The H100 node ran from the start until the L4 node had come and its own unneeded time had
  // passed after the stockout and its backoff, not for the pod's day.
  CHECK(group("h100").scale_downs == 1);
  CHECK(group("h100").node_hours < 2.0);
  CHECK(r.pods_restarted == 1);
  CHECK(r.pods_finished == 1);
  CHECK(r.total.cost_usd < 2.0 * 98.32 + 25 * 12.0);
  CHECK(ResultJson(r)["replacements"] == 3);
}

TEST_CASE("a stockout of a group the node-group file lacks is an error naming the line", "[sim]") {
  const Trace trace = Parse(absl::StrCat(R"({"at": "0s", "stockout": "a100", "for": "1h"})", "\n",
                                         R"({"at": "0s", "name": "job", "runFor": "1h", "pod": )",
                                         kTrainer, "}\n"));
  auto r = Simulate(trace, Options(absl::Minutes(10)));
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(std::string(r.status().message()),
             Catch::Contains("line 1") && Catch::Contains("a100"));
}

}  // namespace
}  // namespace gpua::sim

namespace gpua::sim {
namespace {

// A pool of 8-GPU nodes of one model, slow to boot, as the node-group file has it.
std::string ModelGroupYaml(const std::string& id, double price, const std::string& product,
                           const std::string& memory) {
  return absl::StrCat("- id: ", id, "\n  maxSize: 40\n  pricePerHour: ", price,
                      "\n  template:\n    metadata:\n      labels: {nvidia.com/gpu.product: ",
                      product, R"(, nvidia.com/gpu.count: "8"})", "\n", R"(
    spec:
      taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
    status:
      allocatable: {cpu: "94", memory: )",
                      memory, R"(, pods: "110", nvidia.com/gpu: "8"}
  simulation:
    provisioningDelay: {p50: 2m, p95: 5m}
    gpuReadyDelay: {p50: 2m, p95: 4m}
)");
}

// Three pools of different models and prices.
std::string ModelGroups() {
  return absl::StrCat("nodeGroups:\n",
                      ModelGroupYaml("v100-16gb", 24.48, "Tesla-V100-SXM2-16GB", "480Gi"),
                      ModelGroupYaml("v100-32gb", 31.22, "Tesla-V100-SXM2-32GB", "760Gi"),
                      ModelGroupYaml("t4", 7.82, "Tesla-T4", "360Gi"));
}

// A pod of `gpus` GPUs that accepts the GPU models listed (any when none are).
std::string ModelPod(int gpus, const std::vector<std::string>& models) {
  std::string affinity;
  if (!models.empty()) {
    affinity = absl::StrCat(
        R"(, "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": )",
        R"({"nodeSelectorTerms": [{"matchExpressions": [{"key": "nvidia.com/gpu.product", )",
        R"("operator": "In", "values": [")", absl::StrJoin(models, "\", \""), R"("]}]}]}}})");
  }
  return absl::StrCat(R"({"spec": {"tolerations": [{"operator": "Exists"}])", affinity,
                      R"(, "containers": [{"name": "main", "resources": {"requests": )",
                      R"({"cpu": "8", "nvidia.com/gpu": ")", gpus, R"("}}}]}})");
}

// A week of bursts, one every 8 hours: each brings pods that accept one model, two, or any
// GPU, all at once, which need exactly 7 nodes (2 + 2 + 2 eight-GPU pods, 2 four-GPU pods).
Trace BurstWeek() {
  std::string text;
  for (int burst = 0; burst < 21; ++burst) {
    const int at = burst * 8 * 3600;
    const auto line = [&](const std::string& name, int count, const std::string& pod) {
      absl::StrAppend(&text, R"({"at": )", at, R"(, "name": ")", name, "-", burst,
                      R"(", "count": )", count, R"(, "runFor": "2h", "pod": )", pod, "}\n");
    };
    line("any", 2, ModelPod(8, {}));
    line("v100", 2, ModelPod(8, {"Tesla-V100-SXM2-16GB", "Tesla-V100-SXM2-32GB"}));
    line("v100-32gb", 2, ModelPod(8, {"Tesla-V100-SXM2-32GB"}));
    line("t4", 2, ModelPod(4, {"Tesla-T4"}));
  }
  return Parse(text);
}

SimulationOptions ModelOptions() {
  SimulationOptions o;
  auto groups = ParseNodeGroupFile(ModelGroups(), "groups.yaml");
  INFO((groups.ok() ? "" : std::string(groups.status().message())));
  REQUIRE(groups.ok());
  o.groups = *groups;
  o.controller.scale_down.enabled = true;
  for (NodeGroupConfig& g : o.groups) g.options.scale_down_unneeded_time = absl::Minutes(10);
  return o;
}

TEST_CASE(
    "pods that accept one GPU model, two or any, arriving together: exactly the planned nodes, "
    "no repeat scale-up, every pod bound",
    "[sim][nominations]") {
  const Trace trace = BurstWeek();
  const SimulationResult r = Run(trace, ModelOptions());
  CHECK(r.total.scale_ups == 21 * 7);
  CHECK(r.total.repeat_scale_ups == 0);
  CHECK(r.pods_finished == 21 * 8);
  CHECK(r.controller_warnings == 0);
  CHECK(ResultJson(r)["repeat_scale_ups"] == 0);
}

TEST_CASE("the same week with the controller restarted while the nodes boot asks for nothing twice",
          "[sim][nominations]") {
  const Trace trace = BurstWeek();
  SimulationOptions options = ModelOptions();
  for (int burst = 0; burst < 21; ++burst) {
    options.restart_controller_at.push_back(absl::Hours(8 * burst) + absl::Seconds(90));
  }
  const SimulationResult r = Run(trace, options);
  CHECK(r.total.scale_ups == 21 * 7);
  CHECK(r.total.repeat_scale_ups == 0);
  CHECK(r.pods_finished == 21 * 8);
}

TEST_CASE(
    "a pod that accepts only the dearer V100 starts a node for an hour: that node goes after "
    "its idle time and the cheaper node keeps its long pods",
    "[sim][scale-down]") {
  // Two 1-GPU pods: a quarter of the cheap node, under the 50% threshold.
  const std::string v100_any = ModelPod(1, {"Tesla-V100-SXM2-16GB", "Tesla-V100-SXM2-32GB"});
  const Trace trace = Parse(
      absl::StrCat(R"({"at": "0s", "name": "long", "count": 2, "runFor": "2d", "pod": )", v100_any,
                   "}\n", R"({"at": "1h", "name": "short", "runFor": "1h", "pod": )",
                   ModelPod(4, {"Tesla-V100-SXM2-32GB"}), "}\n"));
  const SimulationResult r = Run(trace, ModelOptions());
  const auto group = [&](const std::string& id) {
    for (const GroupFigures& g : r.groups) {
      if (g.id == id) return g.figures;
    }
    FAIL("no group " << id);
    return Figures{};
  };
  // One cheap node, for the long pods' two days (and its idle time after).
  CHECK(group("v100-16gb").scale_ups == 1);
  CHECK(group("v100-16gb").node_hours < 48.5);
  CHECK(group("v100-32gb").scale_ups == 1);
  CHECK(group("v100-32gb").scale_downs == 1);
  // Billed for its hour of work, its start-up and its idle time, not for the long pods' days.
  CHECK(group("v100-32gb").node_hours < 1.5);
  CHECK(r.pods_restarted == 0);  // nothing was moved
  CHECK(r.pods_finished == 3);
}

}  // namespace
}  // namespace gpua::sim

namespace gpua::sim {
namespace {

// The pools of a generated week with GPU sharing: time-sliced T4 shares, whole V100s, and
// A100 MIG slices of any layout.
constexpr char kSharingGroups[] = R"(
nodeGroups:
- id: t4-shared
  maxSize: 60
  pricePerHour: 3.912
  template:
    metadata:
      labels: {nvidia.com/gpu.product: Tesla-T4}
      annotations:
        gpu-autoscaler.io/gpu-count: "4"
        gpu-autoscaler.io/gpu-sharing: time-slicing
        gpu-autoscaler.io/gpu-replicas: "4"
        gpu-autoscaler.io/gpu-renamed: "true"
    status:
      allocatable: {cpu: "47", memory: 180Gi, pods: "110"}
  simulation:
    provisioningDelay: {p50: 90s, p95: 3m}
    gpuReadyDelay: {p50: 2m, p95: 4m}
- id: v100
  maxSize: 40
  pricePerHour: 24.48
  template:
    metadata:
      labels: {nvidia.com/gpu.product: Tesla-V100-SXM2-16GB, nvidia.com/gpu.count: "8"}
    status:
      allocatable: {cpu: "63", memory: 480Gi, pods: "110", nvidia.com/gpu: "8"}
  simulation:
    provisioningDelay: {p50: 2m, p95: 5m}
    gpuReadyDelay: {p50: 2m, p95: 4m}
- id: a100-mig
  maxSize: 12
  pricePerHour: 32.77
  template:
    metadata:
      labels:
        nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
        nvidia.com/gpu.count: "8"
        nvidia.com/mig.strategy: mixed
      annotations:
        gpu-autoscaler.io/mig-layouts: all-1g.5gb,all-2g.10gb,all-3g.20gb,all-balanced
    status:
      allocatable: {cpu: "94", memory: 1100Gi, pods: "110"}
  simulation:
    provisioningDelay: {p50: 2m, p95: 5m}
    gpuReadyDelay: {p50: 4m, p95: 8m}
)";

// Days of fractional and whole GPU work, as examples/pai-week generates it: arrivals peaking
// in working hours, most pods a share of a T4 or a MIG slice, run times log-normal (median
// 20 minutes) capped at a day.
Trace GeneratedSharingWeek(uint64_t seed, int days) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::normal_distribution<double> normal(0, 1);
  struct Shape {
    int weight;
    const char* name;
    const char* requests;
  };
  const std::vector<Shape> mix = {
      {30, "share25", R"("nvidia.com/gpu.shared": "1", "cpu": "4", "memory": "16Gi")"},
      {15, "share50", R"("nvidia.com/gpu.shared": "2", "cpu": "6", "memory": "24Gi")"},
      {20, "v100x1", R"("nvidia.com/gpu": "1", "cpu": "7", "memory": "48Gi")"},
      {6, "v100x4", R"("nvidia.com/gpu": "4", "cpu": "28", "memory": "200Gi")"},
      {8, "mig1g", R"("nvidia.com/mig-1g.5gb": "1", "cpu": "4", "memory": "32Gi")"},
      {4, "mig2g", R"("nvidia.com/mig-2g.10gb": "1", "cpu": "8", "memory": "64Gi")"},
      {3, "mig3g", R"("nvidia.com/mig-3g.20gb": "1", "cpu": "12", "memory": "96Gi")"}};
  const int total_weight = 86;
  const double peak_per_hour = 40;
  std::string text;
  double t = 0;
  for (int n = 0;;) {
    t += -std::log(1 - unit(rng)) * 3600 / peak_per_hour;
    if (t >= days * 86400.0) break;
    const double hour = std::fmod(t, 86400) / 3600;
    const double busy = hour >= 7 && hour <= 21 ? std::sin((hour - 7) / 14 * M_PI) : 0;
    if (unit(rng) > 0.35 + 0.65 * busy) continue;
    double pick = unit(rng) * total_weight;
    const Shape* shape = &mix.back();
    for (const Shape& s : mix) {
      if (pick < s.weight) {
        shape = &s;
        break;
      }
      pick -= s.weight;
    }
    const double run = std::clamp(1200 * std::exp(1.6 * normal(rng)), 60.0, 86400.0);
    // The GPU taint only: a pod that tolerates every taint lands back on the node being
    // drained and is evicted again every grace period until the drain gives up.
    absl::StrAppend(&text, R"({"at": )", static_cast<int64_t>(t), R"(, "name": ")", shape->name,
                    "-", n++, R"(", "runFor": ")", static_cast<int64_t>(run),
                    R"(s", "pod": {"spec": {"tolerations": [{"key": "nvidia.com/gpu", )",
                    R"("operator": "Exists", "effect": "NoSchedule"}], )",
                    R"("containers": [{"name": "m", "resources": {"requests": {)", shape->requests,
                    "}}}]}}}\n");
  }
  return Parse(text);
}

SimulationOptions SharingOptions(bool whole_gpus) {
  SimulationOptions o;
  auto groups = ParseNodeGroupFile(kSharingGroups, "groups.yaml");
  INFO((groups.ok() ? "" : std::string(groups.status().message())));
  REQUIRE(groups.ok());
  o.groups = *groups;
  o.controller.scale_down.enabled = true;
  o.whole_gpus = whole_gpus;
  return o;
}

// A day per seed, each a case of its own: under the sanitizers two days took 90 s.
void CheckSharingSavesOn(uint64_t seed) {
  const Trace trace = GeneratedSharingWeek(seed, 1);
  const SimulationResult shared = Run(trace, SharingOptions(false));
  const SimulationResult whole = Run(trace, SharingOptions(true));
  INFO("seed " << seed << ": shared $" << shared.total.cost_usd << ", whole GPUs $"
               << whole.total.cost_usd);
  // Both run the same work: a pod that waited may still run when the run ends.
  CHECK(shared.pods_arrived == whole.pods_arrived);
  CHECK(shared.pods_finished >= 0.99 * static_cast<double>(shared.pods_arrived));
  CHECK(whole.pods_finished >= 0.99 * static_cast<double>(whole.pods_arrived));
  CHECK(shared.total.cost_usd <= whole.total.cost_usd);
  // The twin runs each share on a whole T4 and each MIG slice on a whole A100.
  CHECK(whole.total.gpu_hours_used > 1.2 * shared.total.gpu_hours_used);
  for (const GroupFigures& g : whole.groups) {
    if (g.id == "a100-mig") CHECK(g.figures.gpu_hours_used > 0);
  }
  CHECK(whole.total.share_spread_node_hours == 0);
}

TEST_CASE(
    "on a generated week at the default idle timeout, GPU sharing costs no more than the same "
    "pods on whole GPUs",
    "[sim][sharing]") {
  CheckSharingSavesOn(1);
}

TEST_CASE("on another generated week, GPU sharing costs no more than whole GPUs either",
          "[sim][sharing]") {
  CheckSharingSavesOn(2);
}

}  // namespace
}  // namespace gpua::sim

namespace gpua::sim {
namespace {

TEST_CASE("a warm node takes each job at once, is refilled, and costs its hours", "[sim][warm]") {
  // A job every 2h from 0:30 on, each running 30m; idle nodes go at once.
  std::string text;
  for (int i = 0; i < 4; ++i) {
    absl::StrAppend(&text, R"({"at": )", 1800 + i * 7200, R"(, "name": "job-)", i,
                    R"(", "runFor": "30m", "pod": )", kTrainer, "}\n");
  }
  const Trace trace = Parse(text);
  SimulationOptions cold = Options(absl::ZeroDuration());
  const SimulationResult without = Run(trace, cold);
  CHECK(without.total.gpu_pending.p50 > 120);

  SimulationOptions warm = Options(absl::ZeroDuration());
  warm.groups[0].warm.nodes = 1;
  const SimulationResult with = Run(trace, warm);
  CHECK(with.pods_finished == 4);
  CHECK(with.total.gpu_pending.max < 15);  // a loop's batching, never a node's boot
  // One node stays warm from the start to the end, and one more runs each job while the
  // warm one is refilled: more node-hours, the price of not waiting.
  CHECK(with.total.node_hours > without.total.node_hours + 5);
  CHECK(with.total.scale_ups >= 5);
  // What the warm node idles is filed as warm capacity; without it there is none.
  CHECK(with.total.idle_by_cause.of(IdleCause::kWarmCapacity) > 4 * 8);
  CHECK(without.total.idle_by_cause.of(IdleCause::kWarmCapacity) == 0);
}

TEST_CASE(
    "idle GPU-hours are filed by cause and sum to the idle GPU-hours billed, a long idle "
    "timeout showing as such",
    "[sim][idle]") {
  std::string text;
  for (int i = 0; i < 4; ++i) {
    absl::StrAppend(&text, R"({"at": )", 1800 + i * 7200, R"(, "name": "job-)", i,
                    R"(", "runFor": "30m", "pod": )", kTrainer, "}\n");
  }
  const Trace trace = Parse(text);
  const SimulationResult quick = Run(trace, Options(absl::ZeroDuration()));
  const SimulationResult patient = Run(trace, Options(absl::Hours(1)));
  for (const SimulationResult* r : {&quick, &patient}) {
    const IdleGpuCount& idle = r->total.idle_by_cause;
    CHECK(idle.total == Approx(r->total.gpu_hours_idle).margin(0.01));
    double sum = 0;
    for (double h : idle.by_cause) sum += h;
    CHECK(sum == Approx(r->total.gpu_hours_idle).margin(0.01));
    CHECK(idle.of(IdleCause::kStarting) > 0);  // every node boots before it serves
  }
  // An hour's wait after each 30-minute job: 8 GPUs idle most of that hour, four times.
  CHECK(patient.total.idle_by_cause.of(IdleCause::kIdleTimeout) > 4 * 8 * 0.8);
  CHECK(quick.total.idle_by_cause.of(IdleCause::kIdleTimeout) < 8);
}

TEST_CASE("warm capacity by schedule is there in its window only", "[sim][warm]") {
  // Two jobs: at 0:30, inside the 00:00-01:00 window, and at 4:30, outside it.
  const Trace trace = Parse(
      absl::StrCat(R"({"at": 1800, "name": "in", "runFor": "30m", "pod": )", kTrainer, "}\n",
                   R"({"at": 16200, "name": "out", "runFor": "30m", "pod": )", kTrainer, "}\n"));
  SimulationOptions o = Options(absl::ZeroDuration());
  o.groups[0].warm.schedule = *ReplicaSchedule::Parse("00:00-01:00=1");
  const SimulationResult r = Run(trace, o);
  CHECK(r.pods_finished == 2);
  CHECK(r.total.gpu_pending.p50 < 15);        // the first found its node warm
  CHECK(r.total.gpu_pending.max > 120);       // the second waited for one
  CHECK(r.total.node_hours < 1.0 + 2 * 0.6);  // nothing kept warm past the window
}

TEST_CASE("a node-group file's warm section is read, and a wrong one named", "[sim][warm]") {
  const std::string head = R"(nodeGroups:
- id: h100
  maxSize: 2
  template: {status: {allocatable: {cpu: "8", nvidia.com/gpu: "8"}}}
)";
  auto ok = ParseNodeGroupFile(head + "  warm: {nodes: 1, schedule: \"07:00-19:00=2\"}\n", "g");
  REQUIRE(ok.ok());
  CHECK(ok->front().warm.nodes == 1);
  CHECK(ok->front().warm.schedule->ToString() == "07:00-19:00=2");
  for (const char* bad : {"  warm: {nodes: 3}\n", "  warm: {node: 1}\n",
                          "  warm: {schedule: \"7-19=1\"}\n", "  warm: {nodes: -1}\n"}) {
    auto parsed = ParseNodeGroupFile(head + bad, "g");
    INFO(bad);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(std::string(parsed.status().message()),
               Catch::Contains("node group h100") && Catch::Contains("warm"));
  }
}

TEST_CASE("a warm MIG node is held in the first layout its group lists", "[sim][warm]") {
  auto groups = ParseNodeGroupFile(R"(nodeGroups:
- id: h100-mig
  maxSize: 2
  template:
    metadata:
      labels:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
        nvidia.com/gpu.count: "8"
        nvidia.com/mig.strategy: mixed
      annotations:
        gpu-autoscaler.io/mig-layouts: all-1g.10gb,all-balanced
    status: {allocatable: {cpu: "190"}}
  warm: {nodes: 1}
)",
                                   "g");
  REQUIRE(groups.ok());
  const NodeTemplate& t = groups->front().spec.node_template;
  auto gpus = ReadGpuInventory(t.labels, t.annotations, t.allocatable, "h100-mig");
  REQUIRE(gpus.ok());
  REQUIRE(gpus->has_value());
  const WarmObjects warm = WarmBuffersOf(groups->front(), *gpus);
  // all-1g, listed first, offers one kind of device (56 of them); all-balanced would offer three.
  REQUIRE(warm.templates.size() == 1);
  CHECK(warm.templates[0]->name == "warm-h100-mig-nvidia-com-mig-1g-10gb");
  REQUIRE(warm.buffers.size() == 1);
  CHECK(warm.buffers[0]->replicas == 56);
}

}  // namespace
}  // namespace gpua::sim
