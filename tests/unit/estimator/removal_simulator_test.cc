// Where the pods of a node to be removed would go, as kube-scheduler would place them.
#include "estimator/removal_simulator.h"

#include <catch2/catch.hpp>

#include "tests/unit/estimator/test_util.h"

namespace gpua {
namespace {

using testing::CpuNode;
using testing::Pod;
using testing::Res;

Node GpuNode(const std::string& name, const std::string& free_gpus_used) {
  Node n;
  n.name = name;
  n.labels = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}, {"nvidia.com/gpu.count", "8"}};
  n.allocatable =
      Res({{"cpu", "190"}, {"memory", "1900Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "8"}});
  n.taints = {{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule}};
  PodSpec train = Pod(name + "-train", Res({{"nvidia.com/gpu", free_gpus_used}}), "train");
  train.tolerations = {testing::TolerateGpu()};
  n.pods.push_back(std::make_shared<PodSpec>(train));
  return n;
}

std::vector<const PodSpec*> PodsOf(const Node& n) {
  std::vector<const PodSpec*> out;
  for (const auto& p : n.pods) out.push_back(p.get());
  return out;
}

TEST_CASE("two removals never count on the same room", "[removal]") {
  const std::vector<Node> nodes = {CpuNode("a", "3"), CpuNode("b", "1"), CpuNode("c", "1")};
  ClusterSnapshot snapshot(nodes);
  RemovalSimulator sim(snapshot);
  std::string why;
  REQUIRE(sim.TryRemove(0, PodsOf(nodes[0]), &why));  // a's 3 cores go to b
  CHECK_FALSE(sim.TryRemove(2, PodsOf(nodes[2]), &why));
  CHECK_THAT(why, Catch::Contains("pod default/c-app fits no other node"));
}

TEST_CASE("a node that took pods from a removed node moves them on if it goes too", "[removal]") {
  const std::vector<Node> nodes = {CpuNode("a", "2"), CpuNode("b", "1"), CpuNode("c", "0"),
                                   CpuNode("d", "1")};
  ClusterSnapshot snapshot(nodes);
  RemovalSimulator sim(snapshot);
  std::string why;
  REQUIRE(sim.TryRemove(0, PodsOf(nodes[0]), &why));  // a's 2 cores go to b (3 used)
  // b's own core and a's two go to c, which then has 1 free: d's core still fits there.
  REQUIRE(sim.TryRemove(1, PodsOf(nodes[1]), &why));
  CHECK(sim.TryRemove(3, PodsOf(nodes[3]), &why));
  // With d gone too, c is full: nothing else would fit.
  const PodSpec extra = Pod("extra", Res({{"cpu", "100m"}}), "app");
  CHECK_FALSE(sim.TryRemove(3, {&extra}, &why));
}

TEST_CASE("nodes that share their props still each answer a pod that picks a node by name",
          "[removal]") {
  // Whatever is remembered of shared props, a selection that reads the node's name is not theirs.
  auto props = std::make_shared<NodeProps>();
  std::vector<Node> nodes = {CpuNode("leaving", "1"), CpuNode("x", "0"), CpuNode("y", "0")};
  for (Node& n : nodes) n.props = props;
  PodSpec pinned = Pod("pinned", Res({{"cpu", "1"}}), "app");
  pinned.required_node_affinity =
      NodeSelector{{NodeSelectorTerm{{}, {Requirement{"metadata.name", SelectorOp::kIn, {"y"}}}}}};
  ClusterSnapshot snapshot(nodes);
  RemovalSimulator sim(snapshot);
  std::string why;
  REQUIRE(sim.TryRemove(0, {&pinned}, &why));
  CHECK(snapshot.node(1).free[ResourceCatalog::kCpu] == 4000);
  CHECK(snapshot.node(2).free[ResourceCatalog::kCpu] == 3000);
}

TEST_CASE("a removal that fails leaves the room as it was", "[removal]") {
  Node big = CpuNode("big", "1");
  big.pods.push_back(std::make_shared<PodSpec>(Pod("huge", Res({{"cpu", "3500m"}}), "app")));
  const std::vector<Node> nodes = {big, CpuNode("b", "1"), CpuNode("c", "3")};
  ClusterSnapshot snapshot(nodes);
  RemovalSimulator sim(snapshot);
  std::string why;
  CHECK_FALSE(sim.TryRemove(0, PodsOf(nodes[0]), &why));  // "huge" fits nowhere
  // Had big's first pod kept its place on b, c's 3 cores would not fit there.
  CHECK(sim.TryRemove(2, PodsOf(nodes[2]), &why));
}

TEST_CASE("a node excluded (cordoned, or being removed) takes no pods", "[removal]") {
  const std::vector<Node> nodes = {CpuNode("a", "2"), CpuNode("b", "0")};
  ClusterSnapshot snapshot(nodes);
  RemovalSimulator sim(snapshot);
  sim.Exclude(1);
  std::string why;
  CHECK_FALSE(sim.TryRemove(0, PodsOf(nodes[0]), &why));
}

TEST_CASE("GPU pods move only to a GPU node with GPUs free, and cpu pods heed its taint",
          "[removal][gpu]") {
  const std::vector<Node> nodes = {GpuNode("h100-0", "4"), GpuNode("h100-1", "4"),
                                   GpuNode("h100-2", "6")};
  ClusterSnapshot snapshot(nodes);
  RemovalSimulator sim(snapshot);
  std::string why;
  CHECK(sim.TryRemove(0, PodsOf(nodes[0]), &why));        // 4 GPUs go to h100-1
  CHECK_FALSE(sim.TryRemove(2, PodsOf(nodes[2]), &why));  // 6 fit nowhere now

  const std::vector<Node> mixed = {CpuNode("cpu-0", "1"), GpuNode("h100-0", "0")};
  ClusterSnapshot with_gpu(mixed);
  RemovalSimulator taints(with_gpu);
  const PodSpec cpu_pod = Pod("web", Res({{"cpu", "3500m"}}), "web");
  CHECK_FALSE(taints.TryRemove(0, {&cpu_pod}, &why));
  CHECK_THAT(why, Catch::Contains("taint"));
}

}  // namespace
}  // namespace gpua

namespace gpua {
namespace {

TEST_CASE("pods never move onto a node dearer than the one they leave", "[removal]") {
  const std::vector<Node> nodes = {testing::CpuNode("cheap", "1"), testing::CpuNode("dear", "0"),
                                   testing::CpuNode("same", "3")};
  ClusterSnapshot snapshot(nodes);
  RemovalSimulator sim(snapshot);
  sim.SetNodePrices({2.0, 9.0, 2.0});
  std::string why;
  std::vector<const PodSpec*> pods;
  for (const auto& p : nodes[0].pods) pods.push_back(p.get());
  // "same" costs as much and has one core left: the pod goes there, not to the empty dear node.
  REQUIRE(sim.TryRemove(0, pods, &why));
  CHECK(snapshot.node(1).free[ResourceCatalog::kCpu] == 4000);
  const PodSpec two = testing::Pod("two", testing::Res({{"cpu", "2"}}), "app");
  CHECK_FALSE(sim.TryRemove(0, {&two}, &why));
  CHECK_THAT(why,
             Catch::Contains("node dear costs $9.00/h per unit, more than this node's $2.00/h"));
}

}  // namespace
}  // namespace gpua

namespace gpua {
namespace {

TEST_CASE("pods go to a node that stays before a node that may go itself", "[removal]") {
  const std::vector<Node> nodes = {testing::CpuNode("leaving", "1"),
                                   testing::CpuNode("candidate", "0"),
                                   testing::CpuNode("staying", "2")};
  ClusterSnapshot snapshot(nodes);
  RemovalSimulator sim(snapshot);
  sim.Avoid(1);
  std::string why;
  std::vector<const PodSpec*> pods;
  for (const auto& p : nodes[0].pods) pods.push_back(p.get());
  REQUIRE(sim.TryRemove(0, pods, &why));
  CHECK(snapshot.node(1).free[ResourceCatalog::kCpu] == 4000);
  CHECK(snapshot.node(2).free[ResourceCatalog::kCpu] == 1000);
  // When only the candidate has room, it takes the pod all the same.
  const PodSpec big = testing::Pod("big", testing::Res({{"cpu", "3"}}), "app");
  CHECK(sim.TryRemove(2, {&big}, &why));
}

}  // namespace
}  // namespace gpua
