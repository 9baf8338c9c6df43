// DRA in `simulate`: traces carry DeviceClasses and claim templates, the simulated drivers
// publish each node's devices, the simulated scheduler allocates them as kube-scheduler's DRA
// plugin does, the controller plans with them, and the bounds count devices as GPUs.
#include <sys/types.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>

#include "absl/strings/str_cat.h"
#include "autoscaler/sim/sim_cluster.h"
#include "autoscaler/sim/sim_scheduler.h"
#include "autoscaler/sim/simulation.h"
#include "autoscaler/sim/trace.h"
#include "base/clock.h"
#include "cloudproviders/node_group_file.h"
#include "tests/support/dra_pools.h"

namespace gpua::sim {
namespace {

// The DRA pools (an 8-GPU H100 pool, a one-GPU A100 pool: dra_pools.h) and a CPU pool.
const std::string kGroups = testing::DraNodeGroups(R"(- id: cpu
  maxSize: 4
  pricePerHour: 0.5
  template:
    status:
      allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
)");

constexpr char kClasses[] =
    R"json({"object": {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.nvidia.com"}, "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}}]}}}
{"object": {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "mig.nvidia.com"}, "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"}}]}}}
{"object": {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": "one-h100"}, "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "selectors": [{"cel": {"expression": "device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA H100')"}}]}}]}}}}}
{"object": {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": "small-mig"}, "spec": {"spec": {"devices": {"requests": [{"name": "mig", "exactly": {"deviceClassName": "mig.nvidia.com", "selectors": [{"cel": {"expression": "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"}}]}}]}}}}}
)json";

// A pod claiming through `claim` ("template:one-h100" or "claim:shared").
std::string PodWithClaim(const std::string& claim) {
  const bool by_template = claim.rfind("template:", 0) == 0;
  const std::string field = by_template ? "resourceClaimTemplateName" : "resourceClaimName";
  const std::string name = claim.substr(claim.find(':') + 1);
  return absl::StrCat(
      R"({"spec": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}], "resourceClaims": [{"name": "dev", ")",
      field, R"(": ")", name,
      R"("}], "containers": [{"name": "m", "resources": {"requests": {"cpu": "4", "memory": "16Gi"}, "claims": [{"name": "dev"}]}}]}})");
}

std::string Line(const std::string& at, const std::string& name, int count, const std::string& run,
                 const std::string& claim) {
  return absl::StrCat(R"({"at": ")", at, R"(", "name": ")", name, R"(", "count": )", count,
                      R"(, "runFor": ")", run, R"(", "pod": )", PodWithClaim(claim), "}\n");
}

Trace Parse(const std::string& text) {
  auto t = ParseTrace(text, "trace.jsonl", ".");
  INFO((t.ok() ? "" : std::string(t.status().message())));
  REQUIRE(t.ok());
  return *t;
}

std::vector<NodeGroupConfig> Groups() {
  auto groups = ParseNodeGroupFile(kGroups, "groups.yaml");
  INFO((groups.ok() ? "" : std::string(groups.status().message())));
  REQUIRE(groups.ok());
  return *groups;
}

std::string ParseError(const std::string& text) {
  auto t = ParseTrace(text, "trace.jsonl", ".");
  REQUIRE_FALSE(t.ok());
  return std::string(t.status().message());
}

