// The informers' cache in a fault soak: while a watch is cut (or a relist after 410 Gone is
// under way) the controller keeps seeing the cluster as it was when the cut came, as a real
// informer's cache stops following the server; afterwards it sees the cluster as it is.
#ifndef GPUA_AUTOSCALER_SIM_STALE_CLUSTER_SOURCE_H_
#define GPUA_AUTOSCALER_SIM_STALE_CLUSTER_SOURCE_H_

#include "autoscaler/controller/model/cluster_source.h"
#include "base/clock.h"

namespace gpua::sim {

class StaleClusterSource : public ClusterSource {
 public:
  StaleClusterSource(const ClusterSource& inner, const Clock& clock)
      : inner_(inner), clock_(clock) {}

  // From now until `until`, the view stays as it is now (a later cut extends it).
  void Freeze(absl::Time until);
  bool frozen() const { return clock_.Now() < frozen_until_; }

  std::shared_ptr<const ClusterView> View() const override;
  bool Synced() const override { return inner_.Synced(); }

 private:
  const ClusterSource& inner_;
  const Clock& clock_;
  absl::Time frozen_until_ = absl::InfinitePast();
  mutable std::shared_ptr<const ClusterView> frozen_;  // released when it thaws
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_STALE_CLUSTER_SOURCE_H_
