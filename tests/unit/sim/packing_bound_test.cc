// The packing bound: whole nodes, never above the cheapest real packing (held against an
// exhaustive search on small cases), summed over time.
#include "autoscaler/sim/packing_bound.h"

#include <catch2/catch.hpp>
#include <functional>
#include <limits>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autoscaler/sim/lower_bound.h"
#include "cloudproviders/node_group_file.h"
#include "kubeobjects/pods.h"

namespace gpua::sim {
namespace {

// Pools of several shapes and prices: two cpu sizes, time-sliced L4s (four shares a GPU)
// and a reconfigurable A100 MIG pool (seven 1g or two 3g devices a GPU).
constexpr char kPools[] = R"(
nodeGroups:
- id: cpu8
  maxSize: 20
  pricePerHour: 0.40
  template:
    status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
- id: cpu16
  maxSize: 20
  pricePerHour: 0.70
  template:
    status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
- id: l4
  maxSize: 20
  pricePerHour: 0.80
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "1",
               nvidia.com/gpu.sharing-strategy: time-slicing, nvidia.com/gpu.replicas: "4"}
    spec:
      taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
    status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "4"}}
- id: a100
  maxSize: 20
  pricePerHour: 3.00
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB, nvidia.com/gpu.count: "1"}
      annotations: {gpu-autoscaler.io/mig-layouts: "all-1g.10gb,all-3g.40gb"}
    spec:
      taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
    status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
)";

std::vector<NodeGroupConfig> Pools(const std::vector<std::string>& ids) {
  auto all = ParseNodeGroupFile(kPools, "pools.yaml");
  INFO((all.ok() ? "" : std::string(all.status().message())));
  REQUIRE(all.ok());
  std::vector<NodeGroupConfig> out;
  for (const NodeGroupConfig& g : *all) {
    if (std::find(ids.begin(), ids.end(), g.spec.id) != ids.end()) out.push_back(g);
  }
  return out;
}

PodSpec Pod(const std::map<std::string, std::string>& requests) {
  PodSpec p;
  p.namespace_name = "ml";
  p.name = "p";
  for (const auto& [name, value] : requests) p.requests.Set(name, *Quantity::Parse(value));
  p.tolerations.push_back({"", Toleration::Op::kExists, "", std::nullopt});
  return p;
}

// The shapes the random cases draw from.
std::vector<PodSpec> Shapes() {
  return {Pod({{"cpu", "1"}, {"memory", "2Gi"}}),
          Pod({{"cpu", "3"}, {"memory", "4Gi"}}),
          Pod({{"cpu", "5"}, {"memory", "20Gi"}}),
          Pod({{"cpu", "10"}, {"memory", "8Gi"}}),
          Pod({{"cpu", "2"}, {"nvidia.com/gpu", "1"}}),
          Pod({{"cpu", "1"}, {"nvidia.com/mig-1g.10gb", "1"}}),
          Pod({{"cpu", "4"}, {"nvidia.com/mig-3g.40gb", "1"}})};
}

// The cheapest real packing: every way to put each pod on a node (a new one of some group, or
// one already used), each node in any of its kinds (MIG layouts) that holds what it got.
double ExhaustiveCheapest(const PackingModel& model, const std::vector<const PodSpec*>& pods) {
  const std::vector<GroupShape>& groups = model.groups();
  struct OpenNode {
    size_t group;
    ResourceList requested;
  };
  std::vector<OpenNode> nodes;
  double best = std::numeric_limits<double>::infinity();
  const auto fits = [&](const OpenNode& n) {
    for (const NodeKind& kind : groups[n.group].kinds) {
      if (n.requested.FitsWithin(kind.allocatable)) return true;
    }
    return false;
  };
  std::function<void(size_t, double)> place = [&](size_t i, double cost) {
    if (cost >= best) return;
    if (i == pods.size()) {
      best = cost;
      return;
    }
    const PodSpec& pod = *pods[i];
    for (size_t j = 0; j < nodes.size(); ++j) {  // deeper calls add nodes: by index
      if (!Holds(groups[nodes[j].group], pod, {})) continue;
      const ResourceList before = nodes[j].requested;
      nodes[j].requested = before + pod.requests;
      if (fits(nodes[j])) place(i + 1, cost);
      nodes[j].requested = before;
    }
    for (size_t g = 0; g < groups.size(); ++g) {
      if (!Holds(groups[g], pod, {})) continue;
      nodes.push_back({g, pod.requests});
      place(i + 1, cost + groups[g].config->spec.price_per_hour);
      nodes.pop_back();
    }
  };
  place(0, 0);
  return best;
}

TEST_CASE("three pods that each need 60% of a node need three whole nodes",
          "[sim][packing-bound]") {
  PackingModel model(Pools({"cpu8"}), {});
  REQUIRE(model.AddClass(Pod({{"cpu", "5"}})) == 0);
  CHECK(model.Cheapest({3}).cost_per_hour == Approx(3 * 0.40));
  // Two of them and a 3-core pod still need only two.
  REQUIRE(model.AddClass(Pod({{"cpu", "3"}})) == 1);
  CHECK(model.Cheapest({2, 1}).cost_per_hour == Approx(2 * 0.40));
}

TEST_CASE("a pod two groups hold goes where it is cheapest, and whole nodes are counted",
          "[sim][packing-bound]") {
  PackingModel model(Pools({"cpu8", "cpu16"}), {});
  const int small = *model.AddClass(Pod({{"cpu", "3"}}));
  const int big = *model.AddClass(Pod({{"cpu", "10"}}));  // only cpu16 holds it
  std::vector<int64_t> count(2, 0);
  count[small] = 3;
  count[big] = 1;
  // 10 + 3 + 3 on one cpu16 node, 3 more on a cpu8: $1.10; two cpu16 nodes would be $1.40.
  const PackingModel::Packing p = model.Cheapest(count);
  CHECK(p.cost_per_hour == Approx(1.10));
  CHECK(p.cost_by_group[0] == Approx(0.40));
  CHECK(p.cost_by_group[1] == Approx(0.70));
}

