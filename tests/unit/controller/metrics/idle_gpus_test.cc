// Idle GPUs by group: what scale-down is there to cut, as gpu_autoscaler_idle_gpus reports it.
#include "autoscaler/controller/metrics/idle_gpus.h"

#include <catch2/catch.hpp>

#include "autoscaler/controller/scaledown/idle_cause.h"
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
  const std::map<std::string, IdleGpuCount> idle = IdleGpus(*in.view, in.state, {}, {}, nodes);
  REQUIRE(idle.size() == 1);  // the CPU group has no GPUs to idle
  CHECK(idle.at("h100").total == Approx(2 + 8));
  // What scale-down already found is taken as it is, and filed by why the node stays.
  std::vector<double> known(in.state.nodes.size(), -1);
  known[in.state.node_index.at("h100-0")] = 0.5;
  std::vector<IdleCause> causes(in.state.nodes.size(), IdleCause::kOther);
  causes[in.state.node_index.at("h100-0")] = IdleCause::kFragmentation;
  causes[in.state.node_index.at("h100-1")] = IdleCause::kIdleTimeout;
  const IdleGpuCount h100 = IdleGpus(*in.view, in.state, known, causes, nodes).at("h100");
  CHECK(h100.total == Approx(4 + 8));
  CHECK(h100.of(IdleCause::kFragmentation) == Approx(4));
  CHECK(h100.of(IdleCause::kIdleTimeout) == Approx(8));
}

TEST_CASE(
    "a judged node's idle GPUs are filed by what keeps it: its timeout, its pods, warm "
    "capacity, fragmentation or its group's minimum",
    "[controller][metrics]") {
  NodeJudgement j;
  j.unneeded = true;
  CHECK(IdleCauseOf(j) == IdleCause::kIdleTimeout);
  j.unneeded = false;
  const std::vector<std::pair<absl::string_view, IdleCause>> cases = {
      {"NotUnderutilized", IdleCause::kFragmentation},
      {"NoPlaceToMovePods", IdleCause::kFragmentation},
      {"WarmCapacity", IdleCause::kWarmCapacity},
      {"NodeGroupMinSizeReached", IdleCause::kMinSize},
      {"NotSafeToEvictAnnotation", IdleCause::kPodsCannotMove},
      {"NotEnoughPdb", IdleCause::kPodsCannotMove},
      {"GangMember", IdleCause::kPodsCannotMove},
      {"DisruptionNotPaidBack", IdleCause::kPodsCannotMove},
      {"ScaleDownDisabledAnnotation", IdleCause::kOther},
  };
  for (const auto& [reason, cause] : cases) {
    j.reason = reason;
    INFO(reason);
    CHECK(IdleCauseOf(j) == cause);
  }
  CHECK(IdleCauseName(IdleCause::kPodsCannotMove) == "pods_cannot_move");
}

}  // namespace
}  // namespace gpua::testing
