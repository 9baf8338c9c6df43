// The cluster a simulation runs on: what a reset leaves of the snapshot before it.
#include "estimator/cluster_snapshot.h"

#include <catch2/catch.hpp>

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
