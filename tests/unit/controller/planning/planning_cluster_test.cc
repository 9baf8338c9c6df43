// The cluster the scale-up planner plans on: nodes a group is still bringing up.
#include "autoscaler/controller/planning/planning_cluster.h"

#include <catch2/catch.hpp>

#include "autoscaler/controller/model/cluster_state.h"
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

  const PlanningCluster cluster = BuildPlanningCluster(view, state, {}, {}, rooms);

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

TEST_CASE(
    "a node whose GPUs are not advertised yet carries the template's labels and taints until "
    "its own arrive, and is known as its group's starting node",
    "[controller][scale-up]") {
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  NodeTemplate tmpl = testing::H100Template();
  tmpl.taints = {{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule}};
  tmpl.labels["pool"] = "train";
  ProviderSnapshot provider;
  provider.groups.push_back(testing::Group("h100", tmpl, /*target=*/2));
  // Registered a minute ago with neither the GPU taint nor the pool label, nor its GPUs.
  NodePtr node = testing::NodeOf("h100-a", testing::H100Template(), now - absl::Minutes(1), true,
                                 /*with_gpus=*/false);
  provider.groups[0].instances.push_back({node->provider_id, InstanceState::kRunning, {}});
  provider.IndexInstances();
  ClusterView view;
  view.nodes.push_back(node);
  ClusterStateBuilder builder(ClusterStateOptions{});
  NodeGroupBackoff backoff{BackoffOptions{}};
  const ClusterState state = builder.Build(view, provider, backoff, now);
  REQUIRE(state.nodes[0].condition == NodeCondition::kNotStarted);
  RunningNodeCache rooms;

  const PlanningCluster cluster = BuildPlanningCluster(view, state, {}, {}, rooms);

  REQUIRE(cluster.nodes.size() == 2);       // the starting node and one upcoming
  const Node& starting = cluster.nodes[0];  // its props are made by the snapshot, from these
  CHECK(starting.labels.at("pool") == "train");
  REQUIRE(starting.taints.size() == 1);
  CHECK(starting.taints[0].key == "nvidia.com/gpu");
  CHECK(cluster.refs[0].starting);
  CHECK(cluster.refs[0].state_node == 0);
  CHECK(cluster.node_of_state[0] == 0);
  CHECK(cluster.refs[1].upcoming == 0);
  CHECK(cluster.upcoming_nodes[0] == std::vector<int>{1});
}

}  // namespace
}  // namespace gpua
