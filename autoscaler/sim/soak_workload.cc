#include "autoscaler/sim/soak_workload.h"

#include <memory>

namespace gpua::sim {
namespace {

// A uniform draw in [0, 1) for (seed, line, what), the same on every run (splitmix64).
double Draw(uint64_t seed, int line, uint64_t what) {
  uint64_t z = seed ^ (static_cast<uint64_t>(line) * 0x9e3779b97f4a7c15ULL) ^ (what << 56);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

}  // namespace

Trace WithSoakWorkload(const Trace& trace, const SoakWorkload& workload, uint64_t seed) {
  Trace out = trace;
  for (TraceArrival& a : out.arrivals) {
    if (!a.min_available.has_value() && Draw(seed, a.line, 1) < workload.disruption_budgets) {
      GiveDisruptionBudget(a, a.count > 1 ? a.count - 1 : 1);
    }
    if (Draw(seed, a.line, 2) < workload.not_safe_to_evict) {
      auto pinned = std::make_shared<PodObject>(*a.shape);
      pinned->safe_to_evict = false;
      a.shape = std::move(pinned);
    }
  }
  return out;
}

}  // namespace gpua::sim