TEST_CASE(
    "a trace reads DeviceClasses and claim templates from object lines, files and pod files") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gpua-dra-trace-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "classes.yaml")
      << "apiVersion: v1\nkind: List\nitems:\n"
         "- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass\n  metadata: {name: "
         "gpu.nvidia.com}\n"
         "  spec:\n    selectors: [{cel: {expression: \"device.driver == 'gpu.nvidia.com'\"}}]\n";
  std::ofstream(dir / "trainer.yaml")
      << "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
         "metadata: {name: two-gpus, namespace: ml}\n"
         "spec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu.nvidia.com, "
         "count: 2}}]}}}\n---\n"
         "apiVersion: v1\nkind: Pod\nspec:\n  resourceClaims: [{name: g, "
         "resourceClaimTemplateName: two-gpus}]\n"
         "  containers: [{name: m, resources: {claims: [{name: g}]}}]\n";
  std::ofstream(dir / "trace.jsonl")
      << R"({"objects": "classes.yaml"})"
      << "\n"
      << R"({"at": 0, "name": "t", "namespace": "ml", "runFor": "1h", "podTemplate": "trainer.yaml"})"
      << "\n"
      << R"({"object": {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "shared"}, "spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}}})"
      << "\n"
      << R"({"at": 0, "name": "s", "runFor": "1h", "pod": )" << PodWithClaim("claim:shared")
      << "}\n";
  auto trace = ReadTraceFile((dir / "trace.jsonl").string());
  std::filesystem::remove_all(dir);
  INFO((trace.ok() ? "" : std::string(trace.status().message())));
  REQUIRE(trace.ok());
  REQUIRE(trace->dra != nullptr);
  CHECK(trace->dra->classes->contains("gpu.nvidia.com"));
  CHECK(trace->dra->catalog.templates.contains("ml/two-gpus"));
  CHECK(trace->dra->catalog.claims.contains("default/shared"));
  REQUIRE(trace->arrivals.size() == 2);
  CHECK(trace->arrivals[0].gpu);  // a pod with claims counts with the GPU pods
  // TraceUntil keeps them.
  CHECK(TraceUntil(*trace, absl::Minutes(30)).dra == trace->dra);
}

TEST_CASE("a trace whose claims name what it does not carry is refused, naming the line") {
  CHECK_THAT(ParseError(kClasses + Line("0", "p", 1, "1h", "template:missing")),
             Catch::Contains("trace.jsonl line 5: pod p: claim dev: ResourceClaimTemplate "
                             "default/missing not found"));
  CHECK_THAT(ParseError(Line("0", "p", 1, "1h", "claim:shared")),
             Catch::Contains("line 1: pod p: claim dev: ResourceClaim default/shared not found"));
  const std::string no_class =
      R"({"object": {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": "t"}, "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "typo.nvidia.com"}}]}}}}})"
      "\n";
  CHECK_THAT(ParseError(no_class + Line("0", "p", 1, "1h", "template:t")),
             Catch::Contains("line 2: pod p: claim dev, request gpu: DeviceClass typo.nvidia.com "
                             "is not in the trace"));
  CHECK_THAT(
      ParseError(R"({"object": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}}})"
                 "\n"),
      Catch::Contains("line 1: object: a Pod is not what a trace carries"));
  CHECK_THAT(
      ParseError(
          R"({"object": {"kind": "DeviceClass", "metadata": {"name": "x"}, "spec": {"selectors": "all"}}})"
          "\n"),
      Catch::Contains("line 1: object:"));
  CHECK_THAT(ParseError(R"({"object": {"metadata": {"name": "x"}}})"
                        "\n"),
             Catch::Contains("line 1: object: an object without a kind is not what a trace"));
  CHECK_THAT(ParseError(R"({"objects": "a.yaml", "object": {}})"
                        "\n"),
             Catch::Contains("give one of objects and object"));
  CHECK_THAT(ParseError(R"({"objects": "no-such-file.yaml"})"
                        "\n"),
             Catch::Contains("line 1: objects:"));
}

// The cluster's claims by name, from a fresh view.
std::map<std::string, ResourceClaimPtr> ClaimsOf(const SimCluster& cluster) {
  std::map<std::string, ResourceClaimPtr> out;
  for (const ResourceClaimPtr& c : cluster.View()->resource_claims) out[c->Key()] = c;
  return out;
}

