// The scale-down planner on its own: which nodes are unneeded, when they may go, and what
// keeps them, from a view and a state built by hand.
#include "autoscaler/controller/scaledown/scale_down_planner.h"

#include <catch2/catch.hpp>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "tests/support/fake_kube_writer.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua {
namespace {

using testing::Group;
using testing::H100Template;
using testing::kNow;
using testing::NodeOf;

struct Fixture {
  ProviderSnapshot provider;
  ClusterView view;
  ClusterStateOptions state_options;
  NodeGroupBackoff backoff{BackoffOptions{}};
  ScaleDownOptions options;
  ClusterLimits limits;

  explicit Fixture(int nodes, int min_size = 0) {
    ProviderGroup g = Group("h100", H100Template(), nodes);
    g.min_size = min_size;
    g.options.scale_down_unneeded_time = absl::Minutes(10);
    g.options.scale_down_gpu_utilization_threshold = 0.5;
    g.options.scale_down_utilization_threshold = 0.5;
    provider.gpu_label = "nvidia.com/gpu.product";
    provider.groups.push_back(std::move(g));
    for (int i = 0; i < nodes; ++i) AddNode(absl::StrCat("h100-", i));
  }
  NodePtr& AddNode(const std::string& name) {
    auto n = NodeOf(name, H100Template(), kNow - absl::Hours(1));
    provider.groups[0].instances.push_back({n->provider_id, InstanceState::kRunning, {}});
    provider.IndexInstances();
    view.nodes.push_back(n);
    return view.nodes.back();
  }
  // A pod of a live ReplicaSet (or of `kind`) on `node`, running since `started`.
  PodObject& AddPod(const std::string& node, ResourceList requests,
                    const std::string& kind = "ReplicaSet",
                    absl::Time started = absl::InfinitePast()) {
    auto p = std::make_shared<PodObject>();
    p->spec.namespace_name = "ml";
    p->spec.name = absl::StrCat(node, "-pod-", view.pods.size());
    p->spec.node_name = node;
    p->spec.requests = std::move(requests);
    p->spec.tolerations = {{"", Toleration::Op::kExists, "", std::nullopt}};
    const std::string owner = kind == "ReplicaSet" ? "web" : absl::AsciiStrToLower(kind);
    p->spec.owner = OwnerReference{kind, owner, owner + "-uid", true};
    p->phase = "Running";
    p->started = started;
    PodObject& added = *p;
    view.AddPod(std::move(p));
    if (!owners.contains(kind)) {
      owners.insert(kind);
      auto w = std::make_shared<WorkloadObject>();
      w->kind = kind;
      w->namespace_name = "ml";
      w->name = owner;
      w->uid = owner + "-uid";
      view.AddWorkload(std::move(w));
    }
    return added;
  }
  absl::flat_hash_set<std::string> owners;
  ScaleDownPlan Plan(int pods_for_existing_nodes = 0, absl::Time now = kNow) {
    ClusterStateBuilder builder(state_options);
    state = builder.Build(view, provider, backoff, now);
    ScaleDownPlanner planner(options, limits);
    ScaleDownMemory kept;
    LoopMemory loop = Memory();
    return planner.Plan(Input(loop, now), {pods_for_existing_nodes, 0, placeholders}, kept);
  }
  // What the loop keeps, new; the planner reads its running-node cache.
  LoopMemory Memory() { return LoopMemory(writer, loop_options, log); }
  // The loop's input at `now` on the state built last.
  PlanningInput Input(LoopMemory& loop, absl::Time now) { return {view, state, groups, loop, now}; }
  // Warm capacity of a CapacityBuffer: `n` placeholders asking for `requests` each.
  void Warm(int n, const ResourceList& requests) {
    for (int i = 0; i < n; ++i) {
      auto p = std::make_shared<PodObject>();
      p->spec.namespace_name = "ml";
      p->spec.name = absl::StrCat("warm-buffer-", i);
      p->spec.requests = requests;
      p->spec.tolerations = {{"", Toleration::Op::kExists, "", std::nullopt}};
      p->capacity_buffer = "ml/warm";
      placeholders.push_back(std::move(p));
    }
  }
  std::vector<PodPtr> placeholders;
  ClusterState state;
  testing::FakeKubeWriter writer;
  MemoryLogSink log;
  ControllerOptions loop_options;
  SnapshotGroupResizer groups{provider};
};

// A DeletionCandidate taint written `ago`: a new node object, as the informers hand out for
// every change (what is read off an object is read once).
void MarkedUnneeded(NodePtr& n, absl::Duration ago) {
  auto marked = std::make_shared<NodeObject>(*n);
  marked->node.taints.push_back({kDeletionCandidateTaint,
                                 absl::StrCat(absl::ToUnixSeconds(kNow - ago)),
                                 TaintEffect::kPreferNoSchedule});
  n = std::move(marked);
}

TEST_CASE("an empty GPU node is unneeded at once and goes after its group's unneeded time",
          "[controller][scale-down]") {
  Fixture f(1);
  ScaleDownPlan plan = f.Plan();
  REQUIRE(plan.judged.size() == 1);
  CHECK(plan.judged[0].unneeded);
  CHECK(plan.mark == std::vector<int>{0});
  CHECK(plan.removals.empty());
  CHECK(plan.next_due == kNow + absl::Minutes(10));
  CHECK(plan.status.candidates_by_group["h100"] == 1);

  MarkedUnneeded(f.view.nodes[0], absl::Minutes(10));
  plan = f.Plan();
  CHECK(plan.mark.empty());  // marked already: the taint keeps the time
  REQUIRE(plan.removals.size() == 1);
  CHECK(plan.removals[0].reason == "empty");
}

TEST_CASE("nodes alike are judged in name order, however the source lists them",
          "[controller][scale-down]") {
  Fixture f(0);
  for (const char* name : {"h100-b", "h100-c", "h100-a"}) f.AddNode(name);
  const auto judged_order = [](const ScaleDownPlan& plan) {
    std::vector<int> order;
    for (const NodeJudgement& j : plan.judged) order.push_back(j.node);
    return order;
  };
  CHECK(judged_order(f.Plan()) == std::vector<int>{2, 0, 1});
  // A node marked unneeded long enough is judged first, whatever its name.
  MarkedUnneeded(f.view.nodes[1], absl::Minutes(10));
  CHECK(judged_order(f.Plan()) == std::vector<int>{1, 2, 0});
}

TEST_CASE("a node whose GPUs are half used or more stays", "[controller][scale-down]") {
  Fixture f(1);
  f.AddPod("h100-0", testing::Res({{"nvidia.com/gpu", "4"}}));
  ScaleDownPlan plan = f.Plan();
  REQUIRE(plan.judged.size() == 1);
  CHECK(plan.judged[0].reason == "NotUnderutilized");
  CHECK_THAT(plan.judged[0].Detail(),
             Catch::StartsWith("GPU use 50% is not under 50%, and it cannot be consolidated: "));

  f.options.consolidation_payback = absl::ZeroDuration();  // cluster-autoscaler's rule alone
  plan = f.Plan();
  REQUIRE(plan.judged.size() == 1);
  CHECK(plan.judged[0].reason == "NotUnderutilized");
  CHECK(plan.judged[0].Detail() == "GPU use 50% is not under 50%");
}

TEST_CASE("of two half-used GPU nodes whose pods fit on one, one is consolidated onto the other",
          "[controller][scale-down]") {
  Fixture f(2);
  f.AddPod("h100-0", testing::Res({{"nvidia.com/gpu", "4"}}));
  f.AddPod("h100-1", testing::Res({{"nvidia.com/gpu", "4"}}));
  ScaleDownPlan plan = f.Plan();
  REQUIRE(plan.judged.size() == 2);
  CHECK(plan.judged[0].unneeded);
  CHECK(plan.judged[0].consolidated);
  CHECK(plan.judged[0].to_evict.size() == 1);
  CHECK(plan.mark == std::vector<int>{0});
  // The other is the room h100-0's pods move to: it stays, and says why.
  CHECK_FALSE(plan.judged[1].unneeded);
  CHECK(plan.judged[1].reason == "NotUnderutilized");
  CHECK_THAT(plan.judged[1].Detail(), Catch::Contains("cannot be consolidated"));

  MarkedUnneeded(f.view.nodes[0], absl::Minutes(10));
  plan = f.Plan();
  REQUIRE(plan.removals.size() == 1);
  CHECK(plan.removals[0].node == 0);
  CHECK(plan.removals[0].reason == "underutilized");  // cluster-autoscaler's metric label
  CHECK_THAT(plan.removals[0].why, Catch::Contains("consolidated"));

  f.options.consolidation_payback = absl::ZeroDuration();
  plan = f.Plan();
  CHECK(plan.removals.empty());
  CHECK(plan.unmark == std::vector<int>{0});
}

TEST_CASE("a node goes only when the work its pods lose is paid back within the payback window",
          "[controller][scale-down]") {
  Fixture f(2);
  // A quarter of h100-0 for three hours: 45m of its time lost, over the 30m payback.
  f.AddPod("h100-0", testing::Res({{"nvidia.com/gpu", "2"}}), "Job", kNow - absl::Hours(3));
  ScaleDownPlan plan = f.Plan();
  REQUIRE(plan.judged.size() == 2);
  CHECK(plan.judged[0].reason == "DisruptionNotPaidBack");
  CHECK_THAT(plan.judged[0].Detail(), Catch::Contains("45m"));
  CHECK(plan.judged[1].unneeded);  // empty

  // A served pod loses only a restart, and a Job's pod of an hour 15m: both go.
  f.view.pods.clear();
  f.view.pods_by_node.clear();
  f.AddPod("h100-0", testing::Res({{"nvidia.com/gpu", "2"}}), "Job", kNow - absl::Hours(1));
  f.AddPod("h100-1", testing::Res({{"nvidia.com/gpu", "2"}}), "ReplicaSet", kNow - absl::Hours(9));
  plan = f.Plan();
  int unneeded = 0;
  for (const NodeJudgement& j : plan.judged) unneeded += j.unneeded;
  CHECK(unneeded == 1);  // each node's pods fit on the other, not both ways at once
}

TEST_CASE("consolidation never moves a member of a gang, which moves only whole",
          "[controller][scale-down]") {
  Fixture f(2);
  f.AddPod("h100-0", testing::Res({{"nvidia.com/gpu", "4"}})).spec.gang =
      GangRef{"ml/train", 2, ""};
  f.AddPod("h100-1", testing::Res({{"nvidia.com/gpu", "6"}}));
  const ScaleDownPlan plan = f.Plan();
  REQUIRE(plan.judged.size() == 2);
  CHECK_FALSE(plan.judged[0].unneeded);
  CHECK_THAT(plan.judged[0].Detail(), Catch::Contains("gang ml/train"));
}

TEST_CASE("pods with nowhere to go keep their node", "[controller][scale-down]") {
  Fixture f(2);
  f.AddPod("h100-0", testing::Res({{"nvidia.com/gpu", "3"}}));
  f.AddPod("h100-1", testing::Res({{"nvidia.com/gpu", "3"}}));
  MarkedUnneeded(f.AddNode("h100-2"), absl::Minutes(30));
  f.provider.groups[0].target_size = 3;
  f.AddPod("h100-2", testing::Res({{"nvidia.com/gpu", "3"}}));
  // Any one node's 3 GPUs fit beside another's; the second node to be judged finds the room
  // taken by the first.
  const ScaleDownPlan plan = f.Plan();
  int unneeded = 0, no_place = 0;
  for (const NodeJudgement& j : plan.judged) {
    unneeded += j.unneeded;
    no_place += j.reason == "NoPlaceToMovePods";
  }
  CHECK(unneeded == 1);
  CHECK(no_place == 2);
}

TEST_CASE("a group's min size keeps its last nodes", "[controller][scale-down]") {
  Fixture f(3, /*min_size=*/2);
  for (NodePtr& n : f.view.nodes) MarkedUnneeded(n, absl::Hours(1));
  const ScaleDownPlan plan = f.Plan();
  CHECK(plan.removals.size() == 1);
}

TEST_CASE("empty nodes go in bulk, up to the scale-down parallelism", "[controller][scale-down]") {
  Fixture f(5);
  f.options.max_scale_down_parallelism = 3;
  for (NodePtr& n : f.view.nodes) MarkedUnneeded(n, absl::Hours(1));
  CHECK(f.Plan().removals.size() == 3);
}

TEST_CASE("the cluster's minimum cores are never crossed", "[controller][scale-down]") {
  Fixture f(2);
  f.limits.cores.min = 300;  // two nodes have 380 cores; one would leave 190
  for (NodePtr& n : f.view.nodes) MarkedUnneeded(n, absl::Hours(1));
  CHECK(f.Plan().removals.empty());
}

TEST_CASE("in a cooldown, and while pending pods fit on nodes, nodes are judged but none goes",
          "[controller][scale-down]") {
  Fixture f(1);
  MarkedUnneeded(f.view.nodes[0], absl::Hours(1));
  ScaleDownPlan plan = f.Plan(/*pods_for_existing_nodes=*/2);
  CHECK(plan.judged.size() == 1);
  CHECK(plan.removals.empty());
  CHECK(plan.cooldown == "2 pending pod(s) fit on existing or upcoming nodes: they land first");
}

TEST_CASE("a node running a pod that cannot be read is never a candidate",
          "[controller][scale-down]") {
  Fixture f(1);
  f.view.nodes_with_unreadable_pods.insert("h100-0");
  const ScaleDownPlan plan = f.Plan();
  REQUIRE(plan.judged.size() == 1);
  CHECK_FALSE(plan.judged[0].unneeded);
  CHECK(plan.judged[0].reason == "UnreadablePod");
}

TEST_CASE("scale-down off takes the marks of an earlier run off", "[controller][scale-down]") {
  Fixture f(1);
  MarkedUnneeded(f.view.nodes[0], absl::Hours(1));
  f.options.enabled = false;
  const ScaleDownPlan plan = f.Plan();
  CHECK(plan.unmark == std::vector<int>{0});
  CHECK(plan.removals.empty());
}

}  // namespace
}  // namespace gpua

