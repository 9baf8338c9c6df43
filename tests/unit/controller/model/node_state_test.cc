#include "autoscaler/controller/model/node_state.h"

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

TEST_CASE("GPUs advertised is the controller's rule, for AMD and MIG nodes too",
          "[controller][node-state]") {
  const ResourceList cpu_only = {{"cpu", Quantity::FromUnits(16)}};
  // AMD's node labeller names the GPUs; the device plugin has not started.
  NodeObject amd;
  amd.node.name = "mi300-1";
  amd.node.labels = {{"amd.com/gpu.family", "AI"}, {"amd.com/gpu.device-id", "74a1"}};
  amd.node.allocatable = cpu_only;
  amd.ready = true;
  CHECK(StateOf(amd) == NodeState::kGpusNotAdvertised);
  NodeObject amd_up = amd;
  amd_up.node.allocatable.Set("amd.com/gpu", Quantity::FromUnits(8));
  CHECK(StateOf(amd_up) == NodeState::kReady);
  // A MIG node whose label names its layout: ready only once that layout's devices show.
  NodeObject mig;
  mig.node.name = "a100-1";
  mig.node.labels = {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"},
                     {"nvidia.com/gpu.count", "1"},
                     {"nvidia.com/mig.strategy", "mixed"},
                     {"nvidia.com/mig.config", "all-3g.20gb"}};
  mig.node.allocatable = cpu_only;
  mig.ready = true;
  CHECK(StateOf(mig) == NodeState::kGpusNotAdvertised);
  NodeObject mig_up = mig;
  mig_up.node.allocatable.Set("nvidia.com/mig-3g.20gb", Quantity::FromUnits(2));
  CHECK(StateOf(mig_up) == NodeState::kReady);
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
