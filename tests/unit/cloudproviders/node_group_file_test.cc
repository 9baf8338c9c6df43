#include "cloudproviders/node_group_file.h"

#include <catch2/catch.hpp>
#include <string>

#include "estimator/dra/resource_slice.h"

namespace gpua {
namespace {

const char* kGroup = R"(
nodeGroups:
- id: h100-spot
  minSize: 0
  maxSize: 10
  pricePerHour: 55.04
  capacityType: spot
  template:
    metadata: {labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
    spec: {taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
    status: {allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}}
  options: {scaleDownUnneededTime: 5m, scaleDownGpuUtilizationThreshold: 0.5}
  simulation: {provisioningDelay: {p50: 90s, p95: 4m}, spotInterruptionsPerHour: 0.02}
)";

TEST_CASE("the node-group file reads every documented field", "[node-groups]") {
  auto groups = ParseNodeGroupFile(kGroup, "groups.yaml");
  REQUIRE(groups.ok());
  REQUIRE(groups->size() == 1);
  const NodeGroupConfig& g = groups->front();
  CHECK(g.spec.id == "h100-spot");
  CHECK(g.spec.max_size == 10);
  CHECK(g.capacity_type == CapacityType::kSpot);
  CHECK(g.spec.node_template.allocatable.Get("nvidia.com/gpu").Value() == 8);
  CHECK(g.spec.node_template.taints.size() == 1);
  CHECK(*g.options.scale_down_unneeded_time == absl::Minutes(5));
  CHECK(g.simulation.provisioning_delay.p95 == absl::Minutes(4));
}

std::string Broken(const std::string& from, const std::string& to) {
  std::string text = kGroup;
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST_CASE("mistakes in the node-group file name the file, the group and the field",
          "[node-groups]") {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {Broken("maxSize: 10", "maxSize: 10\n  maxsize: 3"), "unknown key \"maxsize\""},
      {Broken("scaleDownUnneededTime: 5m", "scaleDownUnneededTime: five"),
       "options.scaleDownUnneededTime: invalid duration \"five\""},
      {Broken("minSize: 0", "minSize: 20"), "minSize 20 exceeds maxSize 10"},
      {Broken("capacityType: spot", "capacityType: reserved"), "capacityType: unknown value"},
      {Broken("memory: 1900Gi", "memory: 1900GB"), "status.allocatable[memory]: quantity"},
      {Broken("effect: NoSchedule", "effect: Never"), "effect: unknown taint effect"},
      {Broken("0.5}", "1.5}"), "scaleDownGpuUtilizationThreshold: must be between 0 and 1"},
      {std::string(kGroup) + std::string(kGroup).substr(std::string(kGroup).find("- id")),
       "duplicate node group id"},
  };
  for (const Case& c : cases) {
    INFO(c.message);
    auto groups = ParseNodeGroupFile(c.text, "groups.yaml");
    REQUIRE_FALSE(groups.ok());
    const std::string message(groups.status().message());
    CHECK_THAT(message, Catch::StartsWith("groups.yaml: "));
    CHECK_THAT(message, Catch::Contains(c.message));
  }
}

const char* kDraGroup = R"(
nodeGroups:
- id: h100-dra
  maxSize: 4
  template:
    status: {allocatable: {cpu: "190", memory: 1900Gi, pods: "110"}}
  resourceSlices:
  - apiVersion: resource.k8s.io/v1
    kind: ResourceSlice
    metadata: {name: template-gpus}
    spec:
      driver: gpu.nvidia.com
      nodeName: template
      pool: {name: template, generation: 1, resourceSliceCount: 1}
      devices:
      - {name: gpu-0, attributes: {productName: {string: NVIDIA H100}}, capacity: {memory: {value: 80Gi}}}
      - {name: gpu-1, attributes: {productName: {string: NVIDIA H100}}, capacity: {memory: {value: 80Gi}}}
)";

TEST_CASE("a group's resourceSlices are the ResourceSlices of one of its nodes",
          "[node-groups][dra]") {
  auto groups = ParseNodeGroupFile(kDraGroup, "groups.yaml");
  REQUIRE(groups.ok());
  const auto& slices = groups->front().spec.node_template.resource_slices;
  REQUIRE(slices.size() == 1);
  CHECK(slices[0]->driver == "gpu.nvidia.com");
  CHECK(slices[0]->devices.size() == 2);

  const std::string text(kDraGroup);
  const auto broken = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    auto g = ParseNodeGroupFile(t, "groups.yaml");
    REQUIRE_FALSE(g.ok());
    return std::string(g.status().message());
  };
  CHECK_THAT(broken("nodeName: template", "allNodes: true"),
             Catch::Contains("nodeGroups[0].resourceSlices[0].spec: a node group's slice must be "
                             "one node's own"));
  CHECK_THAT(broken("value: 80Gi", "value: lots"),
             Catch::Contains("nodeGroups[0].resourceSlices[0]: ResourceSlice template-gpus: "
                             "spec.devices[0].capacity[memory].value"));
  CHECK_THAT(broken("driver: gpu.nvidia.com", "drivr: gpu.nvidia.com"),
             Catch::Contains("ResourceSlice template-gpus: spec.driver: missing"));
}

