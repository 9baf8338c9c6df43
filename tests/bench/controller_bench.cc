// One controller loop on a large cluster (the controller issues' performance target):
// 5,000 nodes in 40 groups (30 of them GPU pools), about 130,000 running pods, 2,000
// unschedulable pods of several shapes. One node in five is lightly used (one GPU of eight,
// a few small pods), so scale-down has real candidates: their pods are placed elsewhere in
// the removal simulation. RunOnce reads the view and the simulated cloud, builds the
// cluster state, plans with the estimator, asks the groups for nodes, and judges every node
// for scale-down (a fresh cloud each iteration, so every loop has the same work). Prints the
// median and the loop's peak RSS, measured in a process of its own. Targets: median under
// 1 s on one core, RSS under 2 GiB.
#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "autoscaler/controller/controller.h"
#include "cloudproviders/simulated/simulated_cloud.h"
#include "tests/bench/fresh_loop.h"
#include "tests/bench/own_process.h"
#include "tests/support/fake_cluster_source.h"
#include "tests/support/fake_kube_writer.h"

namespace gpua {
namespace {

constexpr int kGroups = 40;
constexpr int kGpuGroups = 30;
constexpr int kNodesPerGroup = 125;
constexpr int kPodsPerNode = 30;
constexpr int kPending = 2'000;

Quantity Q(const std::string& s) { return *Quantity::Parse(s); }

NodeGroupConfig GroupConfig(int g) {
  NodeGroupConfig c;
  c.spec.id = absl::StrCat(g < kGpuGroups ? "gpu-" : "cpu-", g);
  c.spec.max_size = 2 * kNodesPerGroup;
  c.spec.target_size = kNodesPerGroup;
  c.spec.price_per_hour = g < kGpuGroups ? 30.0 + g : 1.0 + g * 0.1;
  NodeTemplate& t = c.spec.node_template;
  t.labels = {{"topology.kubernetes.io/zone", absl::StrCat("zone-", g % 3)}, {"pool", c.spec.id}};
  t.allocatable = {{"cpu", Q("96")}, {"memory", Q("768Gi")}, {"pods", Q("110")}};
  if (g < kGpuGroups) {
    t.labels["nvidia.com/gpu.product"] = g % 2 ? "NVIDIA-H100-80GB-HBM3" : "NVIDIA-A100-SXM4-80GB";
    t.labels["nvidia.com/gpu.count"] = "8";
    t.allocatable.Set("nvidia.com/gpu", Q("8"));
    t.taints = {{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule}};
  }
  return c;
}

std::shared_ptr<PodObject> Pod(const std::string& name, const std::string& owner,
                               ResourceList requests) {
  auto p = std::make_shared<PodObject>();
  p->spec.namespace_name = "ml";
  p->spec.name = name;
  p->spec.uid = "uid-" + name;
  p->spec.owner = OwnerReference{"ReplicaSet", owner, owner + "-uid", true};
  p->spec.labels = {{"app", owner}};
  p->spec.requests = std::move(requests);
  p->spec.tolerations = {{"nvidia.com/gpu", Toleration::Op::kExists, "", TaintEffect::kNoSchedule}};
  p->phase = "Running";
  return p;
}

struct Cluster {
  std::vector<NodeGroupConfig> groups;
  testing::FakeClusterSource source;
  int running_pods = 0;
};

Cluster MakeCluster() {
  Cluster c;
  for (int g = 0; g < kGroups; ++g) c.groups.push_back(GroupConfig(g));
  for (const NodeGroupConfig& g : c.groups) {
    for (int i = 0; i < kNodesPerGroup; ++i) {
      auto n = std::make_shared<NodeObject>();
      n->node.name = absl::StrCat(g.spec.id, "-", i);
      n->node.labels = g.spec.node_template.labels;
      n->node.labels["kubernetes.io/hostname"] = n->node.name;
      n->node.taints = g.spec.node_template.taints;
      n->node.allocatable = g.spec.node_template.allocatable;
      n->provider_id = absl::StrCat("sim://", g.spec.id, "/", i);
      n->ready = true;
      n->created = absl::FromUnixSeconds(1'700'000'000);
      const bool gpu = g.spec.node_template.allocatable.Has("nvidia.com/gpu");
      const bool light = i % 5 == 0;  // a scale-down candidate
      const int gpu_pods = light ? 1 : 8;
      for (int p = 0; p < (light ? 4 : kPodsPerNode); ++p) {
        ResourceList r{{"cpu", Q("2")}, {"memory", Q("16Gi")}};
        if (gpu && p < gpu_pods) r.Set("nvidia.com/gpu", Q("1"));
        auto pod = Pod(absl::StrCat(n->node.name, "-", p), absl::StrCat("run-", p % 20), r);
        pod->spec.node_name = n->node.name;
        c.source.AddPod(std::move(pod));
        ++c.running_pods;
      }
      c.source.AddNode(std::move(n));
    }
  }
  for (int i = 0; i < kPending; ++i) {
    const int shape = i % 5;  // 0: cpu only, else 1, 2, 4, 8 GPUs
    ResourceList r{{"cpu", Q(absl::StrCat(1 + i % 7))},
                   {"memory", Q(absl::StrCat(4 + i % 9, "Gi"))}};
    if (shape > 0) r.Set("nvidia.com/gpu", Quantity::FromUnits(1 << (shape - 1)));
    auto pod = Pod(absl::StrCat("pending-", i), absl::StrCat("job-", i % 50), r);
    pod->phase = "Pending";
    pod->unschedulable = true;
    if (i % 3 == 0)
      pod->spec.node_selector = {{"topology.kubernetes.io/zone", absl::StrCat("zone-", i % 3)}};
    c.source.AddPod(std::move(pod));
  }
  bench::AddOwners(c.source);  // the pods' controllers exist: their pods may move
  return c;
}

void BM_RunOnce(benchmark::State& state) {
  Cluster c = MakeCluster();
  int nodes_added = 0, fit = 0, without = 0, unneeded = 0, unremovable = 0;
  double scale_down_ms = 0;
  bench::TimeFreshLoops(state, {c.source, c.groups, bench::LargeClusterOptions()},
                        [&](LoopReport& r) {
                          nodes_added = r.nodes_added();
                          fit = r.fit_existing;
                          without = r.without_scale_up;
                          unneeded = r.unneeded;
                          scale_down_ms = absl::ToDoubleMilliseconds(r.durations["scaleDown"]);
                          unremovable = 0;
                          for (const auto& [reason, n] : r.unremovable) unremovable += n;
                        });
  state.counters["nodes"] = static_cast<double>(c.source.view.nodes.size());
  state.counters["running_pods"] = c.running_pods;
  state.counters["nodes_added"] = nodes_added;
  state.counters["pods_fit_existing"] = fit;
  state.counters["pods_without_scale_up"] = without;
  state.counters["unneeded_nodes"] = unneeded;
  state.counters["scale_down_ms"] = scale_down_ms;  // of the last iteration
  state.counters["unremovable_nodes"] = unremovable;
  state.counters["peak_rss_MiB"] = bench::PeakRssInOwnProcess("--peak-rss-of-run-once");
}
BENCHMARK(BM_RunOnce)->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true);

void RunOnceForPeakRss() {
  Cluster c = MakeCluster();
  bench::RunOneLoop({c.source, c.groups, bench::LargeClusterOptions()});
}

}  // namespace
}  // namespace gpua

int main(int argc, char** argv) {
  if (gpua::bench::RanForPeakRss(argc, argv, "--peak-rss-of-run-once", gpua::RunOnceForPeakRss)) {
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
