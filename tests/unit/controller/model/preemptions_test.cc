// Spot preemptions alone: which signals say a node is being lost, that such a node counts as
// being deleted in the state, and which of its pods need a new home first.
#include "autoscaler/controller/model/preemptions.h"

#include <catch2/catch.hpp>

#include "autoscaler/controller/spot/homeless_pods.h"
#include "tests/support/fake_cluster.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {
namespace {

struct SpotFixture {
  SpotFixture() : group(cloud.AddGroup("h100-spot", 0, 4, H100Template())) {
    for (int i = 0; i < 3; ++i) {
      nodes.push_back(RegisterNode(source, group, absl::StrCat("spot-", i), kNow - absl::Hours(1)));
    }
  }
  void Taint(int i, const std::string& key) {
    auto n = std::make_shared<NodeObject>(*nodes[i]);
    n->node.taints.push_back({key, "", TaintEffect::kNoSchedule});
    source.ReplaceNode(n);
  }
  LoopInputs Inputs() { return BuildLoopInputs(source, cloud, options, backoff, kNow); }
  ControllerOptions options;
  FakeCloudProvider cloud;
  FakeNodeGroup& group;
  FakeClusterSource source;
  NodeGroupBackoff backoff{BackoffOptions{}};
  std::vector<NodePtr> nodes;
};

TEST_CASE("a termination handler's taint and an instance listed as deleting are preemptions",
          "[controller][spot]") {
  SpotFixture f;
  f.Taint(0, "aws-node-termination-handler/spot-itn");
  f.Taint(1, "aws-node-termination-handler/rebalance-recommendation");  // advice only
  f.group.instances[2].state = InstanceState::kDeleting;
  LoopInputs in = f.Inputs();
  REQUIRE(in.state.preemptions.size() == 2);
  CHECK(in.state.nodes[in.state.preemptions[0].node].node->node.name == "spot-0");
  CHECK_THAT(in.state.preemptions[0].signal, Catch::Contains("spot interruption"));
  CHECK(in.state.nodes[in.state.preemptions[1].node].node->node.name == "spot-2");
  CHECK_THAT(in.state.preemptions[1].signal, Catch::Contains("lists its instance as deleting"));
  // Not capacity to plan on: both count as being deleted.
  const GroupState* g = in.state.FindGroup("h100-spot");
  CHECK(g->counts.being_deleted == 2);
  CHECK(g->counts.ready == 1);
}

TEST_CASE("a node whose instance is gone is lost only once its kubelet stops reporting",
          "[controller][spot]") {
  SpotFixture f;
  f.group.instances.erase(f.group.instances.begin());  // spot-0's instance no longer listed
  CHECK(f.Inputs().state.preemptions.empty());         // a listing can lag
  auto unready = std::make_shared<NodeObject>(*f.nodes[0]);
  unready->ready = false;
  unready->created = kNow - absl::Hours(2);
  f.source.ReplaceNode(unready);
  f.options.cluster_state.max_node_startup_time = absl::Minutes(15);
  const LoopInputs in = f.Inputs();
  REQUIRE(in.state.preemptions.size() == 1);
  CHECK_THAT(in.state.preemptions[0].signal, Catch::Contains("no longer lists its instance"));
}

TEST_CASE("the pods of a preempted node that will be recreated are planned for first",
          "[controller][spot]") {
  SpotFixture f;
  RunningPod(f.source, "infer-0", "spot-0", Res({{"nvidia.com/gpu", "1"}}));
  auto bare = std::make_shared<PodObject>();  // no controller: it is not coming back
  bare->spec.namespace_name = "ml";
  bare->spec.name = "scratch-0";
  bare->spec.node_name = "spot-0";
  bare->phase = "Running";
  f.source.AddPod(bare);
  RunningPod(f.source, "infer-1", "spot-1", Res({{"nvidia.com/gpu", "1"}}));
  f.Taint(0, "cloud.google.com/impending-node-termination");
  const LoopInputs in = f.Inputs();
  const std::vector<PodPtr> homeless = HomelessPods(*in.view, in.state);
  REQUIRE(homeless.size() == 1);
  CHECK(homeless[0]->spec.name == "infer-0");
}

}  // namespace
}  // namespace gpua::testing
