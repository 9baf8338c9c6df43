// `simulate` at scale: seven days of a 1,000,000-pod trace over 20 node groups, the whole
// simulation with the real controller's every loop. The groups: cpu pools, exclusive L4
// pools (on-demand and spot), time-sliced L4 pools and reconfigurable A100 MIG pools, several
// of each kind at different prices, so the expanders choose among the pools a pod may use and
// MIG layouts are chosen and given to new nodes. Prints the wall time and the run's own peak
// RSS (target: under 60 s on one core and 2 GiB).
#include <benchmark/benchmark.h>

#include <fstream>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "autoscaler/sim/simulation.h"
#include "cloudproviders/node_group_file.h"
#include "tests/bench/own_process.h"

namespace gpua {

constexpr int kGroups = 20;
constexpr int64_t kPods = 1'000'000;
constexpr int kDays = 7;

// The kinds of pool, by group index: each kind has four or eight pools a pod of that kind
// may use, told apart by price, capacity type and (exclusive L4) node size.
enum class PoolKind { kCpu, kL4, kL4Shared, kA100Mig };

PoolKind KindOf(int group) {
  switch (group % 5) {
    case 0:
      return PoolKind::kCpu;
    case 3:
      return PoolKind::kL4Shared;
    case 4:
      return PoolKind::kA100Mig;
    default:
      return PoolKind::kL4;
  }
}

const char* FamilyOf(PoolKind kind) {
  switch (kind) {
    case PoolKind::kCpu:
      return "cpu";
    case PoolKind::kL4:
      return "l4";
    case PoolKind::kL4Shared:
      return "l4-shared";
    case PoolKind::kA100Mig:
      return "a100-mig";
  }
  return "";
}

std::string NodeGroups() {
  std::string yaml = "nodeGroups:\n";
  for (int i = 0; i < kGroups; ++i) {
    const PoolKind kind = KindOf(i);
    const bool spot = i % 5 == 2;
    const double price = kind == PoolKind::kCpu       ? 0.8 + 0.05 * i
                         : kind == PoolKind::kA100Mig ? 30.0 + i
                                                      : 4.0 + 0.25 * i;
    absl::StrAppend(&yaml, "- id: pool-", i, "\n  maxSize: 400\n  pricePerHour: ", price, "\n",
                    spot ? "  capacityType: spot\n" : "",
                    "  template:\n    metadata:\n      labels:\n        family: ", FamilyOf(kind),
                    "\n");
    std::string gpus;  // the allocatable the GPU operator advertises, if not MIG
    switch (kind) {
      case PoolKind::kCpu:
        break;
      case PoolKind::kL4:  // 4 or 8 GPUs a node: least-waste has a real choice
        absl::StrAppend(&yaml, "        nvidia.com/gpu.product: NVIDIA-L4\n",
                        "        nvidia.com/gpu.count: \"", spot ? 8 : 4, "\"\n");
        gpus = absl::StrCat(", nvidia.com/gpu: \"", spot ? 8 : 4, "\"");
        break;
      case PoolKind::kL4Shared:
        absl::StrAppend(&yaml, "        nvidia.com/gpu.product: NVIDIA-L4\n",
                        "        nvidia.com/gpu.count: \"4\"\n", "      annotations:\n",
                        "        gpu-autoscaler.io/gpu-sharing: time-slicing\n",
                        "        gpu-autoscaler.io/gpu-replicas: \"4\"\n");
        gpus = ", nvidia.com/gpu: \"16\"";
        break;
      case PoolKind::kA100Mig:
        absl::StrAppend(&yaml, "        nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB\n",
                        "        nvidia.com/gpu.count: \"8\"\n",
                        "        nvidia.com/mig.strategy: mixed\n", "      annotations:\n",
                        "        gpu-autoscaler.io/mig-layouts: all-1g.5gb,all-3g.20gb\n");
        break;
    }
    if (kind != PoolKind::kCpu) {
      absl::StrAppend(&yaml,
                      "    spec:\n      taints: [{key: nvidia.com/gpu, value: present, effect: "
                      "NoSchedule}]\n");
    }
    absl::StrAppend(&yaml,
                    "    status:\n      allocatable: {cpu: \"64\", memory: 256Gi, pods: \"110\"",
                    gpus, "}\n", "  simulation:\n    provisioningDelay: {p50: 90s, p95: 4m}\n",
                    kind == PoolKind::kCpu ? "" : "    gpuReadyDelay: {p50: 2m, p95: 4m}\n",
                    spot ? "    spotInterruptionsPerHour: 0.01\n" : "");
  }
  return yaml;
}

// Lines of 1 to 19 pods, spread over the week: cpu pods, whole L4 GPUs, time-sliced L4
// shares and A100 MIG slices (1g or 3g), each selecting only its kind of pool by label, so
// the expander picks among that kind's pools.
std::string TraceText() {
  std::mt19937_64 rng(7);
  std::string text;
  text.reserve(size_t{40} << 20);
  int64_t pods = 0;
  const double seconds = kDays * 86400.0;
  int64_t line = 0;
  while (pods < kPods) {
    const int count = static_cast<int>(std::min<int64_t>(1 + rng() % 19, kPods - pods));
    const double at = seconds * static_cast<double>(pods) / kPods;
    const int draw = static_cast<int>(rng() % 10);
    const PoolKind kind = draw < 3   ? PoolKind::kCpu
                          : draw < 7 ? PoolKind::kL4
                          : draw < 9 ? PoolKind::kL4Shared
                                     : PoolKind::kA100Mig;
    const int64_t run = 300 + static_cast<int64_t>(rng() % 1500);
    std::string gpu;
    if (kind == PoolKind::kL4 || kind == PoolKind::kL4Shared) {
      gpu = R"(, "nvidia.com/gpu": "1")";
    } else if (kind == PoolKind::kA100Mig) {
      gpu = rng() % 3 == 0 ? R"(, "nvidia.com/mig-3g.20gb": "1")"
                           : R"(, "nvidia.com/mig-1g.5gb": "1")";
    }
    absl::StrAppend(&text, R"({"at": )", static_cast<int64_t>(at), R"(, "name": "j)", line++,
                    R"(", "count": )", count, R"(, "runFor": )", run,
                    R"(, "pod": {"spec": {"nodeSelector": {"family": ")", FamilyOf(kind), R"("}, )",
                    kind == PoolKind::kCpu
                        ? ""
                        : R"("tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}], )",
                    R"("containers": [{"name": "m", "resources": {"requests": {"cpu": "2", )",
                    R"("memory": "4Gi")", gpu, "}}}]}}}\n");
    pods += count;
  }
  return text;
}

