#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/gpu/gpu_inventory_reader.h"
#include "estimator/group_packer.h"
#include "estimator/predicates.h"
#include "test_util.h"

namespace gpua {
namespace {

using testing::GpuGroup;
using testing::Group;
using testing::Plan;
using testing::Pod;
using testing::Res;

std::vector<PodSpec> Replicas(const std::string& owner, int n, const ResourceList& requests,
                              bool tolerate_gpu = false) {
  std::vector<PodSpec> pods;
  for (int i = 0; i < n; ++i) {
    pods.push_back(Pod(absl::StrCat(owner, "-", i), requests, owner));
    if (tolerate_gpu) pods.back().tolerations.push_back(testing::TolerateGpu());
  }
  return pods;
}

Node ExistingNode(const std::string& name, ResourceList allocatable, Labels labels = {}) {
  Node n;
  n.name = name;
  n.allocatable = std::move(allocatable);
  n.labels = std::move(labels);
  n.labels["kubernetes.io/hostname"] = name;
  return n;
}

TEST_CASE("cluster-autoscaler's benchmark shape, scaled down: first fit decreasing", "[estimate]") {
  std::vector<PodSpec> pods = Replicas("small", 500, Res({{"cpu", "50m"}, {"memory", "100"}}));
  auto large = Replicas("large", 10, Res({{"cpu", "95m"}, {"memory", "190"}}));
  pods.insert(pods.end(), large.begin(), large.end());
  ScaleUpPlan plan =
      Plan(pods, {Group("g", Res({{"cpu", "1000m"}, {"memory", "5000"}, {"pods", "100"}}), 100)});
  REQUIRE(plan.groups.size() == 1);
  // 10 large pods fill one node with room for one small pod; 499 small pods need 25 more.
  CHECK(plan.groups[0].new_nodes() == 26);
  CHECK(plan.groups[0].pods.size() == 510);
  CHECK(plan.unschedulable.empty());
}

TEST_CASE("four pods asking for one whole GPU each need one 4-GPU node, not four", "[estimate]") {
  auto pods = Replicas("infer", 4, Res({{"cpu", "1"}, {"nvidia.com/gpu", "1"}}), true);
  ScaleUpPlan plan = Plan(pods, {GpuGroup("a100x4", 4)});
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].new_nodes() == 1);
}

TEST_CASE("pods that fit free capacity on existing nodes need no new node", "[estimate]") {
  auto pods = Replicas("web", 3, Res({{"cpu", "1"}}));
  ScaleUpPlan plan = Plan(pods, {Group("g", Res({{"cpu", "4"}, {"pods", "10"}}))},
                          {ExistingNode("n1", Res({{"cpu", "2"}, {"pods", "10"}}))});
  CHECK(plan.on_existing.size() == 2);
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].new_nodes() == 1);
  CHECK(plan.groups[0].pods.size() == 1);
}

TEST_CASE("a pod that fits no group gets the reason for each group", "[estimate]") {
  std::vector<PodSpec> pods = {Pod("big", Res({{"cpu", "1"}, {"nvidia.com/gpu", "8"}}))};
  pods[0].tolerations.push_back(testing::TolerateGpu());
  NodeGroupSpec cpu = Group("cpu", Res({{"cpu", "16"}, {"pods", "110"}}));
  NodeGroupSpec gpu4 = GpuGroup("gpu4", 4);
  NodeGroupSpec tainted = GpuGroup("tainted", 8);
  tainted.node_template.taints.push_back({"dedicated", "team-a", TaintEffect::kNoSchedule});
  ScaleUpPlan plan = Plan(pods, {cpu, gpu4, tainted});
  REQUIRE(plan.unschedulable.size() == 1);
  const auto& reasons = *plan.unschedulable[0].reasons;
  CHECK(reasons.at("cpu") == "Insufficient nvidia.com/gpu (requested 8, free 0)");
  CHECK(reasons.at("gpu4") == "Insufficient nvidia.com/gpu (requested 8, free 4)");
  CHECK(reasons.at("tainted") == "node(s) had untolerated taint {dedicated: team-a}");
}