TEST_CASE("a template naming a DRA driver gets the slice the driver would publish",
          "[node-groups][dra]") {
  const char* text = R"(
nodeGroups:
- id: a100-dra
  maxSize: 4
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB, nvidia.com/gpu.count: "8"}
      annotations: {gpu-autoscaler.io/dra-driver: gpu.nvidia.com}
    status: {allocatable: {cpu: "96", memory: 1Ti, pods: "110", nvidia.com/gpu: "8"}}
)";
  auto groups = ParseNodeGroupFile(text, "groups.yaml");
  REQUIRE(groups.ok());
  const NodeTemplate& t = groups->front().spec.node_template;
  CHECK_FALSE(t.allocatable.Has("nvidia.com/gpu"));
  REQUIRE(t.resource_slices.size() == 1);
  CHECK(t.resource_slices[0]->counter_sets.size() == 8);  // A100: MIG partitions over counters
  std::string no_count = text;
  for (const std::string cut : {", nvidia.com/gpu.count: \"8\"", ", nvidia.com/gpu: \"8\""}) {
    no_count.erase(no_count.find(cut), cut.size());
  }
  auto refused = ParseNodeGroupFile(no_count, "groups.yaml");
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(std::string(refused.status().message()),
             Catch::Contains("gpu-autoscaler.io/dra-driver"));
}

TEST_CASE("a template without allocatable is refused for that group", "[node-groups]") {
  auto groups = ParseNodeGroupFile(
      "nodeGroups:\n- id: empty\n  maxSize: 1\n  template: {metadata: {name: x}}\n", "g.yaml");
  REQUIRE_FALSE(groups.ok());
  CHECK_THAT(
      std::string(groups.status().message()),
      Catch::Contains("node group empty: nodeGroups[0].template.status.allocatable: missing"));
}

}  // namespace
}  // namespace gpua

namespace gpua {
namespace {

// An 8xH100 MachineDeployment at zero, as `kubectl get machinedeployment -o yaml` shows it.
constexpr char kClusterApiGroups[] = R"(
nodeGroups:
- pricePerHour: 98.32
  clusterAPI:
    apiVersion: cluster.x-k8s.io/v1beta1
    kind: MachineDeployment
    metadata:
      name: h100
      namespace: gpu
      annotations:
        cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: "0"
        cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: "4"
        cluster.x-k8s.io/autoscaling-options-scaledownunneededtime: 5m0s
        capacity.cluster-autoscaler.kubernetes.io/cpu: "192"
        capacity.cluster-autoscaler.kubernetes.io/memory: 2000Gi
        capacity.cluster-autoscaler.kubernetes.io/gpu-type: nvidia.com/gpu
        capacity.cluster-autoscaler.kubernetes.io/gpu-count: "8"
        capacity.cluster-autoscaler.kubernetes.io/labels: nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3
        capacity.cluster-autoscaler.kubernetes.io/taints: nvidia.com/gpu=present:NoSchedule
    spec:
      clusterName: gpu-cluster
      replicas: 0
      template:
        metadata:
          labels: {pool: h100}
  simulation:
    provisioningDelay: {p50: 3m, p95: 6m}
)";

TEST_CASE("a node group given as a MachineDeployment reads as the clusterapi provider reads it",
          "[node-groups][clusterapi]") {
  absl::StatusOr<std::vector<NodeGroupConfig>> groups =
      ParseNodeGroupFile(kClusterApiGroups, "groups.yaml");
  INFO((groups.ok() ? "" : std::string(groups.status().message())));
  REQUIRE(groups.ok());
  REQUIRE(groups->size() == 1);
  const NodeGroupConfig& g = (*groups)[0];
  CHECK(g.spec.id == "MachineDeployment/gpu/h100");  // the controller's id for it
  CHECK(g.spec.max_size == 4);
  CHECK(g.spec.price_per_hour == 98.32);
  CHECK(g.spec.node_template.allocatable.Get("nvidia.com/gpu").Value() == 8);
  CHECK(g.spec.node_template.labels.at("pool") == "h100");
  CHECK(g.options.scale_down_unneeded_time == absl::Minutes(5));
  CHECK(g.simulation.provisioning_delay.p50 == absl::Minutes(3));
}

TEST_CASE("a MachineDeployment in the node-group file that cannot be read names why",
          "[node-groups][clusterapi]") {
  const auto error = [](const std::string& from, const std::string& to) {
    std::string text = kClusterApiGroups;
    text.replace(text.find(from), from.size(), to);
    return std::string(ParseNodeGroupFile(text, "groups.yaml").status().message());
  };
  CHECK_THAT(error("gpu-count: \"8\"", "gpu-count: eight"),
             Catch::Contains("MachineDeployment gpu/h100") && Catch::Contains("gpu-count"));
  CHECK_THAT(error("capacity.cluster-autoscaler.kubernetes.io/cpu: \"192\"", "x: y"),
             Catch::Contains("cpu"));
  CHECK_THAT(error("kind: MachineDeployment", "kind: Deployment"),
             Catch::Contains("not MachineDeployment, MachineSet or MachinePool"));
  CHECK_THAT(error("- pricePerHour: 98.32", "- maxSize: 3\n  pricePerHour: 98.32"),
             Catch::Contains("maxSize") && Catch::Contains("not with clusterAPI"));
}

}  // namespace
}  // namespace gpua
