// One controller loop on a cluster whose GPUs are DRA devices, at cluster-autoscaler's DRA
// scale shapes (issue 48): N nodes of 8 GPUs in 10 pools, each GPU a device in its node's
// ResourceSlice; `held` GPUs of every node allocated to running pods' claims (one claim of
// one GPU a pod, made from a template, as the resourceclaim controller makes them); P pending
// pods each claiming one GPU through a template. RunOnce resolves every pod's claims and
// every node's devices from the view's DRA objects, builds the state, plans (allocating
// devices on existing and template nodes), and judges every node for scale-down.
//   BM_RunOnceDra/1000/200/4   4,000 claims held, the 200 fit the free GPUs
//   BM_RunOnceDra/5000/500/4   20,000 claims held, the 500 fit
//   BM_RunOnceDra/1000/200/8   every GPU held: 25 new nodes
// Prints the median and the loop's peak RSS (in a process of its own). Target: under 1 s.
#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "autoscaler/controller/controller.h"
#include "cloudproviders/simulated/simulated_cloud.h"
#include "estimator/dra/template_slices.h"
#include "tests/bench/fresh_loop.h"
#include "tests/bench/own_process.h"
#include "tests/support/fake_cluster_source.h"
#include "tests/support/fake_kube_writer.h"
#include "tests/unit/estimator/dra_test_util.h"