TEST_CASE("node selectors steer pods to the pool whose labels match", "[estimate]") {
  auto pods = Replicas("train", 2, Res({{"nvidia.com/gpu", "8"}}), true);
  for (PodSpec& p : pods) p.node_selector = {{"gpu", "h100"}};
  NodeGroupSpec a100 = GpuGroup("a100", 8, 10, 1.0);
  a100.node_template.labels = {{"gpu", "a100"}};
  NodeGroupSpec h100 = GpuGroup("h100", 8, 10, 50.0);
  h100.node_template.labels = {{"gpu", "h100"}};
  ScaleUpPlan plan = Plan(pods, {a100, h100}, {}, "price");
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].group_id == "h100");
  CHECK(plan.groups[0].new_nodes() == 2);
}

TEST_CASE("a group's headroom limits the nodes planned and the rest get a reason", "[estimate]") {
  auto pods = Replicas("train", 5, Res({{"nvidia.com/gpu", "8"}}), true);
  NodeGroupSpec g = GpuGroup("h100", 8, /*max_size=*/3);
  g.target_size = 1;
  ScaleUpPlan plan = Plan(pods, {g});
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].new_nodes() == 2);
  REQUIRE(plan.unschedulable.size() == 3);
  CHECK_THAT(plan.unschedulable[0].reasons->at("h100"), Catch::Contains("can add no more nodes"));
}

TEST_CASE("the per-scale-up cap holds across groups", "[estimate]") {
  auto pods = Replicas("web", 10, Res({{"cpu", "4"}}));
  EstimateOptions options;
  options.max_new_nodes = 3;
  ScaleUpPlan plan = Plan(pods,
                          {Group("a", Res({{"cpu", "4"}, {"pods", "10"}})),
                           Group("b", Res({{"cpu", "4"}, {"pods", "10"}}))},
                          {}, "least-waste", options);
  CHECK(plan.total_new_nodes() == 3);
  CHECK(plan.unschedulable.size() == 7);
}

TEST_CASE("an invalid pod is reported with its error and the rest are planned", "[estimate]") {
  auto pods = Replicas("web", 2, Res({{"cpu", "1"}}));
  PodSpec bad = Pod("bad", {});
  bad.invalid = absl::InvalidArgumentError("Pod default/bad: spec.containers[0]: broken");
  pods.push_back(bad);
  ScaleUpPlan plan = Plan(pods, {Group("g", Res({{"cpu", "4"}, {"pods", "10"}}))});
  CHECK(plan.total_new_nodes() == 1);
  REQUIRE(plan.unschedulable.size() == 1);
  CHECK(plan.unschedulable[0].reasons->at("g") == "Pod default/bad: spec.containers[0]: broken");
}

TEST_CASE("pods with hostname anti-affinity against each other get a node each", "[estimate]") {
  auto pods = Replicas("db", 3, Res({{"cpu", "100m"}}));
  for (PodSpec& p : pods) {
    p.labels = {{"app", "db"}};
    p.anti_affinity.push_back(
        {LabelSelector{{{"app", SelectorOp::kIn, {"db"}}}}, {}, false, "kubernetes.io/hostname"});
  }
  ScaleUpPlan plan = Plan(pods, {Group("g", Res({{"cpu", "8"}, {"pods", "110"}}))});
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].new_nodes() == 3);
}

TEST_CASE("an existing pod's anti-affinity keeps new pods off its node", "[estimate]") {
  Node n = ExistingNode("n1", Res({{"cpu", "8"}, {"pods", "110"}}));
  PodSpec guard = Pod("guard", Res({{"cpu", "100m"}}));
  guard.node_name = "n1";
  guard.anti_affinity.push_back(
      {LabelSelector{{{"app", SelectorOp::kIn, {"web"}}}}, {}, false, "kubernetes.io/hostname"});
  n.pods.push_back(std::make_shared<PodSpec>(guard));
  auto pods = Replicas("web", 1, Res({{"cpu", "100m"}}));
  pods[0].labels = {{"app", "web"}};
  ScaleUpPlan plan = Plan(pods, {Group("g", Res({{"cpu", "8"}, {"pods", "110"}}))}, {n});
  CHECK(plan.on_existing.empty());
  CHECK(plan.total_new_nodes() == 1);
}

