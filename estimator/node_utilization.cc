#include "estimator/node_utilization.h"

#include <algorithm>
#include <map>
#include <string>

namespace gpua {
namespace {

double Share(int64_t used, int64_t of) {
  return of <= 0 ? 0 : static_cast<double>(used) / static_cast<double>(of);
}

// What utilization sums of one pod: cpu in millicores, memory in bytes, and its GPU units
// weighted by the part of a physical GPU each is.
struct Use {
  int64_t cpu = 0;
  int64_t memory = 0;
  double gpus = 0;
};

Use UseOf(const PodSpec& pod, const std::map<std::string, double>& gpu_shares) {
  Use use;
  // Most pods request only resources with fixed slots: read off the vector worked out once.
  if (const std::optional<ResourceVector>& fixed = FixedRequests(pod)) {
    use.cpu = At(*fixed, ResourceCatalog::kCpu);
    use.memory = At(*fixed, ResourceCatalog::kMemory);
    for (const auto& [name, share] : gpu_shares) {
      const int slot = ResourceCatalog::FixedSlot(name);
      if (slot >= 0) use.gpus += static_cast<double>(At(*fixed, slot)) * share;
    }
    return use;
  }
  use.cpu = pod.requests.Get(kResourceCpu).MilliValue();
  use.memory = pod.requests.Get(kResourceMemory).Value();
  for (const auto& [name, share] : gpu_shares) {
    use.gpus += static_cast<double>(pod.requests.Get(name).Value()) * share;
  }
  return use;
}

}  // namespace

NodeUtilization ComputeUtilization(const ResourceList& allocatable, const GpuInventory* gpus,
                                   const NamedMigLayout* layout, const std::vector<PodUse>& pods,
                                   bool ignore_daemonsets) {
  NodeUtilization u;
  u.gpu_node = gpus != nullptr && gpus->physical_count() > 0;
  // Summed pod by pod, only what is compared: every node is judged every loop, and adding
  // whole request lists cost more than the judging.
  static const std::map<std::string, double> kNoShares;
  const GpuInventory::Shares shares = u.gpu_node ? gpus->UnitShares(layout) : nullptr;
  const std::map<std::string, double>& gpu_shares = shares != nullptr ? *shares : kNoShares;
  Use total;
  for (const PodUse& p : pods) {
    if (ignore_daemonsets && p.daemonset) continue;
    const Use use = UseOf(*p.pod, gpu_shares);
    total.cpu += use.cpu;
    total.memory += use.memory;
    total.gpus += use.gpus;
  }
  if (u.gpu_node) u.gpu = std::min(1.0, total.gpus / gpus->physical_count());
  u.cpu = Share(total.cpu, allocatable.Get(kResourceCpu).MilliValue());
  u.memory = Share(total.memory, allocatable.Get(kResourceMemory).Value());
  return u;
}

}  // namespace gpua
