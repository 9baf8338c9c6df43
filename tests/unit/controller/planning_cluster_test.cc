// The cluster the scale-up planner plans on: nodes a group is still bringing up.
#include "autoscaler/controller/scaleup/planning_cluster.h"

#include <catch2/catch.hpp>

#include "autoscaler/controller/cluster_state.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua {
namespace {

TEST_CASE("a group's upcoming nodes share props per MIG layout and keep their own names",
          "[controller][scale-up]") {
  ProviderSnapshot provider;
  provider.groups.push_back(testing::Group("h100", testing::H100Template(), /*target=*/3));
  ClusterStateBuilder builder(ClusterStateOptions{});
  NodeGroupBackoff backoff{BackoffOptions{}};
  const ClusterView view;
  ClusterState state = builder.Build(view, provider, backoff, absl::FromUnixSeconds(1'800'000'000));
  REQUIRE(state.groups[0].upcoming == 3);
  state.groups[0].upcoming_mig_layouts = {"all-1g", "all-1g", "all-7g"};
  RunningNodeCache rooms;

  const PlanningCluster cluster = BuildPlanningCluster(view, state, {}, {}, {}, rooms);

  REQUIRE(cluster.nodes.size() == 3);
  CHECK(cluster.nodes[0].name == "upcoming-h100-0");
  CHECK(cluster.nodes[2].name == "upcoming-h100-2");
  CHECK(cluster.nodes[0].props == cluster.nodes[1].props);  // one layout: one props
  CHECK(cluster.nodes[1].props != cluster.nodes[2].props);
  for (const Node& n : cluster.nodes) {
    REQUIRE(n.props != nullptr);
    CHECK(n.upcoming);
    CHECK(n.props->group_id == "h100");
    CHECK(n.props->labels.find("nvidia.com/gpu.product")->second == "NVIDIA-H100-80GB-HBM3");
    CHECK(n.props->gpu != nullptr);
  }
}

}  // namespace
}  // namespace gpua