TEST_CASE(
    "required pod affinity lets the first pod of a group start anywhere and keeps the "
    "rest with it",
    "[estimate]") {
  auto pods = Replicas("worker", 4, Res({{"cpu", "1"}}));
  for (PodSpec& p : pods) {
    p.labels = {{"app", "worker"}};
    p.affinity.push_back({LabelSelector{{{"app", SelectorOp::kIn, {"worker"}}}},
                          {},
                          false,
                          "topology.kubernetes.io/zone"});
  }
  NodeGroupSpec g = Group("g", Res({{"cpu", "2"}, {"pods", "110"}}));
  g.node_template.labels = {{"topology.kubernetes.io/zone", "a"}};
  ScaleUpPlan plan = Plan(pods, {g});
  CHECK(plan.total_new_nodes() == 2);
  CHECK(plan.unschedulable.empty());
}

TEST_CASE(
    "topology spread on hostname: an existing node without the pods holds the skew, so "
    "each new node takes one",
    "[estimate]") {
  auto pods = Replicas("api", 3, Res({{"cpu", "100m"}}));
  for (PodSpec& p : pods) {
    p.labels = {{"app", "api"}};
    p.spread.push_back(
        {1, "kubernetes.io/hostname", LabelSelector{{{"app", SelectorOp::kIn, {"api"}}}}, 1});
  }
  NodeGroupSpec g = Group("g", Res({{"cpu", "8"}, {"pods", "110"}}));
  Node full = ExistingNode("full", Res({{"cpu", "0"}, {"pods", "110"}}));
  CHECK(Plan(pods, {g}, {full}).total_new_nodes() == 3);
  // With no other domain at all, kube-scheduler would stack them on the one new node.
  CHECK(Plan(pods, {g}).total_new_nodes() == 1);
}

TEST_CASE("a spread constraint on a key the template lacks is reported", "[estimate]") {
  auto pods = Replicas("api", 1, Res({{"cpu", "100m"}}));
  pods[0].spread.push_back({1, "topology.kubernetes.io/zone", LabelSelector{}, 1});
  ScaleUpPlan plan = Plan(pods, {Group("g", Res({{"cpu", "8"}, {"pods", "110"}}))});
  REQUIRE(plan.unschedulable.size() == 1);
  CHECK(plan.unschedulable[0].reasons->at("g") == std::string(kReasonSpreadMissingLabel));
}

TEST_CASE("host ports keep two copies of a pod off one node", "[estimate]") {
  auto pods = Replicas("ingress", 2, Res({{"cpu", "100m"}}));
  for (PodSpec& p : pods) p.host_ports.push_back({"TCP", "", 443});
  ScaleUpPlan plan = Plan(pods, {Group("g", Res({{"cpu", "8"}, {"pods", "110"}}))});
  CHECK(plan.total_new_nodes() == 2);
}

TEST_CASE("the pod limit of a node is honoured with its own reason", "[estimate]") {
  auto pods = Replicas("tiny", 5, Res({{"cpu", "10m"}}));
  ScaleUpPlan plan = Plan(pods, {Group("g", Res({{"cpu", "8"}, {"pods", "2"}}))});
  CHECK(plan.total_new_nodes() == 3);
  Node full = ExistingNode("n", Res({{"cpu", "8"}, {"pods", "0"}}));
  ClusterSnapshot snapshot({full});
  ResourceVector request = snapshot.PodRequest(pods[0]);
  CHECK(CheckFit(pods[0], request, snapshot, 0) == std::string(kReasonTooManyPods));
}

TEST_CASE(
    "estimates that keep admissions between them place as fresh ones do, node changes and all",
    "[estimate]") {
  const auto props = [](const std::string& pool, bool cordoned) {
    auto p = std::make_shared<NodeProps>();
    p->labels = {{"pool", pool}};
    p->unschedulable = cordoned;
    return std::shared_ptr<const NodeProps>(std::move(p));
  };
  const auto node = [](const std::string& name, std::shared_ptr<const NodeProps> p) {
    Node n = ExistingNode(name, Res({{"cpu", "2"}, {"pods", "10"}}));
    n.props = std::move(p);
    return n;
  };
  std::vector<PodSpec> pods = Replicas("web", 3, Res({{"cpu", "1"}}));
  std::vector<const PodSpec*> pending;
  for (PodSpec& p : pods) {
    p.node_selector["pool"] = "x";
    pending.push_back(&p);
  }
  const std::vector<NodeGroupSpec> groups = {Group("g", Res({{"cpu", "4"}, {"pods", "10"}}))};
  const auto a = props("x", false);
  StaticAdmissions kept;
  const auto placed = [&](std::vector<Node> nodes, StaticAdmissions& admissions) {
    ClusterSnapshot snapshot(std::move(nodes));
    auto chain = MakeExpanderChain("least-waste", {});
    std::vector<std::string> where;
    for (const ExistingPlacement& e :
         Estimate(pending, groups, {snapshot, admissions}, **chain, {}).on_existing) {
      where.push_back(e.node);
    }
    return where;
  };
  CHECK(placed({node("a", a), node("b", props("y", false))}, kept) ==
        std::vector<std::string>{"a", "a"});
  // a is cordoned now (new props), b joined pool x, c is new: a kept verdict must not stick.
  const std::vector<Node> later = {node("a", props("x", true)), node("b", props("x", false)),
                                   node("c", a)};
  StaticAdmissions fresh;
  CHECK(placed(later, kept) == placed(later, fresh));
  CHECK(placed(later, kept) == std::vector<std::string>{"b", "b", "c"});
}

