// Parse throughput for the quantities a cluster's pods and nodes carry.
// Target (issue 2): at least 20 million quantities per second on one core.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "estimator/quantity.h"

namespace {

// A realistic mix: cpu requests, memory in binary and decimal units, GPU counts, node
// allocatable, and the occasional exponent or fraction.
const std::vector<std::string>& Mix() {
  static const std::vector<std::string> kMix = {
      "100m", "250m",  "500m",   "1",      "2",     "4",         "8",     "16",
      "190",  "1500m", "0.5",    "128Mi",  "256Mi", "512Mi",     "1Gi",   "2Gi",
      "4Gi",  "16Gi",  "1536Mi", "1900Gi", "110",   "100Gi",     "64G",   "500M",
      "1e3",  "2.5",   "750m",   "7Ei",    "3Ti",   "104857600", "1.5Gi", "20Gi",
  };
  return kMix;
}

void BM_ParseQuantityMix(benchmark::State& state) {
  const std::vector<std::string>& mix = Mix();
  size_t i = 0;
  for (auto _ : state) {
    auto q = gpua::Quantity::Parse(mix[i]);
    benchmark::DoNotOptimize(q);
    if (++i == mix.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["quantities/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ParseQuantityMix);

void BM_CanonicalString(benchmark::State& state) {
  std::vector<gpua::Quantity> parsed;
  for (const std::string& s : Mix()) parsed.push_back(*gpua::Quantity::Parse(s));
  size_t i = 0;
  for (auto _ : state) {
    std::string s = parsed[i].ToString();
    benchmark::DoNotOptimize(s);
    if (++i == parsed.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CanonicalString);

}  // namespace

BENCHMARK_MAIN();
