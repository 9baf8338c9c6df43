// What the controller reads of the cloud each loop: a group's GPU inventory is read from its
// template once and kept while the template says the same, so what is worked out from it
// (names, shares, what it advertises) is worked out once; a template that cannot be read is
// reported every loop.
#include "autoscaler/controller/provider_snapshot.h"

#include <catch2/catch.hpp>

#include "base/clock.h"
#include "base/log.h"
#include "cloudproviders/node_group_file.h"
#include "cloudproviders/simulated/simulated_cloud.h"

namespace gpua {
namespace {

constexpr char kGroups[] = R"(
nodeGroups:
- id: h100
  maxSize: 4
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
- id: broken
  maxSize: 4
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
      annotations: {gpu-autoscaler.io/gpu-sharing: time-slicing}
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
)";

TEST_CASE("a group's GPU inventory is kept from loop to loop while its template is the same") {
  ManualClock clock;
  auto groups = ParseNodeGroupFile(kGroups, "groups.yaml");
  REQUIRE(groups.ok());
  SimulatedCloud cloud(*groups, clock);
  ControllerOptions options;
  MemoryLogSink log;
  ProviderReader reader(cloud, options, log);

  const ProviderSnapshot first = reader.Read({}, clock.Now());
  const ProviderSnapshot second = reader.Read({}, clock.Now());
  const ProviderGroup* h100 = first.Find("h100");
  REQUIRE(h100 != nullptr);
  REQUIRE(h100->gpus != nullptr);
  CHECK(h100->gpus->physical_count() == 8);
  CHECK(second.Find("h100")->gpus == h100->gpus);  // one object: its memos last
  CHECK(h100->gpus->SharedAdvertised() == second.Find("h100")->gpus->SharedAdvertised());

  // Time-slicing without a replica count cannot be planned for: said in every loop's snapshot.
  for (const ProviderSnapshot* s : {&first, &second}) {
    const ProviderGroup* broken = s->Find("broken");
    REQUIRE(broken != nullptr);
    CHECK(broken->gpus == nullptr);
    CHECK_FALSE(broken->template_error.ok());
    CHECK_THAT(std::string(broken->template_error.message()),
               Catch::Contains("node group broken: template"));
  }
}

TEST_CASE("instances are indexed by ID: the last group listing one has it, at its first listing") {
  ProviderSnapshot snapshot;
  snapshot.groups.resize(2);
  snapshot.groups[0].instances = {{"sim://a", InstanceState::kRunning, {}},
                                  {"sim://b", InstanceState::kRunning, {}},
                                  {"sim://a", InstanceState::kDeleting, {}}};
  snapshot.groups[1].instances = {{"sim://c", InstanceState::kRunning, {}},
                                  {"sim://b", InstanceState::kCreating, {}}};
  snapshot.IndexInstances();
  REQUIRE(snapshot.instance_listing.size() == 3);
  CHECK(snapshot.instance_listing.at("sim://a").group == 0);
  CHECK(snapshot.instance_listing.at("sim://a").index == 0);
  CHECK(snapshot.instance_listing.at("sim://b").group == 1);  // listed by both: the last
  CHECK(snapshot.instance_listing.at("sim://b").index == 1);
  CHECK(snapshot.first_listing[0] == std::vector<size_t>{0, 1, 0});  // a repeat: its first
  CHECK(snapshot.first_listing[1] == std::vector<size_t>{0, 1});
  // A snapshot moved keeps its index: the IDs it names stay where they were.
  ProviderSnapshot moved = std::move(snapshot);
  CHECK(moved.instance_listing.at("sim://c").group == 1);
  CHECK(moved.instance_listing.find("sim://c")->first.data() ==
        moved.groups[1].instances[0].id.data());
}

}  // namespace
}  // namespace gpua
