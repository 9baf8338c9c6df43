#include "autoscaler/sim/share_spread.h"

#include <algorithm>
#include <cmath>

namespace gpua::sim {
namespace {

// Sums of fractions drift: a node whose shares all left may keep 1e-16 of a GPU.
constexpr double kNone = 1e-9;

}  // namespace

int ShareSpreadTally::Pool::Excess() const {
  const int packed = static_cast<int>(std::ceil(gpus_used / gpus_per_node - kNone));
  return std::max(0, nodes_with_shares - packed);
}

void ShareSpreadTally::AddPool(const std::string& pool, int gpus_per_node) {
  pools_[pool].gpus_per_node = std::max(1, gpus_per_node);
}

void ShareSpreadTally::NodeUse(const std::string& pool, double before, double after,
                               absl::Time now) {
  auto it = pools_.find(pool);
  if (it == pools_.end()) return;
  Pool& p = it->second;
  if (p.since != absl::InfinitePast()) p.kept += p.Excess() * (now - p.since);
  p.since = now;
  p.nodes_with_shares += (after > kNone) - (before > kNone);
  p.gpus_used += after - before;
}

absl::Duration ShareSpreadTally::Kept(const std::string& pool, absl::Time now) const {
  auto it = pools_.find(pool);
  if (it == pools_.end()) return absl::ZeroDuration();
  const Pool& p = it->second;
  if (p.since == absl::InfinitePast()) return p.kept;
  return p.kept + p.Excess() * (now - p.since);
}

}  // namespace gpua::sim
