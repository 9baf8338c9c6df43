// Consolidation by replacement, the search: which nodes one new node replaces, of which group,
// and when that pays back.
#include "autoscaler/controller/scaledown/replacement_planner.h"

#include <catch2/catch.hpp>

#include "autoscaler/controller/spot/spot_capacity.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua {
namespace {

using testing::Res;

NodeGroupSpec GroupOf(const std::string& id, NodeTemplate t, double price, int max = 10) {
  NodeGroupSpec g;
  g.id = id;
  g.max_size = max;
  g.price_per_hour = price;
  g.node_template = std::move(t);
  return g;
}

NodeTemplate OneGpuTemplate() {
  NodeTemplate t;
  t.name = "l4";
  t.labels = {{"nvidia.com/gpu.product", "NVIDIA-L4"}, {"nvidia.com/gpu.count", "1"}};
  t.allocatable = Res({{"cpu", "8"}, {"memory", "32Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "1"}});
  return t;
}

NodeTemplate FourGpuTemplate() {
  NodeTemplate t = OneGpuTemplate();
  t.name = "l4x4";
  t.labels["nvidia.com/gpu.count"] = "4";
  t.allocatable =
      Res({{"cpu", "48"}, {"memory", "192Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "4"}});
  return t;
}

NodeTemplate MigTemplate() {
  NodeTemplate t;
  t.name = "a100-mig";
  t.labels = {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"},
              {"nvidia.com/gpu.count", "8"},
              {"nvidia.com/mig.strategy", "mixed"}};
  t.annotations = {{"gpu-autoscaler.io/mig-layouts", "all-3g.20gb,all-1g.5gb"}};
  t.allocatable = Res({{"cpu", "95"}, {"memory", "1100Gi"}, {"pods", "110"}});
  return t;
}

struct Pods {
  std::vector<PodSpec> specs;
  // `n` pods requesting `requests`; pointers stay valid: reserve enough first.
  std::vector<const PodSpec*> Add(int n, const ResourceList& requests) {
    std::vector<const PodSpec*> out;
    for (int i = 0; i < n; ++i) {
      PodSpec& p = specs.emplace_back();
      p.namespace_name = "ml";
      p.name = absl::StrCat("p", specs.size());
      p.requests = requests;
      out.push_back(&p);
    }
    return out;
  }
  Pods() { specs.reserve(64); }
};

// A node whose pods lose `lost` of node time, drained 10 minutes after a replacement is asked.
ReplaceableNode NodeWith(const std::string& name, double price, std::vector<const PodSpec*> pods,
                         absl::Duration lost = absl::Seconds(30)) {
  return {
      static_cast<int>(name.back() - '0'), name, price, std::move(pods), lost, absl::Minutes(10)};
}

ReplacementSearch Search(absl::Duration payback = absl::Minutes(30)) {
  ReplacementSearch s;
  s.payback = payback;
  return s;
}

const ResourceList kOneGpu = Res({{"cpu", "2"}, {"memory", "8Gi"}, {"nvidia.com/gpu", "1"}});

TEST_CASE("an 8-GPU node running one 1-GPU pod is replaced by a cheaper 1-GPU node",
          "[controller][scale-down][replacement]") {
  Pods pods;
  const std::optional<NodeReplacement> r = PlanReplacement(
      {NodeWith("h100-0", 98.0, pods.Add(1, kOneGpu))},
      {GroupOf("h100", testing::H100Template(), 98.0), GroupOf("l4x4", FourGpuTemplate(), 12.0),
       GroupOf("l4", OneGpuTemplate(), 3.5)},
      Search());
  REQUIRE(r.has_value());
  CHECK(r->group == "l4");  // the cheapest that holds it
  CHECK(r->saving_per_hour == Approx(94.5));
  REQUIRE(r->replaced.size() == 1);
  CHECK(r->replaced[0].name == "h100-0");
  CHECK_THAT(r->Describe(), Catch::StartsWith("one new node of group l4 ($3.50/h) holds the 1 "
                                              "pod(s) of h100-0: saves $94.50/h"));
}

TEST_CASE("three half-empty nodes go together onto one new node, the largest saving",
          "[controller][scale-down][replacement]") {
  Pods pods;
  std::vector<ReplaceableNode> nodes;
  for (int i = 0; i < 3; ++i) {
    nodes.push_back(NodeWith(absl::StrCat("l4x4-", i), 12.0, pods.Add(1, kOneGpu)));
  }
  // Each node's one pod would fit a 1-GPU node, but three fit one 4-GPU node for $12 of $36.
  const std::optional<NodeReplacement> r = PlanReplacement(
      nodes, {GroupOf("l4x4", FourGpuTemplate(), 12.0), GroupOf("l4", OneGpuTemplate(), 3.5)},
      Search());
  REQUIRE(r.has_value());
  CHECK(r->group == "l4x4");
  CHECK(r->replaced.size() == 3);
  CHECK(r->saving_per_hour == Approx(24.0));
}

TEST_CASE("no replacement by a node that costs as much as those it replaces",
          "[controller][scale-down][replacement]") {
  Pods pods;
  CHECK_FALSE(PlanReplacement({NodeWith("l4x4-0", 12.0, pods.Add(3, kOneGpu))},
                              {GroupOf("l4x4", FourGpuTemplate(), 12.0),
                               GroupOf("h100", testing::H100Template(), 98.0)},
                              Search())
                  .has_value());
}

TEST_CASE("no replacement when one new node cannot hold every pod",
          "[controller][scale-down][replacement]") {
  Pods pods;
  // Two 1-GPU pods, and only 1-GPU nodes cheaper: two new nodes would be needed.
  CHECK_FALSE(PlanReplacement({NodeWith("h100-0", 98.0, pods.Add(2, kOneGpu))},
                              {GroupOf("l4", OneGpuTemplate(), 3.5)}, Search())
                  .has_value());
}

TEST_CASE("no replacement when the work its pods lose outweighs the saving",
          "[controller][scale-down][replacement]") {
  Pods pods;
  const std::vector<NodeGroupSpec> groups = {GroupOf("l4", OneGpuTemplate(), 3.5)};
  // Saving $8.50/h over 30m is $4.25. The new node runs 10m beside the old one ($0.58), and
  // 20 minutes of a $12/h node's time lost is $4: $4.58 is not paid back.
  ReplaceableNode busy = NodeWith("l4x4-0", 12.0, pods.Add(1, kOneGpu), absl::Minutes(20));
  CHECK_FALSE(PlanReplacement({busy}, groups, Search()).has_value());
  busy.lost = absl::Minutes(15);  // $3 + $0.58: paid back
  CHECK(PlanReplacement({busy}, groups, Search()).has_value());
  CHECK_FALSE(PlanReplacement({busy}, groups, Search(absl::ZeroDuration())).has_value());
}

TEST_CASE("a replacement pays for the new node while the old one still runs",
          "[controller][scale-down][replacement]") {
  Pods pods;
  const std::vector<NodeGroupSpec> groups = {GroupOf("l4", OneGpuTemplate(), 3.5)};
  ReplaceableNode node = NodeWith("l4x4-0", 12.0, pods.Add(1, kOneGpu), absl::ZeroDuration());
  CHECK(PlanReplacement({node}, groups, Search()).has_value());
  node.drain_after = absl::Minutes(75);  // $4.38 of the new node's time against $4.25 saved
  CHECK_FALSE(PlanReplacement({node}, groups, Search()).has_value());
}

TEST_CASE("pods never move from on-demand capacity onto spot, but spot nodes may be replaced",
          "[controller][scale-down][replacement]") {
  Pods pods;
  NodeTemplate spot_template = OneGpuTemplate();
  spot_template.labels["eks.amazonaws.com/capacityType"] = "SPOT";
  const std::vector<NodeGroupSpec> groups = {GroupOf("l4-spot", spot_template, 1.2)};
  ReplaceableNode on_demand = NodeWith("h100-0", 98.0, pods.Add(1, kOneGpu));
  CHECK_FALSE(PlanReplacement({on_demand}, groups, Search()).has_value());
  ReplaceableNode spot = NodeWith("h100-spot-1", 55.0, pods.Add(1, kOneGpu));
  spot.spot = true;
  // Two pods fit the 1-GPU node only one at a time, but the spot node's alone is a replacement.
  const std::optional<NodeReplacement> r = PlanReplacement({on_demand, spot}, groups, Search());
  REQUIRE(r.has_value());
  REQUIRE(r->replaced.size() == 1);
  CHECK(r->replaced[0].name == "h100-spot-1");
}

TEST_CASE("spot capacity is read off the labels of EKS, Karpenter, GKE, AKS and kops",
          "[controller][spot]") {
  CHECK(OnSpotCapacity(Labels{{"eks.amazonaws.com/capacityType", "SPOT"}}));
  CHECK(OnSpotCapacity(Labels{{"karpenter.sh/capacity-type", "spot"}}));
  CHECK(OnSpotCapacity(Labels{{"cloud.google.com/gke-spot", "true"}}));
  CHECK(OnSpotCapacity(Labels{{"cloud.google.com/gke-preemptible", "true"}}));
  CHECK(OnSpotCapacity(Labels{{"kubernetes.azure.com/scalesetpriority", "spot"}}));
  CHECK(OnSpotCapacity(Labels{{"node.kubernetes.io/lifecycle", "spot"}}));
  CHECK_FALSE(OnSpotCapacity(Labels{{"eks.amazonaws.com/capacityType", "ON_DEMAND"}}));
  CHECK_FALSE(OnSpotCapacity(Labels{{"karpenter.sh/capacity-type", "on-demand"}}));
  CHECK_FALSE(OnSpotCapacity(Labels{}));
}

TEST_CASE("a group at its maximum size or over the cluster's limits is no replacement",
          "[controller][scale-down][replacement]") {
  Pods pods;
  const ReplaceableNode node = NodeWith("h100-0", 98.0, pods.Add(1, kOneGpu));
  NodeGroupSpec full = GroupOf("l4", OneGpuTemplate(), 3.5, /*max=*/2);
  full.target_size = 2;
  CHECK_FALSE(PlanReplacement({node}, {full}, Search()).has_value());

  ReplacementSearch limited = Search();
  limited.packing.budgets.push_back({"the cluster's GPU limit", 0, {{"l4", 1}}});
  CHECK_FALSE(PlanReplacement({node}, {GroupOf("l4", OneGpuTemplate(), 3.5)}, limited).has_value());
}

TEST_CASE("a replacement in a MIG pool names the layout its new node needs",
          "[controller][scale-down][replacement][mig]") {
  Pods pods;
  const ResourceList slice = Res({{"cpu", "1"}, {"nvidia.com/mig-1g.5gb", "1"}});
  const std::optional<NodeReplacement> r =
      PlanReplacement({NodeWith("h100-0", 98.0, pods.Add(20, slice))},
                      {GroupOf("a100-mig", MigTemplate(), 32.0)}, Search());
  REQUIRE(r.has_value());
  CHECK(r->mig_layout == "all-1g.5gb");
  CHECK_THAT(r->Describe(), Catch::Contains("in MIG layout all-1g.5gb"));
}

}  // namespace
}  // namespace gpua
