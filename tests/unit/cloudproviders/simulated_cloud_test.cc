// The simulated cloud: instances come up after their delay, fail in a stockout, are reclaimed
// after a spot notice and replaced, and the size rules match cluster-autoscaler's.
#include "cloudproviders/simulated/simulated_cloud.h"

#include <catch2/catch.hpp>

#include "cloudproviders/node_group_file.h"
#include "cloudproviders/simulated/simulated_node.h"
#include "estimator/dra/resource_slice.h"
#include "kubeobjects/resource_slices.h"

namespace gpua {
namespace {

constexpr char kGroups[] = R"(
nodeGroups:
- id: h100-spot
  minSize: 0
  maxSize: 4
  pricePerHour: 40
  capacityType: spot
  template:
    metadata: {labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
    status: {allocatable: {cpu: "190", nvidia.com/gpu: "8", pods: "110"}}
  options: {scaleDownUnneededTime: 5m}
  simulation:
    provisioningDelay: {p50: 90s, p95: 4m}
    gpuReadyDelay: {p50: 3m, p95: 3m}
    spotInterruptionsPerHour: 2
- id: a100
  maxSize: 4
  pricePerHour: 30
  template:
    status: {allocatable: {cpu: "96", nvidia.com/gpu: "8", pods: "110"}}
  simulation:
    provisioningDelay: {p50: 90s, p95: 4m}
- id: cpu
  minSize: 1
  maxSize: 3
  targetSize: 1
  pricePerHour: 0.5
  template:
    status: {allocatable: {cpu: "16", pods: "110"}}
)";

struct Fixture {
  ManualClock clock;
  SimulatedCloud cloud;
  Fixture(SimulatedCloudOptions options = {})
      : cloud(*ParseNodeGroupFile(kGroups, "groups.yaml"), clock, options) {}