TEST_CASE("a cordoned node takes no new pods", "[predicates]") {
  Node n = ExistingNode("n", Res({{"cpu", "8"}, {"pods", "10"}}));
  n.unschedulable = true;
  ClusterSnapshot snapshot({n});
  PodSpec p = Pod("p", Res({{"cpu", "1"}}));
  CHECK(CheckFit(p, snapshot.PodRequest(p), snapshot, 0) == std::string(kReasonUnschedulable));
}

TEST_CASE("daemonset pods on a template come off each new node's allocatable", "[estimate]") {
  NodeGroupSpec g = Group("g", Res({{"cpu", "4"}, {"pods", "110"}}));
  g.node_template.daemonset_pods.push_back(Pod("agent", Res({{"cpu", "1"}})));
  auto pods = Replicas("web", 2, Res({{"cpu", "2"}}));
  CHECK(Plan(pods, {g}).total_new_nodes() == 2);
}

TEST_CASE("the snapshot reverts a what-if to exactly what it was", "[snapshot]") {
  ClusterSnapshot snapshot({ExistingNode("n1", Res({{"cpu", "4"}, {"pods", "10"}}))});
  PodSpec p = Pod("p", Res({{"cpu", "1"}}));
  const ResourceVector before = snapshot.node(0).free;
  snapshot.Fork();
  snapshot.AddPods(0, &p, snapshot.PodRequest(p), 3);
  auto props = std::make_shared<NodeProps>();
  snapshot.AddNodeFromTemplate("new", props, snapshot.catalog().ToVector(Res({{"cpu", "2"}})), {},
                               {});
  CHECK(snapshot.size() == 2);
  CHECK(snapshot.node(0).pods.size() == 3);
  snapshot.Revert();
  CHECK(snapshot.size() == 1);
  CHECK(snapshot.node(0).pods.empty());
  CHECK(snapshot.node(0).free == before);
}

TEST_CASE("the plan is the same for the same input", "[estimate]") {
  auto pods = Replicas("a", 7, Res({{"cpu", "3"}}));
  auto more = Replicas("b", 5, Res({{"cpu", "1500m"}, {"nvidia.com/gpu", "1"}}), true);
  pods.insert(pods.end(), more.begin(), more.end());
  std::vector<NodeGroupSpec> groups = {Group("cpu", Res({{"cpu", "8"}, {"pods", "110"}})),
                                       GpuGroup("gpu", 4)};
  ScaleUpPlan first = Plan(pods, groups);
  ScaleUpPlan second = Plan(pods, groups);
  REQUIRE(first.groups.size() == second.groups.size());
  for (size_t i = 0; i < first.groups.size(); ++i) {
    CHECK(first.groups[i].group_id == second.groups[i].group_id);
    CHECK(first.groups[i].pods == second.groups[i].pods);
  }
}

TEST_CASE("a group's GPU inventory read beforehand is the one its template nodes carry",
          "[estimate]") {
  NodeGroupSpec spec = GpuGroup("l4x4", 4);
  spec.node_template.labels = {{"nvidia.com/gpu.product", "NVIDIA-L4"},
                               {"nvidia.com/gpu.count", "4"}};
  ClusterSnapshot snapshot({});
  const PreparedTemplate read_here = PrepareTemplate(spec, snapshot);
  REQUIRE(read_here.gpu != nullptr);
  CHECK(read_here.gpu->physical_count() == 4);

  auto read = ReadGpuInventory(spec.node_template.labels, spec.node_template.annotations,
                               spec.node_template.allocatable, "l4x4");
  REQUIRE(read.ok());
  REQUIRE(read->has_value());
  spec.gpus = std::make_shared<const GpuInventory>(**read);
  const PreparedTemplate given = PrepareTemplate(spec, snapshot);
  CHECK(given.gpu == spec.gpus);  // shared, not read again
  CHECK(given.props->gpu == spec.gpus);
  REQUIRE(given.variants.size() == read_here.variants.size());
  CHECK(given.variants[0].allocatable == read_here.variants[0].allocatable);
}

}  // namespace
}  // namespace gpua