namespace gpua {
namespace {

TEST_CASE("GPU pools are judged before others and dearer pools before cheaper, names last",
          "[controller][scale-down]") {
  Fixture f(0);
  NodeTemplate cpu;
  cpu.name = "cpu";
  cpu.allocatable = testing::Res({{"cpu", "64"}, {"memory", "256Gi"}, {"pods", "110"}});
  f.provider.groups[0].price_per_hour = 30;
  f.provider.groups.push_back(Group("h100-cheap", H100Template(), 0));
  f.provider.groups.back().price_per_hour = 20;
  f.provider.groups.push_back(Group("cpu", cpu, 0));
  f.provider.groups.back().price_per_hour = 90;  // dearest, but it has no GPUs
  const auto add = [&](const std::string& name, size_t group) {
    f.AddNode(name);
    f.provider.groups[0].instances.pop_back();
    f.provider.groups[group].instances.push_back(
        {f.view.nodes.back()->provider_id, InstanceState::kRunning, {}});
    f.provider.IndexInstances();
  };
  add("a-cpu", 2);
  add("b-cheap", 1);
  add("c-dear", 0);
  add("d-cheap", 1);
  std::vector<std::string> order;
  for (const NodeJudgement& j : f.Plan().judged) {
    order.push_back(f.state.nodes[j.node].node->node.name);
  }
  CHECK(order == std::vector<std::string>{"c-dear", "b-cheap", "d-cheap", "a-cpu"});
}

TEST_CASE("a loop simulates at most the non-empty candidates count of drains, and all get a turn",
          "[controller][scale-down]") {
  Fixture f(4);
  for (int i = 0; i < 4; ++i)
    f.AddPod(absl::StrCat("h100-", i), testing::Res({{"nvidia.com/gpu", "1"}}));
  MarkedUnneeded(f.view.nodes[2], absl::Minutes(1));
  MarkedUnneeded(f.view.nodes[3], absl::Minutes(1));
  f.options.non_empty_candidates = 1;
  ClusterStateBuilder builder(f.state_options);
  f.state = builder.Build(f.view, f.provider, f.backoff, kNow);
  ScaleDownPlanner planner(f.options, f.limits);
  LoopMemory loop_memory = f.Memory();
  ScaleDownMemory kept;  // when each node's drain was last simulated, loop to loop
  std::vector<std::string> order;
  for (int loop = 0; loop < 4; ++loop) {
    const ScaleDownPlan plan =
        planner.Plan(f.Input(loop_memory, kNow + absl::Seconds(10 * loop)), {0, 0, {}}, kept);
    REQUIRE(plan.judged.size() == 1);  // the others wait their turn, unjudged
    order.push_back(f.state.nodes[plan.judged[0].node].node->node.name);
    CHECK(plan.unmark.empty());  // a marked node not judged this loop keeps its mark
  }
  // Nodes already unneeded first, then those judged longest ago: each once in four loops.
  // (Neither marked node is due yet: due ones would come first.)
  CHECK(order == std::vector<std::string>{"h100-2", "h100-3", "h100-0", "h100-1"});
}

TEST_CASE("a node that goes and comes back under its name has no turn remembered",
          "[controller][scale-down]") {
  Fixture f(3);
  const auto add_pod = [&](int node) {
    f.AddPod(absl::StrCat("h100-", node), testing::Res({{"nvidia.com/gpu", "1"}}));
  };
  for (int i = 0; i < 3; ++i) add_pod(i);
  f.options.non_empty_candidates = 1;
  ScaleDownPlanner planner(f.options, f.limits);
  LoopMemory loop_memory = f.Memory();
  ScaleDownMemory kept;
  absl::Time now = kNow;
  const auto judged_next = [&] {
    now += absl::Seconds(10);
    ClusterStateBuilder builder(f.state_options);
    f.state = builder.Build(f.view, f.provider, f.backoff, now);
    const ScaleDownPlan plan = planner.Plan(f.Input(loop_memory, now), {0, 0, {}}, kept);
    REQUIRE(plan.judged.size() == 1);
    return f.state.nodes[plan.judged[0].node].node->node.name;
  };
  CHECK(judged_next() == "h100-0");
  CHECK(judged_next() == "h100-1");
  CHECK(judged_next() == "h100-2");
  // h100-2 goes; a loop runs without it; it comes back with a new node, h100-3.
  const NodePtr gone = f.view.nodes.back();
  f.view.nodes.pop_back();
  CHECK(judged_next() == "h100-0");
  f.view.nodes.push_back(gone);
  f.AddNode("h100-3");
  add_pod(3);
  // Neither was judged as the node it is now: by name, h100-2 first.
  CHECK(judged_next() == "h100-2");
  CHECK(judged_next() == "h100-3");
}

}  // namespace
}  // namespace gpua

