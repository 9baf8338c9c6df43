// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does and
// with cluster-autoscaler's defaults (Lease "cluster-autoscaler", so the two never run side
// by side unnoticed): try to take the lease every retry period; while leading, renew it
// every retry period; a leader that has not renewed within the renew deadline stops acting,
// which is before the lease (lease duration, longer) can pass to another candidate. A
// candidate judges a held lease by when it last saw it change, not by the holder's clock.
#ifndef GPUA_AUTOSCALER_KUBE_LEADER_ELECTION_H_
#define GPUA_AUTOSCALER_KUBE_LEADER_ELECTION_H_

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "autoscaler/kube/api_client.h"
#include "base/clock.h"

namespace gpua::kube {

struct LeaderElectionConfig {
  std::string namespace_name = "kube-system";
  std::string lease_name = "cluster-autoscaler";
  std::string identity;  // the pod name
  absl::Duration lease_duration = absl::Seconds(15);
  absl::Duration renew_deadline = absl::Seconds(10);
  absl::Duration retry_period = absl::Seconds(2);
};

class LeaderElector {
 public:
  LeaderElector(ApiClient& client, Clock& clock, LeaderElectionConfig config);

  // Campaigns until it leads (or `stop`), calls `on_started`, renews until it cannot
  // within the deadline (or `stop`), then calls `on_stopped` and returns. The caller then
  // stops acting, as cluster-autoscaler exits.
  void Run(const std::atomic<bool>& stop, const std::function<void()>& on_started,
           const std::function<void()>& on_stopped);
  bool leading() const { return leading_; }

  // One attempt to take or renew the lease; true when this candidate holds it now.
  absl::StatusOr<bool> TryAcquireOrRenew();

 private:
  std::string Path(bool with_name) const;
  nlohmann::json NewLease(absl::Time now, int32_t transitions, absl::Time acquired) const;
  absl::Duration CallTimeout() const;

  ApiClient& client_;
  Clock& clock_;
  const LeaderElectionConfig config_;
  std::atomic<bool> leading_{false};
  std::string observed_;  // the lease spec last seen
  absl::Time observed_at_ = absl::InfinitePast();
};

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_KUBE_LEADER_ELECTION_H_
