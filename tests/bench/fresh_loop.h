// One controller loop as the benchmarks time it: a fresh simulated cloud and controller every
// iteration, made and let go outside the timing, so each loop has the same work to do.
#ifndef GPUA_TESTS_BENCH_FRESH_LOOP_H_
#define GPUA_TESTS_BENCH_FRESH_LOOP_H_

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "autoscaler/controller/controller.h"
#include "cloudproviders/simulated/simulated_cloud.h"
#include "tests/support/fake_cluster_source.h"
#include "tests/support/fake_kube_writer.h"

namespace gpua::bench {

// Cluster-autoscaler's default --cores-total (320,000) is passed by 5,000 nodes of 96 cores.
inline ControllerOptions LargeClusterOptions() {
  ControllerOptions o;
  o.limits.cores.max = 10'000'000;
  return o;
}

// The ReplicaSets run-0..49 and job-0..49 in "ml", so the pods they own may move.
inline void AddOwners(testing::FakeClusterSource& source) {
  for (int i = 0; i < 50; ++i) {
    for (const char* prefix : {"run-", "job-"}) {
      source.AddReplicaSet("ml", prefix + std::to_string(i), 100);
    }
  }
}

struct FreshLoop {
  ClusterSource& source;
  const std::vector<NodeGroupConfig>& groups;
  ControllerOptions options;
};

// Times RunOnce each iteration and hands each report to `read` (untimed).
template <typename Read>
void TimeFreshLoops(benchmark::State& state, const FreshLoop& loop, Read read) {
  RealClock clock;
  testing::FakeKubeWriter writer;
  for (auto _ : state) {
    state.PauseTiming();
    writer = testing::FakeKubeWriter();  // what the last loop wrote is let go untimed
    ManualClock cloud_clock;
    auto cloud = std::make_unique<SimulatedCloud>(loop.groups, cloud_clock);
    MemoryLogSink log;
    auto controller = std::make_unique<Controller>(
        ControllerSeams{loop.source, *cloud, writer, clock, log}, loop.options);
    state.ResumeTiming();
    LoopReport r = controller->RunOnce(clock.Now());
    state.PauseTiming();
    if (!r.skipped.empty()) state.SkipWithError(r.skipped.c_str());
    read(r);
    controller.reset();
    cloud.reset();
    state.ResumeTiming();
  }
}

// One loop, untimed: what a peak-RSS child process runs.
inline void RunOneLoop(const FreshLoop& loop) {
  RealClock clock;
  testing::FakeKubeWriter writer;
  ManualClock cloud_clock;
  SimulatedCloud cloud(loop.groups, cloud_clock);
  MemoryLogSink log;
  Controller controller({loop.source, cloud, writer, clock, log}, loop.options);
  benchmark::DoNotOptimize(controller.RunOnce(clock.Now()));
}

}  // namespace gpua::bench

#endif  // GPUA_TESTS_BENCH_FRESH_LOOP_H_
