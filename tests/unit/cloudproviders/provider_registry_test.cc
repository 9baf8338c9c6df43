// The provider registry: --cloud-provider finds a factory by name, and what a factory refuses
// is said with the flag it is about.
#include "cloudproviders/provider_registry.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "base/clock.h"
#include "base/log.h"
#include "cloudproviders/simulated/simulated_cloud.h"

namespace gpua {
namespace {

TEST_CASE("this build's providers are externalgrpc, simulated and clusterapi, found by name",
          "[cloudproviders][registry]") {
  const ProviderRegistry& r = ProviderRegistry::Builtin();
  CHECK(r.Names() == std::vector<std::string>{"externalgrpc", "simulated", "clusterapi"});
  CHECK(r.NamesText() == "externalgrpc, simulated or clusterapi");
  REQUIRE(r.Find("simulated") != nullptr);
  CHECK(r.Find("aws") == nullptr);
}

TEST_CASE("an unknown provider, a missing cloud-config and discovery specs are refused by name",
          "[cloudproviders][registry]") {
  const ProviderRegistry& r = ProviderRegistry::Builtin();
  ManualClock clock(absl::FromUnixSeconds(1000));
  MemoryLogSink log;
  ProviderContext c;
  c.clock = &clock;
  c.log = &log;
  auto unknown = r.Create("aws", c);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().message() ==
        "unknown cloud provider \"aws\": this build has externalgrpc, simulated or clusterapi");
  auto no_config = r.Create("simulated", c);
  REQUIRE_FALSE(no_config.ok());
  CHECK(no_config.status().message() ==
        "--cloud-config is required with --cloud-provider=simulated (the node-group file)");
  c.cloud_config = "groups.yaml";
  c.auto_discovery = {"asg:tag=k8s.io/cluster-autoscaler/enabled"};
  auto discovery = r.Create("externalgrpc", c);
  REQUIRE_FALSE(discovery.ok());
  CHECK_THAT(std::string(discovery.status().message()),
             Catch::StartsWith("--node-group-auto-discovery is not meaningful for "
                               "--cloud-provider=externalgrpc: the plugin lists the groups"));
}

TEST_CASE("the simulated provider is built from the node-group file its cloud-config names",
          "[cloudproviders][registry]") {
  const std::string path = "provider_registry_test_groups.yaml";
  std::ofstream(path) << R"(nodeGroups:
- id: a100
  maxSize: 4
  template:
    status:
      allocatable: {cpu: "8", memory: 64Gi, pods: "110", nvidia.com/gpu: "1"}
)";
  ManualClock clock(absl::FromUnixSeconds(1000));
  MemoryLogSink log;
  ProviderContext c;
  c.cloud_config = path;
  c.clock = &clock;
  c.log = &log;
  auto provider = ProviderRegistry::Builtin().Create("simulated", c);
  REQUIRE(provider.ok());
  CHECK((*provider)->Name() == "simulated");
  auto groups = (*provider)->NodeGroups();
  REQUIRE(groups.ok());
  REQUIRE(groups->size() == 1);
  CHECK((*groups)[0]->Id() == "a100");
  std::remove(path.c_str());
}

TEST_CASE("a new provider is one Add: twice, nameless or without a factory is refused",
          "[cloudproviders][registry]") {
  ProviderRegistry r;
  int built = 0;
  ProviderFactory f;
  f.name = "test";
  f.cloud_config_help = "anything";
  f.check_auto_discovery = [](const std::vector<std::string>& specs) {
    return specs[0].rfind("test:", 0) == 0 ? absl::OkStatus()
                                           : absl::InvalidArgumentError("only test: specs");
  };
  f.create = [&](const ProviderContext& c) -> absl::StatusOr<std::unique_ptr<CloudProvider>> {
    ++built;
    CHECK(c.auto_discovery == std::vector<std::string>{"test:zone=a"});
    return absl::UnimplementedError("the test builds none");
  };
  REQUIRE(r.Add(f).ok());
  CHECK(r.Add(f).code() == absl::StatusCode::kAlreadyExists);
  CHECK_FALSE(r.Add(ProviderFactory{}).ok());
  ProviderFactory no_create;
  no_create.name = "empty";
  CHECK_FALSE(r.Add(no_create).ok());
  CHECK(r.Names() == std::vector<std::string>{"test"});
  CHECK(r.CheckAutoDiscovery("test", {"aws:x"}).message() == "only test: specs");
  ProviderContext c;
  c.cloud_config = "x";
  c.auto_discovery = {"test:zone=a"};
  CHECK(r.Create("test", c).status().code() == absl::StatusCode::kUnimplemented);
  CHECK(built == 1);
}

}  // namespace
}  // namespace gpua
