// `simulate` at scale: seven days of a 1,000,000-pod trace over 20 node groups (cpu pools,
// exclusive, time-sliced and MIG GPU pools, spot and on-demand), the whole simulation with
// the real controller's every loop. Prints the wall time and the run's own peak RSS (target:
// under 60 s on one core and 2 GiB).
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

// Group i: a cpu pool (i % 4 == 0), an exclusive GPU pool, or a time-sliced one.
std::string NodeGroups() {
  std::string yaml = "nodeGroups:\n";
  for (int i = 0; i < kGroups; ++i) {
    const bool cpu = i % 4 == 0;
    const bool shared = i % 4 == 3;
    absl::StrAppend(&yaml, "- id: pool-", i,
                    "\n  maxSize: 400\n  pricePerHour: ", cpu ? 0.8 : 4.0 + i, "\n",
                    i % 5 == 2 ? "  capacityType: spot\n" : "",
                    "  template:\n    metadata:\n      labels:\n        pool: p", i, "\n");
    if (!cpu) {
      absl::StrAppend(&yaml, "        nvidia.com/gpu.product: NVIDIA-L4\n",
                      "        nvidia.com/gpu.count: \"4\"\n");
      if (shared) {
        absl::StrAppend(&yaml, "      annotations:\n",
                        "        gpu-autoscaler.io/gpu-sharing: time-slicing\n",
                        "        gpu-autoscaler.io/gpu-replicas: \"4\"\n");
      }
      absl::StrAppend(&yaml,
                      "    spec:\n      taints: [{key: nvidia.com/gpu, value: present, effect: "
                      "NoSchedule}]\n");
    }
    absl::StrAppend(
        &yaml, "    status:\n      allocatable: {cpu: \"64\", memory: 256Gi, pods: \"110\"",
        cpu || shared ? "" : ", nvidia.com/gpu: \"4\"", shared ? ", nvidia.com/gpu: \"16\"" : "",
        "}\n", "  simulation:\n    provisioningDelay: {p50: 90s, p95: 4m}\n",
        cpu ? "" : "    gpuReadyDelay: {p50: 2m, p95: 4m}\n",
        i % 5 == 2 ? "    spotInterruptionsPerHour: 0.01\n" : "");
  }
  return yaml;
}

// Lines of 1 to 19 pods, spread over the week with a daily cycle, each pinned to its pool.
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
    const int pool = static_cast<int>(rng() % kGroups);
    const bool cpu = pool % 4 == 0;
    const int64_t run = 300 + static_cast<int64_t>(rng() % 1500);
    absl::StrAppend(&text, R"({"at": )", static_cast<int64_t>(at), R"(, "name": "j)", line++,
                    R"(", "count": )", count, R"(, "runFor": )", run,
                    R"(, "pod": {"spec": {"nodeSelector": {"pool": "p)", pool, R"("}, )",
                    cpu ? "" : R"("tolerations": [{"operator": "Exists"}], )",
                    R"("containers": [{"name": "m", "resources": {"requests": {"cpu": "2", )",
                    R"("memory": "4Gi")", cpu ? "" : R"(, "nvidia.com/gpu": "1")", "}}}]}}}\n");
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
