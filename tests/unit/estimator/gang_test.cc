// Gangs: all or nothing, in one node group.
#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"
#include "test_util.h"

namespace gpua {
namespace {

using testing::GpuGroup;
using testing::Pod;
using testing::Res;

std::vector<PodSpec> Gang(const std::string& name, int pods, int min_member,
                          const std::string& required_label = "") {
  std::vector<PodSpec> out;
  for (int i = 0; i < pods; ++i) {
    PodSpec p = Pod(absl::StrCat(name, "-", i), Res({{"cpu", "8"}, {"nvidia.com/gpu", "8"}}), name);
    p.tolerations = {testing::TolerateGpu()};
    p.gang = GangRef{absl::StrCat("default/", name), min_member, required_label};
    out.push_back(std::move(p));
  }
  return out;
}

NodeGroupSpec Zone(const std::string& id, const std::string& zone, int max_size) {
  NodeGroupSpec g = GpuGroup(id, 8, max_size, 30.0);
  g.node_template.labels = {{"topology.kubernetes.io/zone", zone}};
  return g;
}

TEST_CASE("a gang that fits whole is planned whole, in one group", "[gang]") {
  ScaleUpPlan plan = testing::Plan(Gang("train", 8, 8), {Zone("h100-a", "a", 10)});
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].new_nodes() == 8);
  CHECK(plan.unschedulable.empty());
}

TEST_CASE("a gang only part of which fits gets no scale-up and one reason", "[gang]") {
  ScaleUpPlan plan = testing::Plan(Gang("train", 8, 8), {Zone("h100-a", "a", 4)});
  CHECK(plan.groups.empty());
  REQUIRE(plan.unschedulable.size() == 8);
  CHECK_THAT(plan.unschedulable[0].reasons->at("h100-a"),
             Catch::Contains("gang default/train needs 8 pod(s) together: one node group holds "
                             "only 4 of them") &&
                 Catch::Contains("can add no more nodes"));
}

TEST_CASE("a gang is not split across zones, even when two zones could hold it together",
          "[gang]") {
  ScaleUpPlan plan =
      testing::Plan(Gang("train", 8, 8), {Zone("h100-a", "a", 4), Zone("h100-b", "b", 4)});
  CHECK(plan.groups.empty());
  CHECK(plan.unschedulable.size() == 8);
  // With room in one zone it goes there, and other pods still use the rest.
  std::vector<PodSpec> pods = Gang("train", 8, 8);
  PodSpec solo = Pod("solo", Res({{"nvidia.com/gpu", "8"}}), "solo");
  solo.tolerations = {testing::TolerateGpu()};
  pods.push_back(solo);
  plan = testing::Plan(pods, {Zone("h100-a", "a", 4), Zone("h100-b", "b", 9)});
  REQUIRE(plan.groups.size() == 2);
  CHECK(plan.groups[0].group_id == "h100-b");
  CHECK(plan.groups[0].new_nodes() == 8);
  CHECK(plan.unschedulable.empty());
}

TEST_CASE("a gang that asks for an interconnect label goes only where nodes carry it", "[gang]") {
  NodeGroupSpec plain = Zone("h100-a", "a", 10);
  NodeGroupSpec clique = Zone("gb200-a", "a", 10);
  clique.node_template.labels["nvidia.com/gpu.clique"] = "cluster-1.0";
  ScaleUpPlan plan = testing::Plan(Gang("train", 4, 4, "nvidia.com/gpu.clique"), {plain, clique});
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].group_id == "gb200-a");
  plan = testing::Plan(Gang("train", 4, 4, "nvidia.com/gpu.clique"), {plain});
  REQUIRE(plan.unschedulable.size() == 4);
  CHECK_THAT(plan.unschedulable[0].reasons->at("h100-a"),
             Catch::Contains("must share label nvidia.com/gpu.clique"));
}

TEST_CASE("minMember counts running members, pods beyond it are not held back", "[gang]") {
  // 10 pending of a gang of minMember 8 in a group with room for 8: the 8 go.
  ScaleUpPlan plan = testing::Plan(Gang("train", 10, 8), {Zone("h100-a", "a", 8)});
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].new_nodes() == 8);
  CHECK(plan.unschedulable.size() == 2);
  // Four members already run: four more make the gang.
  Node busy;
  busy.name = "running";
  busy.allocatable = Res({{"cpu", "96"}, {"nvidia.com/gpu", "32"}, {"pods", "110"}});
  for (PodSpec& p : Gang("train", 4, 8)) busy.pods.push_back(std::make_shared<PodSpec>(p));
  busy.taints = {{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule}};
  busy.allocatable.Set("nvidia.com/gpu", Quantity::FromUnits(32));
  plan = testing::Plan(Gang("train", 4, 8), {Zone("h100-a", "a", 4)}, {busy});
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].new_nodes() == 4);
  // Fewer pending than the gang still needs: it waits, and says so.
  plan = testing::Plan(Gang("train", 3, 8), {Zone("h100-a", "a", 10)});
  CHECK(plan.groups.empty());
  CHECK_THAT(plan.unschedulable[0].reasons->at("h100-a"), Catch::Contains("only 3 are pending"));
}

Node EmptyGpuNode(const std::string& name) {
  Node n;
  n.name = name;
  n.allocatable =
      Res({{"cpu", "96"}, {"memory", "1000Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "8"}});
  n.taints = {{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule}};
  return n;
}

TEST_CASE("a gang whose nodes are coming up is placed on them, and asks for no more", "[gang]") {
  // The loop after the scale-up: four nodes booting (upcoming, in the snapshot) hold it.
  std::vector<Node> upcoming;
  for (int i = 0; i < 4; ++i) upcoming.push_back(EmptyGpuNode(absl::StrCat("h100-a-", i)));
  ScaleUpPlan plan = testing::Plan(Gang("train", 4, 4), {Zone("h100-a", "a", 8)}, upcoming);
  CHECK(plan.groups.empty());
  CHECK(plan.on_existing.size() == 4);
  CHECK(plan.unschedulable.empty());
}

TEST_CASE("a gang only part of which fits the nodes there are takes none of them", "[gang]") {
  // Two free nodes for a gang of four: all four go on new nodes, none on the two.
  const std::vector<Node> two = {EmptyGpuNode("free-0"), EmptyGpuNode("free-1")};
  ScaleUpPlan plan = testing::Plan(Gang("train", 4, 4), {Zone("h100-a", "a", 8)}, two);
  CHECK(plan.on_existing.empty());
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].new_nodes() == 4);
}

}  // namespace
}  // namespace gpua
