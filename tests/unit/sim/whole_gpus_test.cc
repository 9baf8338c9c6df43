#include "autoscaler/sim/whole_gpus.h"

#include <catch2/catch.hpp>

#include "estimator/gpu/gpu_inventory.h"
#include "estimator/gpu/gpu_inventory_reader.h"

namespace gpua::sim {
namespace {

constexpr char kGroups[] = R"(
nodeGroups:
- id: t4-shared
  maxSize: 4
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
- id: a100-mig
  maxSize: 4
  template:
    metadata:
      labels:
        nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
        nvidia.com/gpu.count: "8"
        nvidia.com/mig.strategy: mixed
        nvidia.com/mig.config: all-3g.20gb
      annotations:
        gpu-autoscaler.io/mig-layouts: all-1g.5gb,all-3g.20gb
    status:
      allocatable: {cpu: "94", memory: 1100Gi, pods: "110", nvidia.com/mig-3g.20gb: "16"}
- id: cpu
  maxSize: 4
  template:
    status:
      allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
)";

std::vector<NodeGroupConfig> Groups() {
  auto groups = ParseNodeGroupFile(kGroups, "groups.yaml");
  INFO((groups.ok() ? "" : std::string(groups.status().message())));
  REQUIRE(groups.ok());
  return *std::move(groups);
}

GpuInventory InventoryOf(const NodeGroupConfig& g) {
  const NodeTemplate& t = g.spec.node_template;
  auto gpus = ReadGpuInventory(t.labels, t.annotations, t.allocatable, g.spec.id);
  REQUIRE(gpus.ok());
  REQUIRE(gpus->has_value());
  return **gpus;
}

PodSpec PodAsking(ResourceList requests) {
  PodSpec pod;
  pod.name = "p";
  pod.requests = requests;
  pod.largest_container_request = requests;
  return pod;
}

TEST_CASE("with whole GPUs, shared and MIG pools advertise their physical GPUs whole",
          "[sim][whole-gpus]") {
  auto whole = WithWholeGpus(Groups());
  REQUIRE(whole.ok());
  REQUIRE(whole->size() == 3);
  const GpuInventory t4 = InventoryOf((*whole)[0]);
  CHECK(t4.sharing() == GpuSharing::kExclusive);
  CHECK(t4.physical_count() == 4);
  CHECK((*whole)[0].spec.node_template.allocatable.Get("nvidia.com/gpu").Value() == 4);
  const GpuInventory a100 = InventoryOf((*whole)[1]);
  CHECK(a100.sharing() == GpuSharing::kExclusive);
  CHECK(a100.mig() == nullptr);
  CHECK((*whole)[1].spec.node_template.allocatable.Get("nvidia.com/gpu").Value() == 8);
  CHECK_FALSE((*whole)[1].spec.node_template.allocatable.Has("nvidia.com/mig-3g.20gb"));
  // The GPU model stays, so pods pinned to it still find the pool.
  CHECK((*whole)[1].spec.node_template.labels.find(kGpuProductLabel)->second ==
        "NVIDIA-A100-SXM4-40GB");
  CHECK((*whole)[2].spec.node_template.allocatable == Groups()[2].spec.node_template.allocatable);
}

TEST_CASE("shares round up to the GPUs they are part of, on the GPU model that served them",
          "[sim][whole-gpus]") {
  const auto shared = SharedGpuResources(Groups());
  const auto gpus_of = [&](const char* name, int64_t units) {
    const PodSpec pod = WholeGpuPod(
        PodAsking({{"cpu", Quantity::FromUnits(1)}, {name, Quantity::FromUnits(units)}}), shared);
    if (std::string(name) != "nvidia.com/gpu") CHECK_FALSE(pod.requests.Has(name));
    CHECK(pod.requests.Get("cpu").Value() == 1);
    return pod.requests.Get("nvidia.com/gpu").Value();
  };
  CHECK(gpus_of("nvidia.com/gpu.shared", 1) == 1);
  CHECK(gpus_of("nvidia.com/gpu.shared", 2) == 1);  // half a T4
  CHECK(gpus_of("nvidia.com/gpu.shared", 4) == 1);
  CHECK(gpus_of("nvidia.com/gpu.shared", 5) == 2);
  CHECK(gpus_of("nvidia.com/mig-3g.20gb", 1) == 1);
  CHECK(gpus_of("nvidia.com/mig-1g.5gb", 3) == 1);  // three eighths of an A100
  CHECK(gpus_of("nvidia.com/gpu", 2) == 2);         // whole GPUs stay as they are

  const PodSpec mig =
      WholeGpuPod(PodAsking({{"nvidia.com/mig-3g.20gb", Quantity::FromUnits(1)}}), shared);
  REQUIRE(mig.required_node_affinity.has_value());
  REQUIRE(mig.required_node_affinity->terms.size() == 1);
  const Requirement& on_model = mig.required_node_affinity->terms[0].match_expressions.at(0);
  CHECK(on_model.key == kGpuProductLabel);
  CHECK(on_model.values == std::vector<std::string>{"NVIDIA-A100-SXM4-40GB"});
  const PodSpec whole =
      WholeGpuPod(PodAsking({{"nvidia.com/gpu", Quantity::FromUnits(1)}}), shared);
  CHECK_FALSE(whole.required_node_affinity.has_value());
}

TEST_CASE("a pod's own node affinity keeps its terms, each now also on the GPU model",
          "[sim][whole-gpus]") {
  PodSpec pod = PodAsking({{"nvidia.com/gpu.shared", Quantity::FromUnits(1)}});
  const Requirement zone{"topology.kubernetes.io/zone", SelectorOp::kIn, {"a"}};
  const Requirement other{"topology.kubernetes.io/zone", SelectorOp::kIn, {"b"}};
  pod.required_node_affinity = NodeSelector{{NodeSelectorTerm{{zone}, {}}, {{other}, {}}}};
  const PodSpec out = WholeGpuPod(pod, SharedGpuResources(Groups()));
  REQUIRE(out.required_node_affinity->terms.size() == 2);
  for (const NodeSelectorTerm& term : out.required_node_affinity->terms) {
    REQUIRE(term.match_expressions.size() == 2);
    CHECK(term.match_expressions[1].key == kGpuProductLabel);
  }
}

TEST_CASE("a pool whose GPUs cannot be read is an error naming it, not a guess",
          "[sim][whole-gpus]") {
  std::vector<NodeGroupConfig> groups = Groups();
  groups[0].spec.node_template.annotations["gpu-autoscaler.io/gpu-replicas"] = "many";
  auto whole = WithWholeGpus(groups);
  REQUIRE_FALSE(whole.ok());
  CHECK_THAT(std::string(whole.status().message()),
             Catch::Contains("t4-shared") && Catch::Contains("gpu-replicas"));
}

}  // namespace
}  // namespace gpua::sim
