#include "autoscaler/sim/sim_lease.h"

namespace gpua::sim {

SimLease::SimLease(int replicas, LeaseTimings timings, absl::Time start)
    : timings_(timings), replicas_(replicas), renew_time_(start) {
  for (int r = 0; r < replicas; ++r) {
    // Staggered, as two pods never start in the same instant.
    replicas_[r].next_try = start + timings_.retry_period * r / replicas;
  }
  holder_ = {0, 0};
  replicas_[0].leading = true;
  replicas_[0].terms = 1;
  replicas_[0].renewed = start;
}

void SimLease::AdvanceTo(absl::Time now, const std::function<bool(int, absl::Time)>& failing) {
  for (;;) {
    int next = -1;
    for (int r = 0; r < static_cast<int>(replicas_.size()); ++r) {
      if (replicas_[r].next_try <= now &&
          (next < 0 || replicas_[r].next_try < replicas_[next].next_try)) {
        next = r;
      }
    }
    if (next < 0) return;
    const absl::Time t = replicas_[next].next_try;
    Try(next, t, failing(next, t));
    replicas_[next].next_try = t + timings_.retry_period;
  }
}

void SimLease::Try(int r, absl::Time t, bool failing) {
  Replica& me = replicas_[r];
  const Holder self{r, me.incarnation};
  if (failing) {
    if (me.leading && t - me.renewed > timings_.renew_deadline) {
      me.leading = false;  // stops acting and exits; it comes back as a new candidate
      ++me.incarnation;
    }
    return;
  }
  if (holder_ == self) {
    renew_time_ = t;
    me.renewed = t;
    return;
  }
  if (me.leading) {  // someone else holds it now: this one lost it and must stop
    me.leading = false;
    ++me.incarnation;
    return;
  }
  if (!(me.seen_holder == holder_) || me.seen_renew != renew_time_) {
    me.seen_holder = holder_;
    me.seen_renew = renew_time_;
    me.seen_at = t;
  }
  if (holder_.replica >= 0 && t < me.seen_at + timings_.lease_duration) return;
  holder_ = self;
  renew_time_ = t;
  ++transitions_;
  me.leading = true;
  ++me.terms;
  me.renewed = t;
}

std::vector<int> SimLease::Leaders() const {
  std::vector<int> leaders;
  for (int r = 0; r < static_cast<int>(replicas_.size()); ++r) {
    if (replicas_[r].leading) leaders.push_back(r);
  }
  return leaders;
}

}  // namespace gpua::sim
