#include "autoscaler/controller/node_state.h"

#include <catch2/catch.hpp>

namespace gpua {
namespace {

NodeObject GpuNode(bool ready, ResourceList allocatable) {
  NodeObject n;
  n.node.name = "gpu-1";
  n.node.labels = {{"nvidia.com/gpu.product", "NVIDIA-L4"}, {"nvidia.com/gpu.count", "4"}};
  n.node.allocatable = std::move(allocatable);
  n.ready = ready;
  return n;
}

TEST_CASE("a GPU node whose device plugin has not advertised its GPUs yet is told apart",
          "[controller][node-state]") {
  const ResourceList cpu_only = {{"cpu", Quantity::FromUnits(16)}};
  CHECK(StateOf(GpuNode(false, cpu_only)) == NodeState::kNotReady);
  CHECK(StateOf(GpuNode(true, cpu_only)) == NodeState::kGpusNotAdvertised);
  ResourceList with_gpus = cpu_only;
  with_gpus.Set("nvidia.com/gpu", Quantity::FromUnits(4));
  CHECK(StateOf(GpuNode(true, with_gpus)) == NodeState::kReady);
  // Shares and MIG devices are GPUs too: a time-sliced node is not "not advertised".
  ResourceList shares = cpu_only;
  shares.Set("nvidia.com/gpu.shared", Quantity::FromUnits(16));
  CHECK(StateOf(GpuNode(true, shares)) == NodeState::kReady);
  CHECK(NodeStateName(NodeState::kGpusNotAdvertised) == "gpus not advertised");
}

TEST_CASE("a node's group label is ours, else its instance type", "[controller][node-state]") {
  NodeObject n = GpuNode(true, {});
  CHECK(GroupLabelOf(n) == "-");
  n.node.labels["node.kubernetes.io/instance-type"] = "g6.12xlarge";
  CHECK(GroupLabelOf(n) == "g6.12xlarge");
  n.node.labels["gpu-autoscaler.io/node-group"] = "l4-pool";
  CHECK(GroupLabelOf(n) == "l4-pool");
}

}  // namespace
}  // namespace gpua
