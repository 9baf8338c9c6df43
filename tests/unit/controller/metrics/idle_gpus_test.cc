// Idle GPUs by group: what scale-down is there to cut, as gpu_autoscaler_idle_gpus reports it.
#include "autoscaler/controller/metrics/idle_gpus.h"

#include <catch2/catch.hpp>

#include "tests/support/fake_cluster.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {
namespace {

TEST_CASE("idle GPUs count billed GPUs not in use, per group, and a node not ready uses none",
          "[controller][metrics]") {
  ControllerOptions options;
  FakeCloudProvider cloud;
  FakeNodeGroup& g = cloud.AddGroup("h100", 0, 4, H100Template());
  NodeTemplate cpu;
  cpu.allocatable = Res({{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "110"}});
  cloud.AddGroup("cpu", 0, 4, cpu);
  FakeClusterSource source;
  RegisterNode(source, g, "h100-0", kNow - absl::Hours(1));
  RegisterNode(source, g, "h100-1", kNow - absl::Hours(1), /*ready=*/false);
  RunningPod(source, "train-0", "h100-0", Res({{"nvidia.com/gpu", "6"}}));
  NodeGroupBackoff backoff(options.cluster_state.backoff);
  LoopInputs in = BuildLoopInputs(source, cloud, options, backoff, kNow);
  RunningNodeCache nodes;
  nodes.BeginLoop(*in.view);
  const std::map<std::string, double> idle = IdleGpus(*in.view, in.state, {}, nodes);
  REQUIRE(idle.size() == 1);  // the CPU group has no GPUs to idle
  CHECK(idle.at("h100") == Approx(2 + 8));
  // What scale-down already found is taken as it is.
  std::vector<double> known(in.state.nodes.size(), -1);
  known[in.state.node_index.at("h100-0")] = 0.5;
  CHECK(IdleGpus(*in.view, in.state, known, nodes).at("h100") == Approx(4 + 8));
}

}  // namespace
}  // namespace gpua::testing