TEST_CASE("the simulated scheduler gives each pod devices of its own and frees them when it ends") {
  ManualClock clock;
  const std::vector<NodeGroupConfig> groups = Groups();
  const Trace trace = Parse(kClasses + Line("0", "p", 10, "1h", "template:one-h100"));
  SimCluster cluster(groups, clock, trace.dra);
  SimScheduler scheduler(Scoring::kLeastAllocated);
  const absl::Time t = clock.Now();
  // One node's GPUs are up, the other's not yet: its devices are not published.
  cluster.SyncNodes({{"h100-dra", "sim://h100-dra/a", t, t, std::nullopt},
                     {"h100-dra", "sim://h100-dra/b", t, t + absl::Hours(1), std::nullopt}});
  const auto slice_nodes = [&] {
    std::set<std::string> nodes;
    for (const ResourceSlicePtr& s : cluster.View()->resource_slices) nodes.insert(s->node_name);
    return nodes;
  };
  CHECK(slice_nodes() == std::set<std::string>{"h100-dra-a"});
  cluster.Arrive(trace.arrivals[0]);
  scheduler.Run(cluster);
  int bound = 0;
  for (const auto& [key, pod] : cluster.pods()) bound += pod.node == "h100-dra-a";
  CHECK(bound == 8);  // eight GPUs, two pods left pending
  CHECK(cluster.View()->unschedulable.size() == 2);

  // Every bound pod's claim is made, allocated on its node, one device each.
  const std::map<std::string, ResourceClaimPtr> claims = ClaimsOf(cluster);
  REQUIRE(claims.size() == 8);
  std::set<std::string> devices;
  for (const auto& [key, c] : claims) {
    REQUIRE(c->allocation != nullptr);
    REQUIRE(c->allocation->devices.size() == 1);
    CHECK(c->allocation->devices[0].pool == "h100-dra-a-template");
    devices.insert(c->allocation->devices[0].device);
  }
  CHECK(devices.size() == 8);
  const PodObject& p0 = *cluster.pod("default/p-0").object;
  REQUIRE(p0.spec.claim_refs.size() == 1);
  CHECK(p0.spec.claim_refs[0].made_claim == "p-0-dev");
  CHECK(claims.contains("default/p-0-dev"));
  CHECK(cluster.gpus_in_use().at("h100-dra") == 8);

  // The second node's driver publishes: the two pending pods go there.
  clock.Advance(absl::Hours(1));
  cluster.SyncNodes({{"h100-dra", "sim://h100-dra/a", t, t, std::nullopt},
                     {"h100-dra", "sim://h100-dra/b", t, t + absl::Hours(1), std::nullopt}});
  scheduler.Run(cluster);
  CHECK(cluster.View()->unschedulable.empty());
  CHECK(ClaimsOf(cluster).size() == 10);

  // The first ten end an hour after binding: their claims go and the devices are free.
  cluster.EndDuePods();
  CHECK(ClaimsOf(cluster).size() == 2);
  CHECK(cluster.gpus_in_use().at("h100-dra") == 2);
  // A node that goes takes its pods' claims and its slices with it.
  cluster.SyncNodes({{"h100-dra", "sim://h100-dra/a", t, t, std::nullopt}});
  CHECK(slice_nodes() == std::set<std::string>{"h100-dra-a"});
  for (const auto& [key, c] : ClaimsOf(cluster)) {
    CHECK(c->allocation->devices[0].pool == "h100-dra-a-template");  // the pods made again
  }
}

TEST_CASE("a shared claim is allocated once, pins its pods to its node, and is freed by the last") {
  ManualClock clock;
  const std::vector<NodeGroupConfig> groups = Groups();
  const std::string shared =
      R"({"object": {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "shared"}, "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 2}}]}}}})"
      "\n";
  const Trace trace = Parse(kClasses + shared + Line("0", "a", 1, "1h", "claim:shared") +
                            Line("0", "b", 1, "2h", "claim:shared"));
  SimCluster cluster(groups, clock, trace.dra);
  SimScheduler scheduler(Scoring::kLeastAllocated);
  const absl::Time t = clock.Now();
  cluster.SyncNodes({{"h100-dra", "sim://h100-dra/x", t, t, std::nullopt},
                     {"h100-dra", "sim://h100-dra/y", t, t, std::nullopt}});
  cluster.Arrive(trace.arrivals[0]);
  scheduler.Run(cluster);
  cluster.Arrive(trace.arrivals[1]);
  scheduler.Run(cluster);
  // The least allocated node would be the other one; the claim's devices are on the first.
  CHECK(cluster.pod("default/a").node == cluster.pod("default/b").node);
  ResourceClaimPtr claim = ClaimsOf(cluster).at("default/shared");
  REQUIRE(claim->allocation != nullptr);
  CHECK(claim->allocation->devices.size() == 2);
  CHECK(claim->reserved_for.size() == 2);
  // As the scheduler writes a node-local allocation: for that node alone.
  REQUIRE(claim->allocation->node_selector.has_value());
  CHECK(claim->allocation->node_selector->Matches({}, cluster.pod("default/a").node));
  CHECK_FALSE(claim->allocation->node_selector->Matches({}, "elsewhere"));
  CHECK(cluster.gpus_in_use().at("h100-dra") == 2);  // its devices count once

  clock.Advance(absl::Hours(1));
  cluster.EndDuePods();
  claim = ClaimsOf(cluster).at("default/shared");
  CHECK(claim->allocation != nullptr);  // b still uses it
  clock.Advance(absl::Hours(1));
  cluster.EndDuePods();
  claim = ClaimsOf(cluster).at("default/shared");
  CHECK(claim->allocation == nullptr);
  CHECK(claim->reserved_for.empty());
}