  std::shared_ptr<NodeGroup> Group(const std::string& id) {
    auto group = FindNodeGroup(cloud, id);
    REQUIRE(group.ok());
    return *group;
  }
  std::vector<Instance> Instances(const std::string& id) { return *Group(id)->Nodes(); }
};

TEST_CASE("an instance is creating for its provisioning delay, then running", "[simulated]") {
  Fixture f;
  auto a100 = f.Group("a100");
  REQUIRE(a100->IncreaseSize(2).ok());
  CHECK(*a100->TargetSize() == 2);
  for (const Instance& i : f.Instances("a100")) CHECK(i.state == InstanceState::kCreating);
  f.clock.Advance(absl::Minutes(30));  // far past any likely draw from p50 90s, p95 4m
  int running = 0;
  for (const Instance& i : f.Instances("a100")) running += i.state == InstanceState::kRunning;
  CHECK(*a100->TargetSize() == 2);
  CHECK(running == 2);
}

// When each of `count` new instances of `group` came up, to the second.
std::vector<absl::Duration> UpTimes(Fixture& f, const std::string& group, int count) {
  REQUIRE(f.Group(group)->IncreaseSize(count).ok());
  std::vector<absl::Duration> up(count, absl::InfiniteDuration());
  for (absl::Duration t = absl::Seconds(1); t <= absl::Minutes(30); t += absl::Seconds(1)) {
    f.clock.Advance(absl::Seconds(1));
    const std::vector<Instance> instances = f.Instances(group);
    REQUIRE(instances.size() == static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      if (instances[i].state == InstanceState::kRunning && up[i] == absl::InfiniteDuration()) {
        up[i] = t;
      }
    }
  }
  return up;
}

TEST_CASE("the same seed gives the same delays, another seed other delays", "[simulated]") {
  Fixture a, b, other(SimulatedCloudOptions{.seed = 2});
  const std::vector<absl::Duration> first = UpTimes(a, "a100", 4);
  CHECK(UpTimes(b, "a100", 4) == first);
  CHECK(UpTimes(other, "a100", 4) != first);
  for (absl::Duration d : first) CHECK(d < absl::Minutes(30));  // every one came up
}

TEST_CASE("the group's existing nodes are up from the start", "[simulated]") {
  Fixture f;
  auto cpu = f.Instances("cpu");
  REQUIRE(cpu.size() == 1);
  CHECK(cpu[0].state == InstanceState::kRunning);
}

TEST_CASE("in a stockout new instances carry an out-of-resources error and never run",
          "[simulated]") {
  Fixture f;
  f.cloud.SetStockout("h100-spot", true);
  auto h100 = f.Group("h100-spot");
  REQUIRE(h100->IncreaseSize(1).ok());
  f.clock.Advance(absl::Hours(1));
  auto instances = f.Instances("h100-spot");
  REQUIRE(instances.size() == 1);
  CHECK(instances[0].state == InstanceState::kCreating);
  REQUIRE(instances[0].error.has_value());
  CHECK(instances[0].error->error_class == InstanceErrorClass::kOutOfResources);
  // The autoscaler gives up on it: deleting a failed instance lowers the target.
  REQUIRE(h100->DeleteNodes({{instances[0].id, "", {}, {}}}).ok());
  CHECK(*h100->TargetSize() == 0);
}

TEST_CASE("a spot instance gets a notice, is reclaimed, and a replacement is asked for",
          "[simulated]") {
  Fixture f;
  auto h100 = f.Group("h100-spot");
  REQUIRE(h100->IncreaseSize(1).ok());
  const std::string first = f.Instances("h100-spot")[0].id;
  std::optional<SpotNotice> notice;
  for (int minute = 0; minute < 24 * 60 && !notice; ++minute) {
    f.clock.Advance(absl::Minutes(1));
    auto notices = f.cloud.SpotNotices();
    if (!notices.empty()) notice = notices[0];
  }
  REQUIRE(notice.has_value());  // 2 an hour: a day without one is vanishingly unlikely
  CHECK(notice->provider_id == first);
  CHECK(notice->reclaim_at - f.clock.Now() <= absl::Minutes(2));
  f.clock.Advance(absl::Minutes(3));
  auto instances = f.Instances("h100-spot");
  REQUIRE(instances.size() == 1);
  CHECK(instances[0].id != first);
  CHECK(*h100->TargetSize() == 1);
}

TEST_CASE("size rules: max on increase, min on delete, decrease only for nodes not yet up",
          "[simulated]") {
  Fixture f;
  auto cpu = f.Group("cpu");
  CHECK(cpu->IncreaseSize(3).code() == absl::StatusCode::kInvalidArgument);  // 1 + 3 > 3
  CHECK(cpu->IncreaseSize(0).code() == absl::StatusCode::kInvalidArgument);
  const Instance existing = f.Instances("cpu")[0];
  CHECK(cpu->DeleteNodes({{existing.id, "cpu-0", {}, {}}}).code() ==
        absl::StatusCode::kFailedPrecondition);  // min 1
  CHECK(cpu->DecreaseTargetSize(-1).code() == absl::StatusCode::kFailedPrecondition);
  CHECK(cpu->DeleteNodes({{"sim://h100-spot/9", "x", {}, {}}}).code() ==
        absl::StatusCode::kNotFound);
  auto h100 = f.Group("h100-spot");
  REQUIRE(h100->IncreaseSize(2).ok());
  REQUIRE(h100->DecreaseTargetSize(-1).ok());  // still creating
  CHECK(*h100->TargetSize() == 1);
}

TEST_CASE("a deleted node is deleting for a while, then gone", "[simulated]") {
  Fixture f;
  auto cpu = f.Group("cpu");
  REQUIRE(cpu->IncreaseSize(1).ok());
  f.clock.Advance(absl::Seconds(1));
  const Instance second = f.Instances("cpu")[1];
  REQUIRE(cpu->DeleteNodes({{second.id, "", {}, {}}}).ok());
  CHECK(*cpu->TargetSize() == 1);
  CHECK(f.Instances("cpu")[1].state == InstanceState::kDeleting);
  f.clock.Advance(absl::Minutes(1));
  CHECK(f.Instances("cpu").size() == 1);
}

TEST_CASE("the simulated cloud answers node groups, prices, GPU types and options", "[simulated]") {
  Fixture f;
  auto group = f.cloud.NodeGroupForNode({"sim://h100-spot/3", "n", {}, {}});
  REQUIRE(group.ok());
  REQUIRE(*group != nullptr);
  CHECK((*group)->Id() == "h100-spot");
  CHECK(*f.cloud.NodeGroupForNode({"aws:///us-east-1a/i-1", "n", {}, {}}) == nullptr);
  const absl::Time now = f.clock.Now();
  CHECK(*f.cloud.NodePrice({"sim://h100-spot/0", "n", {}, {}}, now, now + absl::Minutes(30)) ==
        Approx(20.0));
  CHECK(IsNotImplemented(f.cloud.PodPrice(PodSpec{}, now, now).status()));
  CHECK(*f.cloud.AvailableGpuTypes() == std::vector<std::string>{"NVIDIA-H100-80GB-HBM3"});
  auto options = f.Group("h100-spot")->GetOptions(AutoscalingOptions{});
  REQUIRE(options.ok());
  CHECK(options->scale_down_unneeded_time == absl::Minutes(5));
  CHECK(options->max_node_provision_time == absl::Minutes(15));  // the default
  auto t = f.Group("h100-spot")->TemplateNode();
  REQUIRE(t.ok());
  CHECK(t->allocatable.Get("nvidia.com/gpu") == Quantity::FromUnits(8));
}

TEST_CASE("injected API errors answer the next calls, then the cloud recovers", "[simulated]") {
  Fixture f;
  f.cloud.FailNextCalls(absl::UnavailableError("cloud API down"), 2);
  CHECK(f.cloud.NodeGroups().status().code() == absl::StatusCode::kUnavailable);
  CHECK(f.cloud.Refresh().code() == absl::StatusCode::kUnavailable);
  CHECK(f.cloud.NodeGroups().ok());
  f.cloud.SetLatency(absl::Seconds(3));
  const absl::Time before = f.clock.Now();
  CHECK(f.cloud.GpuLabel().ok());
  CHECK(f.clock.Now() - before == absl::Seconds(3));
}

}  // namespace
}  // namespace gpua

