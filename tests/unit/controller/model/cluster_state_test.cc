// The cluster state: what counts as not started, unready, upcoming and long unregistered.
#include "autoscaler/controller/model/cluster_state.h"

#include <catch2/catch.hpp>

#include "tests/unit/controller/controller_test_util.h"

namespace gpua {
namespace {

using testing::Group;
using testing::H100Template;
using testing::kNow;
using testing::NodeOf;

std::shared_ptr<NodeObject> Mutable(const NodePtr& n) { return std::make_shared<NodeObject>(*n); }

struct Fixture {
  ProviderSnapshot provider;
  ClusterView view;
  ClusterStateOptions options;
  NodeGroupBackoff backoff{BackoffOptions{}};

  explicit Fixture(ProviderGroup g) {
    provider.gpu_label = "nvidia.com/gpu.product";
    provider.groups.push_back(std::move(g));
  }
  void AddNode(NodePtr n, bool listed = true) {
    if (listed) {
      provider.groups[0].instances.push_back({n->provider_id, InstanceState::kRunning, {}});
      provider.IndexInstances();
    }
    view.nodes.push_back(std::move(n));
  }
  void SetInstances(std::vector<Instance> instances) {
    provider.groups[0].instances = std::move(instances);
    provider.IndexInstances();
  }
  ClusterState Build(ClusterStateBuilder& builder, absl::Time now = kNow) {
    return builder.Build(view, provider, backoff, now);
  }
};

TEST_CASE("a ready GPU node without its GPUs is not started until the startup time, then unready",
          "[controller][cluster-state]") {
  Fixture f(Group("h100", H100Template(), 1));
  f.AddNode(NodeOf("h100-0", H100Template(), kNow - absl::Minutes(2), true, false));
  ClusterStateBuilder builder(f.options);
  ClusterState young = f.Build(builder);
  REQUIRE(young.groups.size() == 1);
  CHECK(young.groups[0].counts.not_started == 1);
  CHECK(young.groups[0].counts.unready == 0);
  CHECK(young.nodes[0].gpus_pending);
  CHECK(young.healthy);
  ClusterState old = f.Build(builder, kNow + absl::Minutes(20));
  CHECK(old.groups[0].counts.unready == 1);
  CHECK(old.groups[0].counts.resource_unready == 1);
}

TEST_CASE("a ready node with a startup taint or a readiness condition not True is starting",
          "[controller][cluster-state][health]") {
  Fixture f(Group("h100", H100Template(), 5));
  const absl::Time young = kNow - absl::Minutes(2);
  // gpu-operator's recipe: the Node Readiness Controller's taint, any readiness.k8s.io/ key.
  auto nrc = Mutable(NodeOf("h100-nrc", H100Template(), young));
  nrc->node.taints.push_back(
      {"readiness.k8s.io/nvidia-gpu-not-ready", "pending", TaintEffect::kNoSchedule});
  f.AddNode(nrc);
  // A key of the user's own, given with --startup-taint as a prefix.
  auto own = Mutable(NodeOf("h100-own", H100Template(), young));
  own->node.taints.push_back({"example.com/gpu-burn-in", "", TaintEffect::kNoSchedule});
  f.AddNode(own);
  // Node Problem Detector's condition, not yet True.
  auto npd = Mutable(NodeOf("h100-npd", H100Template(), young));
  npd->conditions.push_back({"nvidia.com/GPUReady", "False", "DriverLoading", "", young});
  f.AddNode(npd);
  // The same condition True, and a node with none: both are up.
  auto up = Mutable(NodeOf("h100-up", H100Template(), young));
  up->conditions.push_back({"nvidia.com/GPUReady", "True", "", "", young});
  f.AddNode(up);
  f.AddNode(NodeOf("h100-plain", H100Template(), young));
  f.options.startup_taints = {"example.com/"};
  ClusterStateBuilder builder(f.options);
  const ClusterState s = f.Build(builder);
  CHECK(s.groups[0].counts.not_started == 3);
  CHECK(s.groups[0].counts.ready == 2);
  CHECK(s.nodes[0].readiness_pending);
  CHECK(s.nodes[2].readiness_pending);
  CHECK_FALSE(s.nodes[3].readiness_pending);
  // Past the startup time they are unready, as cluster-autoscaler judges a startup taint.
  const ClusterState later = f.Build(builder, kNow + absl::Minutes(20));
  CHECK(later.groups[0].counts.unready == 3);
}

TEST_CASE("a status taint, or a key not named, keeps a node ready", "[controller][cluster-state]") {
  Fixture f(Group("h100", H100Template(), 1));
  auto n = Mutable(NodeOf("h100-0", H100Template(), kNow - absl::Minutes(2)));
  n->node.taints.push_back(
      {"status-taint.cluster-autoscaler.kubernetes.io/gpu", "", TaintEffect::kNoSchedule});
  n->node.taints.push_back({"example.com/gpu-burn-in", "", TaintEffect::kNoSchedule});
  f.AddNode(n);
  f.options.readiness_conditions.clear();
  ClusterStateBuilder builder(f.options);
  CHECK(f.Build(builder).groups[0].counts.ready == 1);
  f.options.startup_taints = {"example.com/gpu-burn-in"};
  ClusterStateBuilder named(f.options);
  CHECK(f.Build(named).groups[0].counts.not_started == 1);
}

TEST_CASE("shared and MIG GPUs count as advertised by their own names",
          "[controller][cluster-state]") {
  NodeTemplate shared;
  shared.labels = {{"nvidia.com/gpu.product", "NVIDIA-L4"}};
  shared.annotations = {{"gpu-autoscaler.io/gpu-count", "4"},
                        {"gpu-autoscaler.io/gpu-sharing", "time-slicing"},
                        {"gpu-autoscaler.io/gpu-replicas", "4"},
                        {"gpu-autoscaler.io/gpu-renamed", "true"}};
  shared.allocatable = testing::Res({{"cpu", "47"}, {"pods", "110"}});
  Fixture f(Group("l4", shared, 1));
  NodeTemplate node = shared;
  node.allocatable.Set("nvidia.com/gpu.shared", Quantity::FromUnits(16));
  f.AddNode(NodeOf("l4-0", node, kNow - absl::Hours(1)));
  ClusterStateBuilder builder(f.options);
  ClusterState s = f.Build(builder);
  CHECK(s.groups[0].counts.ready == 1);  // cluster-autoscaler would hold it unready forever
  CHECK_FALSE(s.nodes[0].gpus_pending);
}

TEST_CASE(
    "asked-for nodes are upcoming until registered, past the provision time they are long "
    "unregistered",
    "[controller][cluster-state]") {
  Fixture f(Group("h100", H100Template(), 2));
  f.provider.groups[0].options.max_node_provision_time = absl::Minutes(15);
  f.SetInstances({{"sim://h100-0", InstanceState::kCreating, {}},
                  {"sim://h100-1", InstanceState::kCreating, {}}});
  ClusterStateBuilder builder(f.options);
  ClusterState first = f.Build(builder);
  CHECK(first.groups[0].upcoming == 2);
  CHECK(first.groups[0].counts.unregistered == 2);
  ClusterState later = f.Build(builder, kNow + absl::Minutes(16));
  CHECK(later.groups[0].upcoming == 0);
  CHECK(later.groups[0].counts.long_unregistered == 2);
  CHECK(later.groups[0].long_unregistered.size() == 2);
}

TEST_CASE("a failed instance is not upcoming, a target ahead of the instance list is",
          "[controller][cluster-state]") {
  Fixture f(Group("h100", H100Template(), 3));
  f.SetInstances(
      {{"sim://h100-0", InstanceState::kCreating,
        InstanceError{"OutOfCapacity", "no capacity", InstanceErrorClass::kOutOfResources}}});
  ClusterStateBuilder builder(f.options);
  ClusterState s = f.Build(builder);
  CHECK(s.groups[0].failed.size() == 1);
  CHECK(s.groups[0].upcoming == 2);  // target 3: one failed, two not listed yet
}

TEST_CASE("too many unready nodes, by count and by share, make the cluster unhealthy",
          "[controller][cluster-state]") {
  Fixture f(Group("h100", H100Template(), 5));
  for (int i = 0; i < 5; ++i) {
    f.AddNode(NodeOf("h100-" + std::to_string(i), H100Template(), kNow - absl::Hours(1), i == 0));
  }
  ClusterStateBuilder builder(f.options);
  ClusterState s = f.Build(builder);
  CHECK(s.totals.unready == 4);
  CHECK_FALSE(s.healthy);
  CHECK_THAT(s.unhealthy_reason, Catch::Contains("4 of 5 registered nodes are unready"));
  f.options.ok_total_unready_count = 4;  // within the count allowed
  ClusterStateBuilder lenient(f.options);
  CHECK(f.Build(lenient).healthy);
}

TEST_CASE("a node of no group with no GPUs never makes the cluster unhealthy",
          "[controller][cluster-state]") {
  Fixture f(Group("h100", H100Template(), 0));
  for (int i = 0; i < 5; ++i) {
    f.AddNode(
        NodeOf("byo-gpu-" + std::to_string(i), H100Template(), kNow - absl::Hours(1), true, false),
        /*listed=*/false);
  }
  ClusterStateBuilder builder(f.options);
  ClusterState s = f.Build(builder);
  CHECK(s.healthy);
  CHECK(s.totals.ready == 5);
  CHECK(s.nodes[0].group == -1);
}

}  // namespace
}  // namespace gpua

