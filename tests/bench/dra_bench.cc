// DRA planning benchmarks at cluster-autoscaler's DRA scale shapes (issue 48). Each prints
// its figures as counters:
//   B-DRA/1000/200/4  1,000 nodes of 8 GPUs published as DRA devices, 4,000 claims
//                 allocated (4 GPUs held on each node), 200 pending pods each claiming one GPU
//                 through a template: all fit the nodes there are (50 nodes' free GPUs).
//   B-DRA/5000/500/4  5,000 nodes, 20,000 allocated claims, 500 pending.
//   B-DRA/1000/200/8  every GPU held: the 200 pods need 25 new nodes from the pool at zero.
//   B-DRA-MIG     1,000 nodes whose 8 A100s are published with every MIG partition over
//                 counters (as NVIDIA's driver does), 200 pending pods each claiming one
//                 1g.10gb partition, and a pool at zero of the same nodes.
// The figure is one Estimate over the cluster (what a controller loop plans with), the
// snapshot made from the nodes included; the target is under 1 s.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "estimator/dra/pod_claims.h"
#include "estimator/dra/resource_slice.h"
#include "estimator/dra/template_slices.h"
#include "estimator/estimate.h"
#include "tests/unit/estimator/dra_test_util.h"
#include "tests/unit/estimator/test_util.h"

namespace gpua {
namespace {

using testing::Res;

constexpr char kDriver[] = "gpu.nvidia.com";

using testing::CompiledSelector;
using testing::NvidiaClasses;

GpuHardware Hardware(const std::string& product) {
  return GpuHardware{GpuVendor::kNvidia, product, 8, 81920, "550.54.15"};
}

// A node's devices as its driver publishes them, with the first `held` GPUs allocated.
Node DraNode(int i, const std::string& product, int held) {
  Node n;
  n.name = absl::StrCat("gpu-node-", i);
  n.allocatable = Res({{"cpu", "96"}, {"memory", "1Ti"}, {"pods", "110"}});
  const dra::ResourceSlice slice = dra::GpuTemplateSlice(Hardware(product), kDriver, n.name);
  n.devices = std::make_shared<const dra::NodeDevices>(dra::AssemblePools({&slice}));
  auto allocations = std::make_shared<std::vector<dra::AllocatedDevice>>();
  for (int g = 0; g < held; ++g) {
    allocations->push_back({"gpu", kDriver, n.name, absl::StrCat("gpu-", g), false});
  }
  n.device_allocations = std::move(allocations);
  return n;
}

std::vector<PodSpec> Pending(int count, const std::string& cls, const std::string& selector) {
  auto spec = std::make_shared<dra::ClaimSpec>();
  dra::ExactRequest e;
  e.device_class_name = cls;
  if (!selector.empty()) e.selectors.push_back(CompiledSelector(selector));
  spec->requests.push_back(dra::DeviceRequest{"gpu", {e}, false});
  spec->fingerprint = cls + selector;
  auto devices = std::make_shared<dra::PodDevices>();
  devices->claims.push_back(dra::PodClaim{"gpu", "", spec, nullptr, false, absl::OkStatus()});
  devices->classes = NvidiaClasses();
  std::vector<PodSpec> pods;
  for (int i = 0; i < count; ++i) {
    PodSpec p = testing::Pod(absl::StrCat("infer-", i), Res({{"cpu", "2"}}), "infer");
    p.claim_refs.push_back(dra::PodClaimRef{"gpu", "", "one-gpu", ""});
    p.devices = devices;
    pods.push_back(std::move(p));
  }
  return pods;
}

NodeGroupSpec PoolAtZero(const std::string& product) {
  NodeGroupSpec g =
      testing::Group("gpu-pool", Res({{"cpu", "96"}, {"memory", "1Ti"}, {"pods", "110"}}), 100, 30);
  g.node_template.resource_slices.push_back(std::make_shared<const dra::ResourceSlice>(
      dra::GpuTemplateSlice(Hardware(product), kDriver, "template")));
  return g;
}

void RunShape(benchmark::State& state, const std::string& product, const std::string& cls,
              const std::string& selector) {
  const int nodes = static_cast<int>(state.range(0));
  const int pending = static_cast<int>(state.range(1));
  const std::vector<PodSpec> pods = Pending(pending, cls, selector);
  const std::vector<NodeGroupSpec> groups = {PoolAtZero(product)};
  auto expander = MakeExpanderChain("least-waste", {});
  // The nodes are made once and copied in each round; the copy is outside the figure.
  std::vector<Node> cluster;
  const int held = static_cast<int>(state.range(2));
  for (int i = 0; i < nodes; ++i) cluster.push_back(DraNode(i, product, held));
  size_t on_existing = 0;
  int new_nodes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<Node> copy = cluster;
    state.ResumeTiming();
    ClusterSnapshot snapshot(std::move(copy));
    const ScaleUpPlan plan = Estimate(pods, groups, snapshot, **expander, EstimateOptions{});
    on_existing = plan.on_existing.size();
    new_nodes = plan.total_new_nodes();
    benchmark::DoNotOptimize(plan);
  }
  state.counters["nodes"] = nodes;
  state.counters["claims_held"] = nodes * held;
  state.counters["pending"] = pending;
  state.counters["on_existing"] = static_cast<double>(on_existing);
  state.counters["new_nodes"] = new_nodes;
}

void BM_B_DRA(benchmark::State& state) {
  // An L4 has no MIG: eight plain GPU devices per node.
  RunShape(state, "NVIDIA-L4", "gpu.nvidia.com", "");
}
BENCHMARK(BM_B_DRA)
    ->Args({1'000, 200, 4})
    ->Args({5'000, 500, 4})
    ->Args({1'000, 200, 8})
    ->Unit(benchmark::kMillisecond);

void BM_B_DRA_MIG(benchmark::State& state) {
  RunShape(state, "NVIDIA-A100-SXM4-80GB", "mig.nvidia.com",
           "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'");
}
BENCHMARK(BM_B_DRA_MIG)
    ->Args({1'000, 200, 4})
    ->Args({1'000, 200, 8})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpua

BENCHMARK_MAIN();