namespace gpua {
namespace {

PodSpec GpuPodFor(const std::string& name, std::vector<std::string> models) {
  PodSpec p = testing::Pod(name, testing::Res({{"cpu", "1"}, {"nvidia.com/gpu", "8"}}), name);
  p.tolerations.push_back(testing::TolerateGpu());
  p.required_node_affinity = NodeSelector{
      {NodeSelectorTerm{{Requirement{"gpu.model", SelectorOp::kIn, std::move(models)}}, {}}}};
  return p;
}

NodeGroupSpec ModelGroup(const std::string& model, double price) {
  NodeGroupSpec g = testing::GpuGroup(model, 8, 10, price);
  g.node_template.labels["gpu.model"] = model;
  return g;
}

Node UpcomingOf(const NodeGroupSpec& g, const std::string& name) {
  Node n;
  n.name = name;
  n.upcoming = true;
  n.group_id = g.id;
  n.allocatable = g.node_template.allocatable;
  n.labels = g.node_template.labels;
  n.taints = g.node_template.taints;
  return n;
}

TEST_CASE(
    "a pod that accepts any GPU model does not take the upcoming node that the one-model pod "
    "needs: the most constrained pods are placed first",
    "[estimate]") {
  const NodeGroupSpec v100 = ModelGroup("v100", 24.48), t4 = ModelGroup("t4", 10.0);
  const std::vector<PodSpec> pods = {GpuPodFor("any", {"v100", "t4"}),
                                     GpuPodFor("v100-only", {"v100"})};
  const ScaleUpPlan plan = testing::Plan(pods, {v100, t4}, {UpcomingOf(v100, "upcoming-v100-0")});
  REQUIRE(plan.on_existing.size() == 1);
  CHECK(plan.on_existing[0].pod == 1);
  CHECK(plan.on_existing[0].node == "upcoming-v100-0");
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].pods == std::vector<int>{0});
}

TEST_CASE("a nominated pod is placed on its own node before any other pod", "[estimate]") {
  const NodeGroupSpec v100 = ModelGroup("v100", 24.48);
  const std::vector<PodSpec> pods = {GpuPodFor("first", {"v100"}), GpuPodFor("promised", {"v100"})};
  EstimateOptions options;
  options.nominated = {-1, 0};
  const ScaleUpPlan plan =
      testing::Plan(pods, {v100}, {UpcomingOf(v100, "upcoming-v100-0")}, "least-waste", options);
  REQUIRE(plan.on_existing.size() == 1);
  CHECK(plan.on_existing[0].pod == 1);
  CHECK(plan.on_existing[0].node_index == 0);
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].pods == std::vector<int>{0});
  CHECK(plan.missed.empty());
}

TEST_CASE("a nominated pod its node cannot hold is missed, with why, and planned again",
          "[estimate]") {
  NodeGroupSpec small = testing::GpuGroup("small", 4);
  Node upcoming;
  upcoming.name = "upcoming-small-0";
  upcoming.upcoming = true;
  upcoming.allocatable = small.node_template.allocatable;
  upcoming.taints = small.node_template.taints;
  std::vector<PodSpec> pods = {testing::Pod("big", testing::Res({{"nvidia.com/gpu", "8"}}), "big")};
  pods[0].tolerations.push_back(testing::TolerateGpu());
  EstimateOptions options;
  options.nominated = {0};
  const ScaleUpPlan plan = testing::Plan(pods, {small, testing::GpuGroup("large", 8)}, {upcoming},
                                         "least-waste", options);
  CHECK(plan.on_existing.empty());
  REQUIRE(plan.missed.size() == 1);
  CHECK_THAT(plan.missed[0].why, Catch::Contains("Insufficient nvidia.com/gpu"));
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].group_id == "large");
}

}  // namespace
}  // namespace gpua
