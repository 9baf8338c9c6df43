// Two controller replicas sharing one Lease, as kube/leader_election.h runs them (client-go's
// rules, cluster-autoscaler's timings): each tries to take or renew the Lease every retry
// period; a candidate takes a held Lease only once it has seen it unchanged for the lease
// duration; a leader that could not renew within the renew deadline stops acting and exits,
// coming back as a new candidate. In a fault soak the leader's Lease calls fail for a while,
// and the other replica takes over.
#ifndef GPUA_AUTOSCALER_SIM_SIM_LEASE_H_
#define GPUA_AUTOSCALER_SIM_SIM_LEASE_H_

#include <functional>
#include <vector>

#include "absl/time/time.h"

namespace gpua::sim {

struct LeaseTimings {
  absl::Duration lease_duration = absl::Seconds(15);
  absl::Duration renew_deadline = absl::Seconds(10);
  absl::Duration retry_period = absl::Seconds(2);
};

class SimLease {
 public:
  // Replica 0 holds the Lease at `start`.
  SimLease(int replicas, LeaseTimings timings, absl::Time start);

  // Runs every replica's attempts due up to `now`, in time order; `failing(replica, t)`:
  // that replica's calls to the Lease fail at t.
  void AdvanceTo(absl::Time now, const std::function<bool(int, absl::Time)>& failing);
  // The replicas that believe they lead now (one, or none between two leaders).
  std::vector<int> Leaders() const;
  // How many times each replica has started leading: a new term is a new process.
  int64_t term(int replica) const { return replicas_[replica].terms; }
  int64_t transitions() const { return transitions_; }

 private:
  struct Holder {
    int replica = -1;
    int64_t incarnation = 0;  // a replica that exits comes back as a new identity
    bool operator==(const Holder&) const = default;
  };
  struct Replica {
    int64_t incarnation = 0;
    bool leading = false;
    int64_t terms = 0;
    absl::Time renewed = absl::InfinitePast();  // its last successful renewal
    Holder seen_holder;
    absl::Time seen_renew = absl::InfinitePast();
    absl::Time seen_at = absl::InfinitePast();  // when the record it saw last changed
    absl::Time next_try;
  };
  void Try(int r, absl::Time t, bool failing);

  LeaseTimings timings_;
  std::vector<Replica> replicas_;
  Holder holder_;
  absl::Time renew_time_;
  int64_t transitions_ = 0;
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_SIM_LEASE_H_