namespace gpua {
namespace {

// A fixture with no nodes of its own and groups added by hand, each node moved to its group.
struct PricedFixture : Fixture {
  PricedFixture() : Fixture(0) { provider.groups.clear(); }
  void AddGroup(const std::string& id, NodeTemplate t, double price, int min_size = 0) {
    ProviderGroup g = Group(id, std::move(t), 0);
    g.price_per_hour = price;
    g.min_size = min_size;
    g.options.scale_down_unneeded_time = absl::Minutes(10);
    g.options.scale_down_gpu_utilization_threshold = 0.5;
    g.options.scale_down_utilization_threshold = 0.5;
    provider.groups.push_back(std::move(g));
  }
  NodePtr& AddNodeTo(const std::string& name, size_t group) {
    ProviderGroup& g = provider.groups[group];
    auto n = NodeOf(name, *g.node_template, kNow - absl::Hours(1));
    g.instances.push_back({n->provider_id, InstanceState::kRunning, {}});
    ++g.target_size;
    provider.IndexInstances();
    view.nodes.push_back(n);
    return view.nodes.back();
  }
  // A cheaper and a dearer pool of 8-GPU nodes, with a node each.
  void AddV100Pools(const std::string& cheap, const std::string& dear) {
    AddGroup("v100-16gb", H100Template(), 24.48);
    AddGroup("v100-32gb", H100Template(), 31.22);
    AddNodeTo(cheap, 0);
    AddNodeTo(dear, 1);
  }
  const NodeJudgement& JudgementOf(const ScaleDownPlan& plan, const std::string& name) {
    for (const NodeJudgement& j : plan.judged) {
      if (state.nodes[j.node].node->node.name == name) return j;
    }
    FAIL("node " << name << " was not judged");
    return plan.judged.front();
  }
  std::vector<std::string> Names(const std::vector<int>& nodes) {
    std::vector<std::string> out;
    for (int i : nodes) out.push_back(state.nodes[i].node->node.name);
    return out;
  }
  std::vector<std::string> Removed(const ScaleDownPlan& plan) {
    std::vector<int> nodes;
    for (const NodeRemoval& r : plan.removals) nodes.push_back(r.node);
    return Names(nodes);
  }
};

NodeTemplate CpuTemplate() {
  NodeTemplate cpu;
  cpu.name = "cpu";
  cpu.allocatable = testing::Res({{"cpu", "64"}, {"memory", "256Gi"}, {"pods", "110"}});
  return cpu;
}

TEST_CASE(
    "a cpu node at its group's min size is room for a GPU node's last small pod and is never "
    "marked, even when judged first",
    "[controller][scale-down]") {
  PricedFixture f;
  f.AddGroup("h100", H100Template(), 55.04);
  f.AddGroup("cpu", CpuTemplate(), 2.1, /*min_size=*/1);
  f.AddNodeTo("h100-0", 0);
  // The cpu node carries a mark an earlier run wrote: due, so judged before the GPU node.
  MarkedUnneeded(f.AddNodeTo("cpu-0", 1), absl::Hours(1));
  f.AddPod("h100-0", testing::Res({{"cpu", "100m"}}));
  ScaleDownPlan plan = f.Plan();
  CHECK(f.JudgementOf(plan, "cpu-0").reason == "NodeGroupMinSizeReached");
  CHECK(f.JudgementOf(plan, "h100-0").unneeded);
  CHECK(f.Names(plan.mark) == std::vector<std::string>{"h100-0"});
  CHECK(f.Names(plan.unmark) == std::vector<std::string>{"cpu-0"});
  // Once its idle time has passed, the GPU node goes and its pod moves to the cpu node.
  MarkedUnneeded(f.view.nodes[0], absl::Minutes(10));
  plan = f.Plan();
  CHECK(f.Removed(plan) == std::vector<std::string>{"h100-0"});
  REQUIRE(plan.removals.size() == 1);
  CHECK(plan.removals[0].reason == "underutilized");
  CHECK_THAT(plan.removals[0].why, Catch::Contains("saves $55.04/h"));
}

TEST_CASE(
    "a candidate whose time has not come takes the room its pods would need, so two candidates "
    "never count on the same room",
    "[controller][scale-down]") {
  PricedFixture f;
  f.AddGroup("h100", H100Template(), 55.04);
  for (int i = 0; i < 2; ++i) {
    f.AddNodeTo(absl::StrCat("h100-", i), 0);
    f.AddPod(absl::StrCat("h100-", i), testing::Res({{"nvidia.com/gpu", "3"}}));
  }
  // Neither is due: the first is a candidate and its pods take the other's room, which is
  // then needed. Unmarked, it keeps no clock that would run out for nothing.
  const ScaleDownPlan plan = f.Plan();
  CHECK(f.Names(plan.mark) == std::vector<std::string>{"h100-0"});
  CHECK(f.JudgementOf(plan, "h100-1").reason == "NoPlaceToMovePods");
  CHECK(plan.removals.empty());
}

TEST_CASE("of two nodes that could each take the other's pods, the dearer goes",
          "[controller][scale-down]") {
  PricedFixture f;
  f.AddV100Pools("a-cheap", "b-dear");
  f.AddPod("a-cheap", testing::Res({{"nvidia.com/gpu", "1"}}));
  f.AddPod("b-dear", testing::Res({{"nvidia.com/gpu", "1"}}));
  for (NodePtr& n : f.view.nodes) MarkedUnneeded(n, absl::Minutes(10));
  const ScaleDownPlan plan = f.Plan();
  CHECK(f.Removed(plan) == std::vector<std::string>{"b-dear"});
  const NodeJudgement& cheap = f.JudgementOf(plan, "a-cheap");
  CHECK(cheap.reason == "NoPlaceToMovePods");
  CHECK(f.Names(plan.unmark) == std::vector<std::string>{"a-cheap"});
}

TEST_CASE(
    "prices are compared per GPU: an 8-GPU node's pods never move onto a 4-GPU node that costs "
    "less a node but more a GPU",
    "[controller][scale-down]") {
  PricedFixture f;
  NodeTemplate four = H100Template();
  four.labels["nvidia.com/gpu.count"] = "4";
  four.allocatable.Set("nvidia.com/gpu", Quantity::FromUnits(4));
  f.AddGroup("l4-spot-8", H100Template(), 4.50);  // $0.56 a GPU
  f.AddGroup("l4-4", four, 4.25);                 // $1.06 a GPU
  f.AddNodeTo("big", 0);
  f.AddNodeTo("small", 1);
  f.AddPod("big", testing::Res({{"nvidia.com/gpu", "1"}}));
  f.AddPod("small", testing::Res({{"nvidia.com/gpu", "3"}}));
  MarkedUnneeded(f.view.nodes[0], absl::Minutes(10));
  const ScaleDownPlan plan = f.Plan();
  CHECK(plan.removals.empty());
  const NodeJudgement& big = f.JudgementOf(plan, "big");
  CHECK(big.reason == "NoPlaceToMovePods");
  CHECK_THAT(big.Detail(),
             Catch::Contains("node small costs $1.06/h per unit, more than this node's $0.56/h"));
}

TEST_CASE("pods never move onto a dearer node so that a cheaper one can go",
          "[controller][scale-down]") {
  PricedFixture f;
  f.AddV100Pools("cheap", "dear");
  // The dear node runs an hour-long job on 4 GPUs: busy, and with room for the cheap node's.
  f.AddPod("dear", testing::Res({{"nvidia.com/gpu", "4"}}));
  f.AddPod("cheap", testing::Res({{"nvidia.com/gpu", "2"}}));
  MarkedUnneeded(f.view.nodes[0], absl::Minutes(10));
  const ScaleDownPlan plan = f.Plan();
  CHECK(plan.removals.empty());
  const NodeJudgement& cheap = f.JudgementOf(plan, "cheap");
  CHECK(cheap.reason == "NoPlaceToMovePods");
  CHECK_THAT(cheap.Detail(),
             Catch::Contains("node dear costs $3.90/h per unit, more than this node's $3.06/h"));
  // Once the job ends, the dear node is empty and goes; the cheap node stays.
  f.view = ClusterView{};
  f.view.nodes = {f.state.nodes[0].node, f.state.nodes[1].node};
  f.AddPod("cheap", testing::Res({{"nvidia.com/gpu", "2"}}));
  MarkedUnneeded(f.view.nodes[1], absl::Minutes(10));
  const ScaleDownPlan later = f.Plan();
  CHECK(f.Removed(later) == std::vector<std::string>{"dear"});
}

TEST_CASE("of due nodes at one price, the one using fewest GPUs goes first",
          "[controller][scale-down]") {
  PricedFixture f;
  f.AddGroup("h100", H100Template(), 55.04);
  f.AddNodeTo("a", 0);
  f.AddNodeTo("b", 0);
  f.AddNodeTo("c", 0);
  f.AddPod("a", testing::Res({{"nvidia.com/gpu", "3"}}));
  f.AddPod("b", testing::Res({{"nvidia.com/gpu", "1"}}));
  f.AddPod("c", testing::Res({{"nvidia.com/gpu", "4"}}));  // busy: the others' room
  MarkedUnneeded(f.view.nodes[0], absl::Minutes(10));
  MarkedUnneeded(f.view.nodes[1], absl::Minutes(10));
  f.options.max_drain_parallelism = 1;
  const ScaleDownPlan plan = f.Plan();
  CHECK(f.Removed(plan) == std::vector<std::string>{"b"});
  CHECK(f.JudgementOf(plan, "a").unneeded);  // still a candidate, for a later loop
}

TEST_CASE("a node whose GPUs are not advertised yet never carries the deletion-candidate mark",
          "[controller][scale-down]") {
  PricedFixture f;
  f.AddGroup("h100", H100Template(), 55.04);
  NodePtr& n = f.AddNodeTo("h100-0", 0);
  n = NodeOf("h100-0", H100Template(), kNow - absl::Minutes(1), true, /*with_gpus=*/false);
  MarkedUnneeded(n, absl::Minutes(30));
  const ScaleDownPlan plan = f.Plan();
  CHECK(plan.judged.empty());
  CHECK(plan.mark.empty());
  CHECK(f.Names(plan.unmark) == std::vector<std::string>{"h100-0"});
}

TEST_CASE(
    "a marked node whose drain waits for a later loop still counts against its group's min size",
    "[controller][scale-down]") {
  PricedFixture f;
  f.AddGroup("h100", H100Template(), 55.04, /*min_size=*/1);
  f.AddNodeTo("d", 0);  // due: judged first, and spends the loop's one drain simulation
  f.AddPod("d", testing::Res({{"nvidia.com/gpu", "1"}}));
  f.AddNodeTo("m", 0);  // marked a minute ago: its drain waits, its mark stays
  f.AddPod("m", testing::Res({{"nvidia.com/gpu", "1"}}));
  f.AddNodeTo("e", 0);  // empty: needs no drain simulation
  MarkedUnneeded(f.view.nodes[0], absl::Minutes(30));
  MarkedUnneeded(f.view.nodes[1], absl::Minutes(1));
  f.options.non_empty_candidates = 1;
  const ScaleDownPlan plan = f.Plan();
  CHECK(f.Removed(plan) == std::vector<std::string>{"d"});
  // Three nodes, min 1: "d" goes and "m" keeps its mark, so "e" may not be a candidate too.
  CHECK(f.JudgementOf(plan, "e").reason == "NodeGroupMinSizeReached");
  CHECK(plan.mark.empty());
  CHECK(plan.unmark.empty());
}

}  // namespace
}  // namespace gpua

