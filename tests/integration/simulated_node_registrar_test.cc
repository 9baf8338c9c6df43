// The example plugin as the cloud of a development cluster: the simulated cloud's instances
// become Nodes of the (fake) API server and go when the instances go; others' Nodes stay, those
// of another plugin's groups in the same cluster among them.
#include "autoscaler/cli/simulated_node_registrar.h"

#include <catch2/catch.hpp>
#include <memory>

#include "absl/strings/str_cat.h"
#include "tests/support/config_files.h"
#include "tests/support/dra_pools.h"
#include "tests/support/fake_api_server.h"

namespace gpua::kube {
namespace {

constexpr char kGroups[] = R"(
nodeGroups:
- id: l4
  maxSize: 4
  template:
    metadata: {labels: {nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "1"}}
    spec: {taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
    status: {allocatable: {cpu: "8", memory: 32Gi, pods: "58", nvidia.com/gpu: "1"}}
  simulation:
    provisioningDelay: {p50: 1m, p95: 1m}
    gpuReadyDelay: {p50: 2m, p95: 2m}
)";

TEST_CASE(
    "each new instance of the example plugin becomes a Node, gets its GPUs when they are "
    "ready, and goes with its instance",
    "[example-plugin][cluster]") {
  ManualClock clock;
  const std::vector<NodeGroupConfig> groups = *ParseNodeGroupFile(kGroups, "groups.yaml");
  SimulatedCloud cloud(groups, clock);
  testing::FakeApiServer api;
  api.Upsert("nodes", {{"metadata", {{"name", "control-plane"}}}});
  // Registered by another example plugin on this cluster, for a group this one does not serve.
  for (const char* other : {"a100", "l4x"}) {
    api.Upsert(
        "nodes",
        {{"metadata",
          {{"name", absl::StrCat(other, "-0")}, {"labels", {{kSimulatedInstanceLabel, "true"}}}}},
         {"spec", {{"providerID", absl::StrCat("sim://", other, "/0")}}}});
  }
  auto rest = ResolveRestConfig(testing::KubeconfigFor(api.url(), "gpua-registrar.kubeconfig"), "",
                                ProcessEnv);
  REQUIRE(rest.ok());
  auto client = ApiClient::Create(*rest, clock);
  REQUIRE(client.ok());
  MemoryLogSink log;
  SimulatedNodeRegistrar registrar(**client, cloud, groups, clock, log);

  auto l4 = *FindNodeGroup(cloud, "l4");
  REQUIRE(l4->IncreaseSize(1).ok());
  registrar.Sync();
  CHECK_FALSE(api.Get("nodes", "", "l4-0").has_value());  // still creating

  clock.Advance(absl::Minutes(1) + absl::Seconds(1));
  registrar.Sync();
  std::optional<nlohmann::json> node = api.Get("nodes", "", "l4-0");
  REQUIRE(node.has_value());
  CHECK((*node)["spec"]["providerID"] == "sim://l4/0");
  CHECK((*node)["metadata"]["labels"]["nvidia.com/gpu.product"] == "NVIDIA-L4");
  CHECK((*node)["metadata"]["labels"][kSimulatedInstanceLabel] == "true");
  CHECK((*node)["spec"]["taints"][0]["key"] == "nvidia.com/gpu");
  CHECK((*node)["status"]["allocatable"]["cpu"] == "8");
  CHECK_FALSE((*node)["status"]["allocatable"].contains("nvidia.com/gpu"));  // driver starting

  clock.Advance(absl::Minutes(3));
  registrar.Sync();
  CHECK((*api.Get("nodes", "", "l4-0"))["status"]["allocatable"]["nvidia.com/gpu"] == "1");

  REQUIRE(l4->DeleteNodes({{"sim://l4/0", "l4-0", {}, {}}}).ok());
  clock.Advance(absl::Minutes(5));
  registrar.Sync();
  CHECK_FALSE(api.Get("nodes", "", "l4-0").has_value());
  CHECK(api.Get("nodes", "", "control-plane").has_value());  // not ours: never touched
  CHECK(api.Get("nodes", "", "a100-0").has_value());         // another plugin's
  CHECK(api.Get("nodes", "", "l4x-0").has_value());
  CHECK(log.Contains("Registered node l4-0 for instance sim://l4/0"));
  CHECK(log.Contains("Deleted node l4-0: its instance is gone"));
}

TEST_CASE(
    "the example plugin publishes a DRA pool's slices owned by their Node once its GPUs are up, "
    "and deletes them with it, also after a restart",
    "[example-plugin][cluster][dra]") {
  ManualClock clock;
  const std::vector<NodeGroupConfig> groups =
      *ParseNodeGroupFile(testing::DraNodeGroups(), "groups.yaml");
  SimulatedCloud cloud(groups, clock);
  testing::FakeApiServer api;
  auto rest = ResolveRestConfig(testing::KubeconfigFor(api.url(), "gpua-registrar-dra.kubeconfig"),
                                "", ProcessEnv);
  REQUIRE(rest.ok());
  auto client = ApiClient::Create(*rest, clock);
  REQUIRE(client.ok());
  MemoryLogSink log;
  auto first = std::make_unique<SimulatedNodeRegistrar>(**client, cloud, groups, clock, log);
  auto h100 = *FindNodeGroup(cloud, "h100-dra");
  REQUIRE(h100->IncreaseSize(1).ok());
  clock.Advance(absl::Seconds(31));  // running, its driver not yet up
  first->Sync();
  std::optional<nlohmann::json> node = api.Get("nodes", "", "h100-dra-0");
  REQUIRE(node.has_value());
  CHECK(api.List("resourceslices").empty());
  CHECK_FALSE((*node)["status"]["allocatable"].contains("nvidia.com/gpu"));  // devices, not this

  clock.Advance(absl::Seconds(30));
  first->Sync();
  const std::vector<nlohmann::json> slices = api.List("resourceslices");
  REQUIRE_FALSE(slices.empty());
  for (const nlohmann::json& s : slices) {
    CHECK(s["spec"]["nodeName"] == "h100-dra-0");
    REQUIRE(s["metadata"]["ownerReferences"].size() == 1);
    CHECK(s["metadata"]["ownerReferences"][0]["kind"] == "Node");
    CHECK(s["metadata"]["ownerReferences"][0]["uid"] == (*node)["metadata"]["uid"]);
  }
  CHECK_FALSE(
      (*api.Get("nodes", "", "h100-dra-0"))["status"]["allocatable"].contains("nvidia.com/gpu"));

  // A new process that never published them still deletes them with the node.
  first.reset();
  SimulatedNodeRegistrar second(**client, cloud, groups, clock, log);
  REQUIRE(h100->DeleteNodes({{"sim://h100-dra/0", "h100-dra-0", {}, {}}}).ok());
  clock.Advance(absl::Minutes(5));
  second.Sync();
  CHECK_FALSE(api.Get("nodes", "", "h100-dra-0").has_value());
  CHECK(api.List("resourceslices").empty());
}

TEST_CASE("a cluster that refuses the registrar is logged, and the next pass tries again",
          "[example-plugin][cluster]") {
  ManualClock clock;
  const std::vector<NodeGroupConfig> groups = *ParseNodeGroupFile(kGroups, "groups.yaml");
  SimulatedCloud cloud(groups, clock);
  testing::FakeApiServer api;
  auto rest = ResolveRestConfig(testing::KubeconfigFor(api.url(), "gpua-registrar-2.kubeconfig"),
                                "", ProcessEnv);
  auto client = ApiClient::Create(*rest, clock);
  REQUIRE(client.ok());
  MemoryLogSink log;
  SimulatedNodeRegistrar registrar(**client, cloud, groups, clock, log);
  REQUIRE((*FindNodeGroup(cloud, "l4"))->IncreaseSize(1).ok());
  clock.Advance(absl::Minutes(2));
  api.FailNext(1, 403);
  registrar.Sync();
  CHECK(log.Contains("listing nodes: HTTP 403"));
  CHECK_FALSE(api.Get("nodes", "", "l4-0").has_value());
  registrar.Sync();
  CHECK(api.Get("nodes", "", "l4-0").has_value());
}

}  // namespace
}  // namespace gpua::kube