TEST_CASE("MIG devices of different profiles share the GPU's memory slices",
          "[sim][packing-bound][mig]") {
  PackingModel model(Pools({"a100"}), {});
  const int one_g = *model.AddClass(Pod({{"cpu", "1"}, {"nvidia.com/mig-1g.10gb", "1"}}));
  const int three_g = *model.AddClass(Pod({{"cpu", "1"}, {"nvidia.com/mig-3g.40gb", "1"}}));
  std::vector<int64_t> count(2, 0);
  count[three_g] = 2;  // a whole A100 in 3g devices
  count[one_g] = 1;    // and a 1g device: no layout holds both
  CHECK(model.Cheapest(count).cost_per_hour == Approx(2 * 3.00));
}

TEST_CASE("the relaxation is never above the cheapest real packing, and often equal to it",
          "[sim][packing-bound][exhaustive]") {
  const std::vector<PodSpec> shapes = Shapes();
  const std::vector<std::vector<std::string>> pool_sets = {
      {"cpu8"}, {"cpu8", "cpu16"}, {"l4", "cpu8"}, {"a100"}, {"a100", "l4", "cpu16"}};
  std::mt19937 random(20261203);
  int cases = 0;
  int equal = 0;
  for (int round = 0; round < 400; ++round) {
    const std::vector<std::string>& ids = pool_sets[round % pool_sets.size()];
    PackingModel model(Pools(ids), {});
    std::vector<std::optional<int>> class_of;
    for (const PodSpec& s : shapes) class_of.push_back(model.AddClass(s));
    const int n = 1 + static_cast<int>(random() % 6);
    std::vector<const PodSpec*> pods;
    std::vector<int64_t> count(shapes.size(), 0);
    for (int i = 0; i < n; ++i) {
      const size_t shape = random() % shapes.size();
      if (!class_of[shape].has_value()) continue;
      pods.push_back(&shapes[shape]);
      ++count[*class_of[shape]];
    }
    if (pods.empty()) continue;
    const double relaxed = model.Cheapest(count).cost_per_hour;
    const double exact = ExhaustiveCheapest(model, pods);
    INFO("pools " << absl::StrJoin(ids, ",") << ", " << pods.size() << " pods, case " << round);
    CHECK(relaxed <= exact + 1e-9);
    ++cases;
    if (relaxed >= exact - 1e-9) ++equal;
  }
  CHECK(cases > 300);
  INFO(equal << " of " << cases << " cases tight");
  CHECK(equal * 10 >= cases * 9);  // 342 of 359 with this seed
}

TEST_CASE(
    "too many interchangeable groups to search still give a bound, never above the "
    "real packing",
    "[sim][packing-bound]") {
  // Forty cpu8 pools, the cheapest listed last.
  std::vector<NodeGroupConfig> many;
  for (int i = 0; i < 40; ++i) {
    NodeGroupConfig g = Pools({"cpu8"})[0];
    g.spec.id = absl::StrCat("cpu8-", i);
    g.spec.price_per_hour = i == 39 ? 0.10 : 0.40 + 0.01 * i;
    many.push_back(g);
  }
  PackingModel model(many, {});
  REQUIRE(model.AddClass(Pod({{"cpu", "5"}})) == 0);
  const double relaxed = model.Cheapest({3}).cost_per_hour;
  CHECK(relaxed > 0);
  CHECK(relaxed <= 3 * 0.10 + 1e-9);  // three nodes of the last pool
}

Trace Arrivals(const std::string& text) {
  auto t = ParseTrace(text, "trace.jsonl", ".");
  INFO((t.ok() ? "" : std::string(t.status().message())));
  REQUIRE(t.ok());
  return *t;
}

TEST_CASE("over a trace, whole nodes are billed while their pods run: above the share bound",
          "[sim][packing-bound]") {
  // Three 5-core pods for an hour, then one for another hour.
  const Trace trace = Arrivals(
      R"({"at": "0s", "name": "a", "count": 2, "runFor": "1h", "pod": {"spec": {"containers": [{"name": "m", "resources": {"requests": {"cpu": "5"}}}]}}}
{"at": "0s", "name": "b", "runFor": "2h", "pod": {"spec": {"containers": [{"name": "m", "resources": {"requests": {"cpu": "5"}}}]}}}
{"at": "0s", "name": "c", "runFor": "2h", "pod": {"spec": {"nodeSelector": {"nowhere": "x"}, "containers": [{"name": "m"}]}}}
)");
  const std::vector<NodeGroupConfig> groups = Pools({"cpu8"});
  const PackingBound bound = ComputePackingBound(trace, groups);
  CHECK(bound.cost_usd == Approx((3 * 1 + 1 * 1) * 0.40).epsilon(1e-3));
  CHECK(bound.cost_by_group.at("cpu8") == Approx(bound.cost_usd));
  CHECK(bound.pods_without_group == 1);
  const LowerBound share = ComputeLowerBound(trace, groups);
  CHECK(share.cost_usd < bound.cost_usd);
  // Coarser windows only ever lower it: a window pays for the pods there throughout.
  CHECK(ComputePackingBound(trace, groups, {}, 3).cost_usd <= bound.cost_usd + 1e-9);
}

}  // namespace
}  // namespace gpua::sim
