// The cluster a simulation runs on: what a reset leaves of the snapshot before it.
#include "estimator/cluster_snapshot.h"

#include <catch2/catch.hpp>

#include "estimator/node_room.h"
#include "tests/unit/estimator/test_util.h"

namespace gpua {
namespace {

using testing::CpuNode;
using testing::Pod;
using testing::Res;

TEST_CASE(
    "a reset snapshot is the snapshot of its new nodes: the pods placed, the nodes added "
    "and the marks of the last loop are gone",
    "[snapshot]") {
  ClusterSnapshot snapshot({CpuNode("a", "1"), CpuNode("b", "2"), CpuNode("c", "3")});
  const PodSpec extra = Pod("extra", Res({{"cpu", "1"}}), "app");
  snapshot.Fork();
  snapshot.AddPods(1, &extra, snapshot.PodRequest(extra), 2);
  snapshot.AddNodeFromTemplate("new-1", snapshot.node(0).props, {4000, 0, 0, 110}, {}, {});
  REQUIRE(snapshot.size() == 4);

  PodSpec spread = Pod("spread", Res({{"cpu", "1"}}), "web");
  PodAffinityTerm apart;
  apart.selector = LabelSelector{{Requirement{"app", SelectorOp::kIn, {"web"}}}};
  apart.topology_key = std::string(kLabelHostname);
  spread.anti_affinity.push_back(apart);
  Node b = CpuNode("b", "1");
  b.pods.push_back(std::make_shared<PodSpec>(spread));
  snapshot.Reset({CpuNode("z", "0"), std::move(b)});

  REQUIRE(snapshot.size() == 2);
  CHECK(snapshot.node(0).name == "z");
  CHECK(snapshot.node(0).free[ResourceCatalog::kCpu] == 4000);
  CHECK(snapshot.node(0).pods.size() == 1);
  CHECK_FALSE(snapshot.node(0).is_new);
  CHECK(snapshot.node(1).name == "b");
  CHECK(snapshot.node(1).free[ResourceCatalog::kCpu] == 2000);
  CHECK(snapshot.node(1).pods.size() == 2);
  REQUIRE(snapshot.pods_with_anti_affinity().size() == 1);
  CHECK(snapshot.pods_with_anti_affinity()[0].node == 1);

  // No mark is left over: a fork after the reset reverts to the reset state.
  snapshot.Fork();
  snapshot.AddPods(0, &extra, snapshot.PodRequest(extra));
  snapshot.Revert();
  CHECK(snapshot.node(0).free[ResourceCatalog::kCpu] == 4000);
  CHECK(snapshot.node(0).pods.size() == 1);
}

// A node as a planner hands it over: its props and room worked out once and shared.
Node Kept(const std::string& name, const std::shared_ptr<const NodeProps>& props,
          const std::shared_ptr<const NodeRoom>& room) {
  Node n;
  n.name = name;
  n.props = props;
  n.room = room;
  return n;
}

TEST_CASE(
    "nodes reset with the rooms they had are as the rooms say, also those the last loop placed "
    "pods on",
    "[snapshot]") {
  Node a = CpuNode("a", "1");
  Node b = CpuNode("b", "2");
  const std::shared_ptr<const NodeProps> props_a = ClusterSnapshot::PropsOf(a);
  const std::shared_ptr<const NodeProps> props_b = ClusterSnapshot::PropsOf(b);
  const std::shared_ptr<const NodeRoom> room_a = MakeNodeRoom(a.allocatable, a.pods);
  const std::shared_ptr<const NodeRoom> room_b = MakeNodeRoom(b.allocatable, b.pods);
  REQUIRE(room_a != nullptr);
  REQUIRE(room_b != nullptr);
  ClusterSnapshot snapshot({Kept("a", props_a, room_a), Kept("b", props_b, room_b)});
  const PodSpec extra = Pod("extra", Res({{"cpu", "1"}}), "app");
  snapshot.AddPods(1, &extra, snapshot.PodRequest(extra));  // kept, as a removal keeps it
  CHECK(snapshot.node(1).free[ResourceCatalog::kCpu] == 1000);

  snapshot.Reset({Kept("a", props_a, room_a), Kept("b", props_b, room_b)});
  CHECK(snapshot.node(0).free[ResourceCatalog::kCpu] == 3000);
  CHECK(snapshot.node(1).free[ResourceCatalog::kCpu] == 2000);
  CHECK(snapshot.node(1).pods.size() == 1);

  // Another node in a slot, or the same node with a new room, takes that one.
  Node c = CpuNode("c", "4");
  const std::shared_ptr<const NodeRoom> room_c = MakeNodeRoom(c.allocatable, c.pods);
  const std::shared_ptr<const NodeRoom> busier_a =
      MakeNodeRoom(a.allocatable, {a.pods[0], std::make_shared<PodSpec>(extra)});
  snapshot.Reset({Kept("c", ClusterSnapshot::PropsOf(c), room_c), Kept("a", props_a, busier_a)});
  CHECK(snapshot.node(0).name == "c");
  CHECK(snapshot.node(0).free[ResourceCatalog::kCpu] == 0);
  CHECK(snapshot.node(1).name == "a");
  CHECK(snapshot.node(1).free[ResourceCatalog::kCpu] == 2000);
  CHECK(snapshot.node(1).pods.size() == 2);
}

TEST_CASE("a reset snapshot forgets extended resources no node has any more", "[snapshot]") {
  Node fpga = CpuNode("f", "0");
  fpga.allocatable.Set("example.com/fpga", Quantity::FromUnits(2));
  ClusterSnapshot snapshot({std::move(fpga)});
  CHECK(snapshot.catalog().size() > ResourceCatalog::kFixedSlots);
  snapshot.Reset({CpuNode("a", "1")});
  CHECK(snapshot.catalog().size() == ResourceCatalog::kFixedSlots);
  CHECK(snapshot.node(0).free[ResourceCatalog::kCpu] == 3000);
}

}  // namespace
}  // namespace gpua
