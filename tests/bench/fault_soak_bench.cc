// The fault soak at length: the bundled example week, run under the default fault profile
// with one seed after another until at least 10,000 node-hours are simulated, for each of two
// base seeds. Prints, per base seed, the weeks run, node-hours, loops, the faults injected
// by kind, the evictions the profile's PodDisruptionBudgets refused, and the invariant
// violations by kind (the target: every kind injected at least 100
// times, every invariant 0). The first violation of each kind goes to stderr.
#include <benchmark/benchmark.h>

#include <iostream>

#include "autoscaler/cli/embedded_example.h"
#include "autoscaler/sim/simulation.h"
#include "cloudproviders/node_group_file.h"

namespace gpua {
namespace {

constexpr double kNodeHours = 10'000;

void BM_FaultSoak(benchmark::State& state) {
  const EmbeddedExample& example = SimulateExample();
  auto trace = sim::ParseTrace(example.trace, example.trace_name, ".");
  auto groups = ParseNodeGroupFile(example.node_groups, example.node_groups_name);
  if (!trace.ok() || !groups.ok()) {
    state.SkipWithError("the bundled example does not parse");
    return;
  }
  const uint64_t base_seed = static_cast<uint64_t>(state.range(0));
  for (auto _ : state) {
    double node_hours = 0;
    int64_t loops = 0, weeks = 0, refused = 0;
    std::map<std::string, int64_t> faults, invariants;
    for (uint64_t seed = base_seed; node_hours < kNodeHours; seed += 1000, ++weeks) {
      sim::SimulationOptions options;
      options.groups = *groups;
      options.seed = seed;
      options.faults = sim::DefaultFaultProfile();
      absl::StatusOr<sim::SimulationResult> r = sim::Simulate(*trace, options);
      if (!r.ok()) {
        state.SkipWithError(std::string(r.status().message()).c_str());
        return;
      }
      node_hours += r->total.node_hours;
      loops += r->loops;
      refused += r->soak->evictions_refused_by_budget;
      for (const auto& [kind, n] : r->soak->faults) faults[kind] += n;
      for (const auto& [name, n] : r->soak->invariants) invariants[name] += n;
      for (const sim::Violation& v : r->soak->first_violations) {
        std::cerr << "seed " << seed << ": " << sim::InvariantName(v.invariant) << " at +"
                  << absl::FormatDuration(absl::Trunc(v.at - r->start, absl::Seconds(1))) << ": "
                  << v.details << "\n";
      }
    }
    state.counters["weeks"] = static_cast<double>(weeks);
    state.counters["node_hours"] = node_hours;
    state.counters["loops"] = static_cast<double>(loops);
    state.counters["evictions_refused_by_budget"] = static_cast<double>(refused);
    for (const auto& [kind, n] : faults) state.counters["fault_" + kind] = static_cast<double>(n);
    for (const auto& [name, n] : invariants) {
      state.counters["violated_" + name] = static_cast<double>(n);
    }
  }
}
BENCHMARK(BM_FaultSoak)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace gpua

BENCHMARK_MAIN();