namespace {

absl::StatusOr<sim::SimulationResult> RunWeek() {
  auto groups = ParseNodeGroupFile(NodeGroups(), "bench-groups.yaml");
  if (!groups.ok()) return groups.status();
  auto trace = sim::ParseTrace(TraceText(), "bench.jsonl", ".");
  if (!trace.ok()) return trace.status();
  sim::SimulationOptions options;
  options.groups = *std::move(groups);
  return sim::Simulate(*trace, options);
}

void BM_SimulateWeek(benchmark::State& state) {
  for (auto _ : state) {
    absl::StatusOr<sim::SimulationResult> r = RunWeek();
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    state.counters["pods"] = static_cast<double>(r->pods);
    state.counters["pods_finished"] = static_cast<double>(r->pods_finished);
    state.counters["loops"] = static_cast<double>(r->loops);
    state.counters["node_hours"] = r->total.node_hours;
    state.counters["scale_ups"] = r->total.scale_ups;
    state.counters["replacements"] = r->total.replacements;
    state.counters["cost_usd"] = r->total.cost_usd;
    state.counters["x_packing_bound"] = r->total.cost_usd / r->total.packing_bound_cost_usd;
  }
  // The program's one benchmark, run once: its peak is the run's.
  state.counters["peak_rss_MiB"] = bench::PeakRssMiB();
}
BENCHMARK(BM_SimulateWeek)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace gpua

int main(int argc, char** argv) {
  // `simulate_bench --write-inputs DIR`: the generated node groups and trace as files, to run
  // `gpu-autoscaler simulate` (with --v, --until) on the very same week.
  if (argc == 3 && std::string(argv[1]) == "--write-inputs") {
    std::ofstream(std::string(argv[2]) + "/bench-groups.yaml") << gpua::NodeGroups();
    std::ofstream(std::string(argv[2]) + "/bench.jsonl") << gpua::TraceText();
    return 0;
  }
  // As gpu-autoscaler's own main: Debian's Abseil would check every lock for deadlocks.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
