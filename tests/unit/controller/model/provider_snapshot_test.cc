// What the controller reads of the cloud each loop: a group's GPU inventory is read from its
// template once and kept while the template says the same, so what is worked out from it
// (names, shares, what it advertises) is worked out once; a template that cannot be read is
// reported every loop.
#include "autoscaler/controller/model/provider_snapshot.h"

#include <catch2/catch.hpp>

#include "base/clock.h"
#include "base/log.h"
#include "cloudproviders/node_group_file.h"
#include "cloudproviders/simulated/simulated_cloud.h"
#include "tests/support/fake_cloud_provider.h"
#include "tests/unit/controller/controller_test_util.h"

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

namespace gpua::testing {
namespace {

TEST_CASE("a group whose provider has no template is templated from a ready node of it",
          "[controller][provider]") {
  ManualClock clock;
  FakeCloudProvider cloud;
  FakeNodeGroup& a100 = cloud.AddGroup("a100", 0, 4, A100Template());
  a100.failing["TemplateNode"] = NotImplemented("TemplateNodeInfo");
  FakeNodeGroup& empty = cloud.AddGroup("empty", 0, 4, A100Template());
  empty.failing["TemplateNode"] = NotImplemented("TemplateNodeInfo");
  auto booting = std::make_shared<NodeObject>(
      *NodeOf("a100-0", A100Template(), clock.Now(), true, /*with_gpus=*/false));
  booting->provider_id = a100.AddRunning();
  auto running = std::make_shared<NodeObject>(*NodeOf("a100-1", A100Template(), clock.Now()));
  running->provider_id = a100.AddRunning();
  running->node.labels["kubernetes.io/hostname"] = "a100-1";
  running->node.labels["nvidia.com/mig.config"] = "all-disabled";
  running->node.taints = {{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule},
                          {"node.kubernetes.io/not-ready", "", TaintEffect::kNoExecute}};
  running->annotations = {{"gpu-autoscaler.io/driver-version", "550.54"},
                          {"node.alpha.kubernetes.io/ttl", "0"}};
  ControllerOptions options;
  MemoryLogSink log;
  ProviderReader reader(cloud, options, log);
  const ProviderSnapshot s = reader.Read({booting, running}, clock.Now());

  const ProviderGroup* g = s.Find("a100");
  REQUIRE(g != nullptr);
  REQUIRE(g->usable());
  const NodeTemplate& t = *g->node_template;
  CHECK(t.allocatable.Get("nvidia.com/gpu").Value() == 8);  // the node whose GPUs are up
  CHECK_FALSE(t.labels.contains("kubernetes.io/hostname"));
  CHECK_FALSE(t.labels.contains("nvidia.com/mig.config"));
  REQUIRE(t.taints.size() == 1);  // not the start-up taint
  CHECK(t.taints[0].key == "nvidia.com/gpu");
  CHECK(t.annotations == Labels{{"gpu-autoscaler.io/driver-version", "550.54"}});
  REQUIRE(g->gpus != nullptr);
  CHECK(g->gpus->physical_count() == 8);

  // At zero there is no node to read: not planned for, not backed off, and the reason said.
  const ProviderGroup* none = s.Find("empty");
  REQUIRE(none != nullptr);
  CHECK(none->call_error.ok());
  CHECK_FALSE(none->usable());
  CHECK_THAT(std::string(none->template_error.message()), Catch::Contains("TemplateNodeInfo"));
}

}  // namespace
}  // namespace gpua::testing