SimulationOptions Options() {
  SimulationOptions o;
  o.groups = Groups();
  o.controller.scale_down.enabled = true;
  for (NodeGroupConfig& g : o.groups) g.options.scale_down_unneeded_time = absl::Minutes(10);
  return o;
}

const Figures& Of(const SimulationResult& r, const std::string& group) {
  for (const GroupFigures& g : r.groups) {
    if (g.id == group) return g.figures;
  }
  FAIL("no group " << group);
  return r.total;
}

TEST_CASE(
    "eight pods claiming one GPU each bring one 8-GPU node from zero, and it goes when idle") {
  const Trace trace = Parse(kClasses + Line("0", "p", 8, "2h", "template:one-h100"));
  auto result = Simulate(trace, Options());
  REQUIRE(result.ok());
  const Figures& h100 = Of(*result, "h100-dra");
  CHECK(h100.scale_ups == 1);
  CHECK(h100.scale_downs == 1);
  CHECK(result->pods_finished == 8);
  CHECK(h100.gpu_hours_used == Approx(16).epsilon(0.01));
  CHECK(h100.gpu_hours_billed == Approx(h100.node_hours * 8));
  CHECK(Of(*result, "cpu").scale_ups == 0);
  // The bounds count the claimed GPUs: a share bound near 16 GPU-hours of H100, not the
  // cpu share a pod without devices would be billed.
  CHECK(result->total.lower_bound_cost_usd >= 16 * 98.32 / 8 * 0.99);
  CHECK(result->total.packing_bound_cost_usd >= 2 * 98.32 * 0.99);
  CHECK(result->total.cost_usd >= result->total.packing_bound_cost_usd);
}

TEST_CASE("a pod whose shared claim holds its node's devices is not moved off it") {
  // s's claim takes every GPU of its node; t's pods leave room on theirs. Were the claim's
  // allocation not tied to its node, consolidation would evict s again and again.
  const std::string all =
      R"json({"object": {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "all"}, "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "allocationMode": "All", "selectors": [{"cel": {"expression": "device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA H100')"}}]}}]}}}})json"
      "\n";
  const Trace trace = Parse(kClasses + all + Line("0", "t", 3, "3h", "template:one-h100") +
                            Line("10m", "s", 1, "1h", "claim:all"));
  auto result = Simulate(trace, Options());
  REQUIRE(result.ok());
  CHECK(result->pods_restarted == 0);
  CHECK(result->pods_finished == 4);
  CHECK(Of(*result, "h100-dra").scale_ups == 2);
}

TEST_CASE("fourteen claims for 1g.10gb partitions bring two one-A100 nodes") {
  const Trace trace = Parse(kClasses + Line("0", "m", 14, "1h", "template:small-mig"));
  auto result = Simulate(trace, Options());
  REQUIRE(result.ok());
  CHECK(Of(*result, "a100-mig-dra").scale_ups == 2);
  CHECK(Of(*result, "h100-dra").scale_ups == 0);
  CHECK(result->pods_finished == 14);
  CHECK(result->total.gpu_pending.max < 10 * 60);
}

}  // namespace
}  // namespace gpua::sim
