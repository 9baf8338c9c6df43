// The packer: node fills, fills repeated by pattern, and the pod-by-pod path agreeing.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>

#include "absl/strings/str_cat.h"
#include "estimator/group_packer.h"
#include "estimator/node_filler.h"
#include "test_util.h"

namespace gpua {
namespace {

using testing::Group;
using testing::Plan;
using testing::Pod;
using testing::Res;

// cpu, memory, ephemeral-storage, pods
ResourceVector Vec(int64_t cpu, int64_t memory = 0) { return {cpu, memory, 0, 1}; }

int64_t Copies(const Fill& fill, size_t item) {
  for (const auto& [i, copies] : fill) {
    if (i == item) return copies;
  }
  return 0;
}

std::vector<const PodSpec*> Pointers(const std::vector<PodSpec>& pods) {
  std::vector<const PodSpec*> out;
  for (const PodSpec& p : pods) out.push_back(&p);
  return out;
}

TEST_CASE("with no search budget a node is filled as first fit decreasing fills it", "[packing]") {
  // Capacity 12: FFD takes 6 then 5 and stops with 1 left, too little for a 3.
  FillItems items({Vec(6), Vec(5), Vec(3)}, {12, 0, 0, 110}, {1, 1, 2});
  int64_t steps = 0;
  const Fill fill = FillNode(items, {1, 1, 2}, 0, /*budget=*/0, &steps);
  CHECK(Copies(fill, 0) == 1);
  CHECK(Copies(fill, 1) == 1);
  CHECK(Copies(fill, 2) == 0);
}

TEST_CASE("the search finds a node that first fit decreasing leaves part empty", "[packing]") {
  // 6 + 3 + 3 uses all 12; the seed (the largest) is always on the node.
  FillItems items({Vec(6), Vec(5), Vec(3)}, {12, 0, 0, 110}, {1, 1, 2});
  int64_t steps = 0;
  const Fill fill = FillNode(items, {1, 1, 2}, 0, /*budget=*/100, &steps);
  CHECK(Copies(fill, 0) == 1);
  CHECK(Copies(fill, 1) == 0);
  CHECK(Copies(fill, 2) == 2);
  CHECK(steps > 0);
}

TEST_CASE("an exact fit in every scarce resource ends the search at once", "[packing]") {
  // Two resources; 4x4 + 4x4 is exact, found by the exact-completion lookup.
  FillItems items({Vec(6, 2), Vec(4, 4), Vec(2, 6)}, {8, 8, 0, 110}, {3, 3, 3});
  int64_t steps = 0;
  const Fill fill = FillNode(items, {3, 3, 3}, 0, /*budget=*/1'000'000, &steps);
  // The seed 6/2 needs 2/6 to fill both resources exactly.
  CHECK(Copies(fill, 0) == 1);
  CHECK(Copies(fill, 2) == 1);
  CHECK(steps < 10);
}

TEST_CASE("a resource the pods need little of does not hold a node back from full", "[packing]") {
  // cpu needs ten nodes, memory one: a node with all cpu used is full, memory to spare.
  FillItems items({Vec(5, 1)}, {10, 100, 0, 110}, {20});
  CHECK(items.weight(ResourceCatalog::kCpu) == Approx(1.0));
  CHECK(items.weight(ResourceCatalog::kMemory) < FillItems::kScarce);
  int64_t steps = 0;
  const Fill fill = FillNode(items, {20}, 0, 1'000'000, &steps);
  CHECK(Copies(fill, 0) == 2);
  CHECK(steps < 10);
}

TEST_CASE("10,000 replicas are packed as a handful of repeated node fills", "[packing]") {
  std::vector<PodSpec> pods;
  for (int i = 0; i < 10'000; ++i) {
    pods.push_back(Pod(absl::StrCat("web-", i), Res({{"cpu", "300m"}}), "web"));
  }
  ClusterSnapshot snapshot({});
  std::vector<PodClass> classes = BuildClasses(Pointers(pods), snapshot);
  REQUIRE(classes.size() == 1);
  NodeGroupSpec group = Group("g", Res({{"cpu", "4"}, {"pods", "110"}}), 100'000);
  PreparedTemplate t = PrepareTemplate(group, snapshot);
  PackLimits limits;
  limits.max_new_nodes = 100'000;
  limits.max_checks = 1'000'000;
  limits.fill_search = 300;
  GroupPacking packing = PackByPattern(classes, {0}, t, snapshot.catalog(), limits);
  // 13 pods per node: 769 full nodes and one with the last 3.
  CHECK(packing.new_nodes == 770);
  CHECK(packing.pod_count == 10'000);
  CHECK(packing.patterns.size() == 2);
  std::vector<PlannedNode> nodes;
  TakePatternMembers(packing, classes, t, &nodes);
  REQUIRE(nodes.size() == 770);
  CHECK(nodes.front().pods.size() == 13);
  CHECK(nodes.back().pods == std::vector<int>{9'997, 9'998, 9'999});
  CHECK(classes[0].remaining() == 0);
}

TEST_CASE("a group's node limit stops the packing and says so for the pods left", "[packing]") {
  std::vector<PodSpec> pods;
  for (int i = 0; i < 100; ++i)
    pods.push_back(Pod(absl::StrCat("p-", i), Res({{"cpu", "1"}}), "p"));
  ClusterSnapshot snapshot({});
  std::vector<PodClass> classes = BuildClasses(Pointers(pods), snapshot);
  NodeGroupSpec group = Group("g", Res({{"cpu", "4"}, {"pods", "110"}}), 100);
  PreparedTemplate t = PrepareTemplate(group, snapshot);
  PackLimits limits;
  limits.max_new_nodes = 5;
  limits.max_checks = 1'000'000;
  limits.fill_search = 300;
  GroupPacking packing = PackByPattern(classes, {0}, t, snapshot.catalog(), limits);
  CHECK(packing.new_nodes == 5);
  CHECK(packing.pod_count == 20);
  CHECK(packing.hit_node_limit);
  CHECK_THAT(packing.reasons.at(0), Catch::Contains("can add no more nodes (5 new node(s)"));
}

// Pods of random cpu sizes, planned by pattern (they are placeable by resources alone) and,
// after a host port makes each one look at its neighbours, pod by pod.
TEST_CASE("packing by pattern and pod by pod agree when the search is off", "[packing]") {
  std::mt19937 rng(7);
  std::vector<PodSpec> plain;
  for (int i = 0; i < 300; ++i) {
    const int shape = static_cast<int>(rng() % 12);
    plain.push_back(Pod(absl::StrCat("p-", i), Res({{"cpu", absl::StrCat(150 + 250 * shape, "m")}}),
                        absl::StrCat("shape-", shape)));
  }
  std::vector<PodSpec> ported = plain;
  for (size_t i = 0; i < ported.size(); ++i) {
    ported[i].host_ports.push_back({"TCP", "", static_cast<int32_t>(9000 + i)});
  }
  NodeGroupSpec group = Group("g", Res({{"cpu", "8"}, {"pods", "110"}}), 1'000);
  EstimateOptions no_search;
  no_search.fill_search_steps = 0;
  ScaleUpPlan by_pattern = Plan(plain, {group}, {}, "least-waste", no_search);
  ScaleUpPlan pod_by_pod = Plan(ported, {group}, {}, "least-waste", no_search);
  REQUIRE(by_pattern.groups.size() == 1);
  REQUIRE(pod_by_pod.groups.size() == 1);
  CHECK(by_pattern.groups[0].new_nodes() == pod_by_pod.groups[0].new_nodes());
  std::vector<size_t> a, b;
  for (const PlannedNode& n : by_pattern.groups[0].nodes) a.push_back(n.pods.size());
  for (const PlannedNode& n : pod_by_pod.groups[0].nodes) b.push_back(n.pods.size());
  CHECK(a == b);
}

TEST_CASE("the search never plans more nodes than first fit decreasing", "[packing]") {
  for (int seed = 1; seed <= 10; ++seed) {
    std::mt19937 rng(seed);
    std::vector<PodSpec> pods;
    for (int i = 0; i < 200; ++i) {
      pods.push_back(Pod(absl::StrCat("p-", i),
                         Res({{"cpu", absl::StrCat(100 * (1 + rng() % 30), "m")},
                              {"memory", absl::StrCat(1 + rng() % 12, "Gi")}}),
                         absl::StrCat("p-", i)));
    }
    NodeGroupSpec group =
        Group("g", Res({{"cpu", "8"}, {"memory", "32Gi"}, {"pods", "110"}}), 1'000);
    EstimateOptions ffd;
    ffd.fill_search_steps = 0;
    const int plain = Plan(pods, {group}, {}, "least-waste", ffd).total_new_nodes();
    const int searched = Plan(pods, {group}).total_new_nodes();
    INFO("seed " << seed);
    CHECK(searched <= plain);
  }
}

}  // namespace
}  // namespace gpua
