// What the cluster-wide limits (--max-nodes-total, --cores-total, --memory-total,
// --gpu-total) leave for a scale-up: running, upcoming and already-asked-for nodes count.
#include <catch2/catch.hpp>

#include "absl/strings/match.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/planning/resource_limits.h"
#include "autoscaler/controller/planning/running_node_cache.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua {
namespace {

using testing::kNow;

TEST_CASE("each GPU type's limit counts that type's GPUs on running, upcoming and asked-for nodes",
          "[controller][scale-up]") {
  ProviderSnapshot provider;
  provider.gpu_label = "nvidia.com/gpu.product";
  provider.groups.push_back(testing::Group("h100", testing::H100Template(), /*target=*/3));
  ClusterView view;
  for (const char* name : {"h100-a", "h100-b"}) {
    NodePtr n = testing::NodeOf(name, testing::H100Template(), kNow - absl::Hours(1));
    provider.groups[0].instances.push_back({n->provider_id, InstanceState::kRunning, {}});
    provider.IndexInstances();
    view.nodes.push_back(std::move(n));
  }
  ClusterStateBuilder builder(ClusterStateOptions{});
  NodeGroupBackoff backoff{BackoffOptions{}};
  const ClusterState state = builder.Build(view, provider, backoff, kNow);
  REQUIRE(state.groups[0].upcoming == 1);
  ClusterLimits limits;
  limits.gpus_by_type = {{"NVIDIA-H100-80GB-HBM3", {0, 64}}, {"NVIDIA-A100", {0, 8}}};
  RunningNodeCache running;

  const std::vector<ResourceBudget> budgets = LimitBudgets(limits, state, {{"h100", 1}}, running);

  const auto budget = [&](absl::string_view type) -> const ResourceBudget& {
    for (const ResourceBudget& b : budgets) {
      if (absl::StrContains(b.name, type)) return b;
    }
    FAIL("no budget for " << type);
    return budgets.front();
  };
  // Two running nodes, one upcoming and one asked for: 4 x 8 H100s.
  CHECK(budget("NVIDIA-H100-80GB-HBM3").left == 64 - 32);
  CHECK(budget("NVIDIA-H100-80GB-HBM3").per_node.at("h100") == 8);
  CHECK(budget("NVIDIA-A100").left == 8);
  CHECK(budget("NVIDIA-A100").per_node.at("h100") == 0);
}

}  // namespace
}  // namespace gpua
