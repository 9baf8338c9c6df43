#include "kubeobjects/nodes.h"

#include <catch2/catch.hpp>

#include "kubeobjects/documents.h"

namespace gpua {
namespace {

NodeObject FirstNode(const std::string& text) {
  auto objects = ParseObjects(text, "nodes.yaml");
  REQUIRE(objects.ok());
  REQUIRE(!objects->empty());
  absl::StatusOr<NodeObject> node = DecodeNode(objects->front());
  REQUIRE(node.ok());
  return *std::move(node);
}

constexpr const char* kL4Node = R"(
apiVersion: v1
kind: Node
metadata:
  name: l4-a
  labels: {nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "4"}
status:
  allocatable: {cpu: "32", memory: 128Gi, pods: "110", nvidia.com/gpu: "4"}
)";

TEST_CASE("a node's GPUs are read once, and a changed copy reads its own", "[decode][gpu]") {
  const NodeObject node = FirstNode(kL4Node);
  const auto& gpus = node.Gpus();
  REQUIRE(gpus.ok());
  REQUIRE(*gpus != nullptr);
  CHECK((*gpus)->physical_count() == 4);
  CHECK(&node.Gpus() == &gpus);

  NodeObject shared = node;
  shared.annotations["gpu-autoscaler.io/gpu-sharing"] = "time-slicing";
  shared.annotations["gpu-autoscaler.io/gpu-replicas"] = "4";
  shared.node.allocatable = ResourceList::Parse({{"nvidia.com/gpu", "16"}}, "allocatable").value();
  const auto& shared_gpus = shared.Gpus();
  REQUIRE(shared_gpus.ok());
  REQUIRE(*shared_gpus != nullptr);
  CHECK(shared_gpus->get() != gpus->get());
}

TEST_CASE("a node without GPUs reads as none, a wrong GPU label as an error naming the node",
          "[decode][gpu]") {
  NodeObject cpu = FirstNode(R"(
apiVersion: v1
kind: Node
metadata: {name: cpu-a}
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
)");
  REQUIRE(cpu.Gpus().ok());
  CHECK(*cpu.Gpus() == nullptr);

  NodeObject wrong = FirstNode(kL4Node);
  wrong.annotations["gpu-autoscaler.io/gpu-sharing"] = "sometimes";
  NodeObject copy = wrong;
  CHECK_FALSE(copy.Gpus().ok());
  CHECK(copy.Gpus().status().message().find("l4-a") != absl::string_view::npos);
}

}  // namespace
}  // namespace gpua