namespace gpua {
namespace {

TEST_CASE("each node is given its group's listing of its instance, a deleting one too",
          "[controller][cluster-state]") {
  Fixture f(Group("h100", testing::H100Template(), 3));
  f.AddNode(NodeOf("h100-0", testing::H100Template(), kNow - absl::Hours(1)), false);
  f.AddNode(NodeOf("h100-1", testing::H100Template(), kNow - absl::Hours(1)), false);
  f.AddNode(NodeOf("h100-2", testing::H100Template(), kNow - absl::Hours(1)), false);
  const std::string id0 = f.view.nodes[0]->provider_id;
  const std::string id1 = f.view.nodes[1]->provider_id;
  f.SetInstances({{id0, InstanceState::kRunning, {}},
                  {id1, InstanceState::kDeleting, {}},
                  {id1, InstanceState::kRunning, {}}});  // a repeated listing: the first counts
  ClusterStateBuilder builder(f.options);
  ClusterState s = f.Build(builder);
  REQUIRE(s.nodes[0].instance != nullptr);
  CHECK(s.nodes[0].instance->state == InstanceState::kRunning);
  REQUIRE(s.nodes[1].instance != nullptr);
  CHECK(s.nodes[1].instance->state == InstanceState::kDeleting);
  CHECK(s.nodes[2].instance == nullptr);  // not listed: a lost instance if it stops reporting
}

}  // namespace
}  // namespace gpua