namespace gpua {
namespace {

constexpr int kGroups = 10;
constexpr char kDriver[] = "gpu.nvidia.com";

struct Shape {
  int nodes = 0;
  int pending = 0;
  int held = 0;  // GPUs of each node held by claims
};

Quantity Q(const std::string& s) { return *Quantity::Parse(s); }

GpuHardware Hardware() { return GpuHardware{GpuVendor::kNvidia, "NVIDIA-L40S", 8, 46068, ""}; }

NodeGroupConfig GroupConfig(int g, const Shape& shape) {
  NodeGroupConfig c;
  c.spec.id = absl::StrCat("l40s-", g);
  c.spec.max_size = shape.nodes;
  c.spec.target_size = shape.nodes / kGroups;
  c.spec.price_per_hour = 10.0 + g;
  NodeTemplate& t = c.spec.node_template;
  t.name = c.spec.id;
  // GPU feature discovery's labels; no nvidia.com/gpu: the GPUs are claimed.
  t.labels = {{"nvidia.com/gpu.product", "NVIDIA-L40S"},
              {"nvidia.com/gpu.count", "8"},
              {"pool", c.spec.id}};
  t.allocatable = {{"cpu", Q("96")}, {"memory", Q("768Gi")}, {"pods", Q("110")}};
  t.resource_slices.push_back(
      std::make_shared<const dra::ResourceSlice>(dra::GpuTemplateSlice(Hardware(), kDriver, "t")));
  return c;
}

std::shared_ptr<const dra::ClaimSpec> OneGpu() {
  auto spec = std::make_shared<dra::ClaimSpec>();
  dra::ExactRequest e;
  e.device_class_name = kDriver;
  spec->requests.push_back(dra::DeviceRequest{"gpu", {e}, false});
  spec->fingerprint = "one gpu";
  return spec;
}

std::shared_ptr<PodObject> Pod(const std::string& name, const std::string& owner) {
  auto p = std::make_shared<PodObject>();
  p->spec.namespace_name = "ml";
  p->spec.name = name;
  p->spec.uid = "uid-" + name;
  p->spec.owner = OwnerReference{"ReplicaSet", owner, owner + "-uid", true};
  p->spec.requests = {{"cpu", Q("4")}, {"memory", Q("32Gi")}};
  p->phase = "Running";
  return p;
}

struct Cluster {
  std::vector<NodeGroupConfig> groups;
  testing::FakeClusterSource source;
  int claims = 0;
};

void AddDraObjects(Cluster& c) {
  auto cls = std::make_shared<dra::DeviceClass>(testing::NvidiaClasses()->at(kDriver));
  c.source.view.device_classes.push_back(cls);
  auto tmpl = std::make_shared<dra::ResourceClaimTemplate>();
  tmpl->namespace_name = "ml";
  tmpl->name = "one-gpu";
  tmpl->spec = OneGpu();
  c.source.view.resource_claim_templates.push_back(tmpl);
}

void AddNode(Cluster& c, const NodeGroupConfig& g, int i, int held) {
  auto n = std::make_shared<NodeObject>();
  n->node.name = absl::StrCat(g.spec.id, "-", i);
  n->node.labels = g.spec.node_template.labels;
  n->node.labels["kubernetes.io/hostname"] = n->node.name;
  n->node.allocatable = g.spec.node_template.allocatable;
  n->provider_id = absl::StrCat("sim://", g.spec.id, "/", i);
  n->ready = true;
  n->created = absl::FromUnixSeconds(1'700'000'000);
  auto slice = std::make_shared<dra::ResourceSlice>(
      dra::GpuTemplateSlice(Hardware(), kDriver, n->node.name));
  c.source.view.resource_slices.push_back(slice);
  for (int p = 0; p < held; ++p) {
    auto pod = Pod(absl::StrCat(n->node.name, "-", p), absl::StrCat("run-", p % 20));
    pod->spec.node_name = n->node.name;
    const std::string claim = absl::StrCat(pod->spec.name, "-gpu");
    pod->spec.claim_refs.push_back({"gpu", "", "one-gpu", claim});
    auto rc = std::make_shared<dra::ResourceClaim>();
    rc->namespace_name = "ml";
    rc->name = claim;
    rc->spec = OneGpu();
    auto allocation = std::make_shared<dra::ClaimAllocation>();
    allocation->devices.push_back({"gpu", kDriver, slice->pool, absl::StrCat("gpu-", p), false});
    rc->allocation = std::move(allocation);
    rc->reserved_for = {pod->spec.uid};
    c.source.view.resource_claims.push_back(std::move(rc));
    c.source.AddPod(std::move(pod));
    ++c.claims;
  }
  c.source.AddNode(std::move(n));
}

Cluster MakeCluster(const Shape& shape) {
  Cluster c;
  AddDraObjects(c);
  for (int g = 0; g < kGroups; ++g) c.groups.push_back(GroupConfig(g, shape));
  for (const NodeGroupConfig& g : c.groups) {
    for (int i = 0; i < g.spec.target_size; ++i) AddNode(c, g, i, shape.held);
  }
  for (int i = 0; i < shape.pending; ++i) {
    auto pod = Pod(absl::StrCat("pending-", i), absl::StrCat("job-", i % 50));
    pod->spec.claim_refs.push_back({"gpu", "", "one-gpu", ""});
    pod->phase = "Pending";
    pod->unschedulable = true;
    c.source.AddPod(std::move(pod));
  }
  bench::AddOwners(c.source);  // the pods' controllers exist: their pods may move
  return c;
}

Shape ShapeOf(const benchmark::State& state) {
  return {static_cast<int>(state.range(0)), static_cast<int>(state.range(1)),
          static_cast<int>(state.range(2))};
}

void BM_RunOnceDra(benchmark::State& state) {
  const Shape shape = ShapeOf(state);
  Cluster c = MakeCluster(shape);
  int nodes_added = 0, fit = 0, without = 0, unneeded = 0;
  bench::TimeFreshLoops(state, {c.source, c.groups, bench::LargeClusterOptions()},
                        [&](const LoopReport& r) {
                          nodes_added = r.nodes_added();
                          fit = r.fit_existing;
                          without = r.without_scale_up;
                          unneeded = r.unneeded;
                        });
  state.counters["nodes"] = static_cast<double>(c.source.view.nodes.size());
  state.counters["claims"] = c.claims;
  state.counters["nodes_added"] = nodes_added;
  state.counters["pods_fit_existing"] = fit;
  state.counters["pods_without_scale_up"] = without;
  state.counters["unneeded_nodes"] = unneeded;
  state.counters["peak_rss_MiB"] = bench::PeakRssInOwnProcess(
      absl::StrCat("--peak-rss-of-run-once ", shape.nodes, " ", shape.pending, " ", shape.held)
          .c_str());
}
BENCHMARK(BM_RunOnceDra)
    ->Args({1000, 200, 4})
    ->Args({5000, 500, 4})
    ->Args({1000, 200, 8})
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

}  // namespace
}  // namespace gpua

int main(int argc, char** argv) {
  // --peak-rss-of-run-once N P H: one loop of that shape, and this process's peak RSS.
  if (argc == 5 && std::string(argv[1]) == "--peak-rss-of-run-once") {
    const gpua::Shape shape{std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4])};
    gpua::Cluster c = gpua::MakeCluster(shape);
    gpua::bench::RunOneLoop({c.source, c.groups, gpua::bench::LargeClusterOptions()});
    std::printf("%.1f\n", gpua::bench::PeakRssMiB());
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
