#include "kubeobjects/nodes.h"

#include <catch2/catch.hpp>

#include "absl/strings/match.h"
#include "absl/time/time.h"
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

TEST_CASE("a node's conditions are kept with their reasons and when they changed",
          "[decode][health]") {
  const NodeObject node = FirstNode(R"(
apiVersion: v1
kind: Node
metadata: {name: h100-a}
status:
  allocatable: {cpu: "8"}
  conditions:
  - {type: Ready, status: "True", lastTransitionTime: "2026-12-01T10:00:00Z"}
  - type: AcceleratedHardwareReady
    status: "False"
    reason: NvidiaXID79Error
    message: GPU has fallen off the bus
    lastTransitionTime: "2026-12-01T11:30:00Z"
  - {type: GpuXidWatch, status: "True"}
)");
  CHECK(node.ready);
  REQUIRE(node.conditions.size() == 3);
  const NodeConditionStatus* hw = node.Condition("AcceleratedHardwareReady");
  REQUIRE(hw != nullptr);
  CHECK(hw->status == "False");
  CHECK(hw->reason == "NvidiaXID79Error");
  CHECK(hw->message == "GPU has fallen off the bus");
  REQUIRE(hw->last_transition.has_value());
  CHECK(absl::FormatTime("%H:%M", *hw->last_transition, absl::UTCTimeZone()) == "11:30");
  const NodeConditionStatus* xid = node.Condition("GpuXidWatch");
  REQUIRE(xid != nullptr);
  CHECK_FALSE(xid->last_transition.has_value());
  CHECK(node.Condition("KernelReady") == nullptr);
}

TEST_CASE("a condition without a type, or with a status that is not text, names the field",
          "[decode][health]") {
  auto decode = [](const std::string& text) {
    auto objects = ParseObjects(text, "nodes.yaml");
    REQUIRE(objects.ok());
    return DecodeNode(objects->front()).status();
  };
  const absl::Status untyped = decode(R"(
kind: Node
metadata: {name: n1}
status: {conditions: [{status: "False"}]}
)");
  CHECK(untyped.message() == "Node n1: status.conditions[0].type: missing");
  const absl::Status numeric = decode(R"(
kind: Node
metadata: {name: n2}
status: {conditions: [{type: GpuMemWatch, status: [1]}]}
)");
  CHECK(absl::StrContains(numeric.message(), "status.conditions[0].status"));
  // An unreadable time is not an error: the condition stands, its time unknown.
  const NodeObject timeless = FirstNode(R"(
kind: Node
metadata: {name: n3}
status: {conditions: [{type: GpuMemWatch, status: "True", lastTransitionTime: yesterday}]}
)");
  REQUIRE(timeless.Condition("GpuMemWatch") != nullptr);
  CHECK_FALSE(timeless.Condition("GpuMemWatch")->last_transition.has_value());
}

}  // namespace
}  // namespace gpua