namespace gpua {
namespace {

TEST_CASE("a node's published slices are split as the API requires and assemble to the template",
          "[simulated][dra]") {
  auto groups = ParseNodeGroupFile(R"(
nodeGroups:
- id: h100-dra
  maxSize: 1
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
      annotations: {gpu-autoscaler.io/dra-driver: gpu.nvidia.com}
    status: {allocatable: {cpu: "190", memory: 1900Gi, pods: "110"}}
)",
                                   "groups.yaml");
  REQUIRE(groups.ok());
  const NodeTemplate& t = groups->front().spec.node_template;
  std::vector<const dra::ResourceSlice*> tmpl;
  for (const auto& s : t.resource_slices) tmpl.push_back(s.get());
  const size_t devices = dra::AssemblePools(tmpl).DeviceCount();
  REQUIRE(devices > 128);  // 8 GPUs and their MIG partitions

  std::vector<dra::ResourceSlice> published;
  for (const nlohmann::json& s : SlicesFor(t, "node-1")) {
    CHECK_FALSE((s["spec"].contains("devices") && s["spec"].contains("sharedCounters")));
    if (s["spec"].contains("devices")) CHECK(s["spec"]["devices"].size() <= 64);
    CHECK(s["spec"]["nodeName"] == "node-1");
    absl::StatusOr<dra::ResourceSlice> read = DecodeResourceSlice(JsonReader(s));
    REQUIRE(read.ok());
    published.push_back(*std::move(read));
  }
  std::vector<const dra::ResourceSlice*> raw;
  for (const dra::ResourceSlice& s : published) raw.push_back(&s);
  const dra::NodeDevices assembled = dra::AssemblePools(raw);
  CHECK(assembled.incomplete.empty());
  CHECK(assembled.DeviceCount() == devices);
  REQUIRE(assembled.pools.size() == 1);
  CHECK(assembled.pools[0].counter_sets.size() == 8);
}

}  // namespace
}  // namespace gpua
