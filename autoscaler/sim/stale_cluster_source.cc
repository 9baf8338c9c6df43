#include "autoscaler/sim/stale_cluster_source.h"

namespace gpua::sim {

void StaleClusterSource::Freeze(absl::Time until) {
  if (!frozen()) frozen_ = inner_.View();
  frozen_until_ = std::max(frozen_until_, until);
}

std::shared_ptr<const ClusterView> StaleClusterSource::View() const {
  if (frozen()) return frozen_;
  frozen_.reset();  // so the cluster may patch its view in place again
  return inner_.View();
}

}  // namespace gpua::sim