namespace gpua {
namespace {

const NodeJudgement* JudgementOf(const ScaleDownPlan& plan, int node) {
  for (const NodeJudgement& j : plan.judged) {
    if (j.node == node) return &j;
  }
  return nullptr;
}

TEST_CASE("a CapacityBuffer's warm node stays while the other empty nodes of its group go",
          "[controller][scale-down][warm]") {
  Fixture f(3);
  for (NodePtr& n : f.view.nodes) MarkedUnneeded(n, absl::Minutes(20));
  f.Warm(1, {{"nvidia.com/gpu", Quantity::FromUnits(8)}});
  const ScaleDownPlan plan = f.Plan();
  CHECK(plan.removals.size() == 2);
  int kept = 0;
  for (int i = 0; i < 3; ++i) {
    const NodeJudgement* j = JudgementOf(plan, i);
    REQUIRE(j != nullptr);
    if (j->unneeded) continue;
    ++kept;
    CHECK(j->reason == "WarmCapacity");
    CHECK_THAT(j->Detail(), Catch::Contains("CapacityBuffer ml/warm"));
  }
  CHECK(kept == 1);
}

TEST_CASE("without warm capacity the same three empty nodes all go",
          "[controller][scale-down][warm]") {
  Fixture f(3);
  for (NodePtr& n : f.view.nodes) MarkedUnneeded(n, absl::Minutes(20));
  CHECK(f.Plan().removals.size() == 3);
}

TEST_CASE("pods of an underused node do not move into the room warm capacity holds",
          "[controller][scale-down][warm]") {
  Fixture f(2);
  // h100-0 uses 2 of 8 GPUs; h100-1 is empty and holds 8 GPUs of warm capacity.
  f.AddPod("h100-0", {{"nvidia.com/gpu", Quantity::FromUnits(2)}});
  f.Warm(1, {{"nvidia.com/gpu", Quantity::FromUnits(8)}});
  for (NodePtr& n : f.view.nodes) MarkedUnneeded(n, absl::Minutes(20));
  const ScaleDownPlan plan = f.Plan();
  // Either the warm node goes and its room moves onto h100-0 (which has only 6 free: no), or
  // h100-0 goes and its pod moves into the warm room (no): both stay.
  CHECK(plan.removals.empty());
  for (int i = 0; i < 2; ++i) {
    const NodeJudgement* j = JudgementOf(plan, i);
    REQUIRE(j != nullptr);
    CHECK_FALSE(j->unneeded);
  }
}

}  // namespace
}  // namespace gpua
