// Two replicas on one Lease: a leader that cannot renew stops before the other takes over,
// so no instant has two leaders; with the timings the wrong way round (a renew deadline
// longer than the lease), there is one, which is what the soak's checker would catch.
#include "autoscaler/sim/sim_lease.h"

#include <catch2/catch.hpp>

namespace gpua::sim {
namespace {

struct Handover {
  int most_leaders = 0;
  absl::Time first_other = absl::InfiniteFuture();  // when replica 1 first led
};

// Replica 0 leads; its Lease calls fail from 10 s to 60 s; looked at every 100 ms.
Handover Watch(LeaseTimings timings) {
  const absl::Time start = absl::UnixEpoch();
  SimLease lease(2, timings, start);
  Handover h;
  const auto failing = [&](int replica, absl::Time t) {
    return replica == 0 && t >= start + absl::Seconds(10) && t < start + absl::Seconds(60);
  };
  for (absl::Time t = start; t < start + absl::Seconds(90); t += absl::Milliseconds(100)) {
    lease.AdvanceTo(t, failing);
    const std::vector<int> leaders = lease.Leaders();
    h.most_leaders = std::max(h.most_leaders, static_cast<int>(leaders.size()));
    if (std::find(leaders.begin(), leaders.end(), 1) != leaders.end()) {
      h.first_other = std::min(h.first_other, t);
    }
  }
  return h;
}

TEST_CASE("a leader that cannot renew stops before the other replica takes the Lease",
          "[faults][lease]") {
  const Handover h = Watch(LeaseTimings{});
  CHECK(h.most_leaders == 1);
  // It last renewed by 10 s; the other sees the Lease unchanged for 15 s after that.
  CHECK(h.first_other >= absl::UnixEpoch() + absl::Seconds(23));
  CHECK(h.first_other <= absl::UnixEpoch() + absl::Seconds(30));
}

TEST_CASE("with a renew deadline longer than the lease, two replicas lead at once",
          "[faults][lease]") {
  LeaseTimings wrong;
  wrong.renew_deadline = absl::Seconds(40);
  CHECK(Watch(wrong).most_leaders == 2);
}

}  // namespace
}  // namespace gpua::sim
