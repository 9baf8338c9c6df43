// Leader election on a Lease in the fake API server: one leader at a time, takeover after
// the leader stops, and a leader that cannot renew steps down before its lease runs out.
#include "autoscaler/kube/leader_election.h"

#include <catch2/catch.hpp>
#include <thread>

#include "tests/support/eventually.h"
#include "tests/support/fake_api_client.h"
#include "tests/support/fake_api_server.h"
#include "tests/support/stepped_clock.h"

namespace gpua::kube {
namespace {

using testing::FakeApiServer;

LeaderElectionConfig Fast(const std::string& identity) {
  LeaderElectionConfig c;
  c.namespace_name = "kube-system";
  c.identity = identity;
  c.lease_duration = absl::Milliseconds(3000);
  c.renew_deadline = absl::Milliseconds(2000);
  c.retry_period = absl::Milliseconds(300);
  return c;
}

std::unique_ptr<ApiClient> Client(const FakeApiServer& server) {
  return testing::ClientFor(server);
}

// A candidate campaigning in its own thread, on the test's clock.
struct Candidate {
  std::unique_ptr<ApiClient> client;
  LeaderElector elector;
  std::atomic<bool> stop{false};
  std::atomic<bool> stepped_down{false};
  std::thread thread;
  Candidate(const FakeApiServer& server, const std::string& id, Clock& clock)
      : client(Client(server)), elector(*client, clock, Fast(id)) {
    thread = std::thread([this] {
      elector.Run(
          stop, [] {}, [this] { stepped_down = true; });
    });
  }
  ~Candidate() { Stop(); }
  void Stop() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
};

using testing::Eventually;
using testing::SteppedClock;

constexpr absl::Duration kStep = absl::Milliseconds(50);

// Moves the clock one step on once `threads` candidates sleep on it (what they did since the
// last step is then settled); false when they did not within a while.
bool StepWhenAsleep(SteppedClock& clock, int threads) {
  if (!Eventually([&] { return clock.Sleepers() >= threads; }, absl::Seconds(10))) return false;
  clock.Step(kStep);
  return true;
}

TEST_CASE("two candidates: exactly one leads, the other takes over after it stops",
          "[kube][leader]") {
  FakeApiServer server;
  SteppedClock clock;
  auto a = std::make_unique<Candidate>(server, "autoscaler-a", clock);
  auto b = std::make_unique<Candidate>(server, "autoscaler-b", clock);
  // Three lease durations of clock time, never both leading, and one from early on.
  for (int i = 0; i < 180; ++i) {
    REQUIRE(StepWhenAsleep(clock, 2));
    CHECK_FALSE((a->elector.leading() && b->elector.leading()));
    if (i >= 20) REQUIRE((a->elector.leading() || b->elector.leading()));
  }
  std::unique_ptr<Candidate>& leader = a->elector.leading() ? a : b;
  std::unique_ptr<Candidate>& other = a->elector.leading() ? b : a;
  leader->Stop();  // as a crash: the lease is not released
  const absl::Time stopped = clock.Now();
  while (!other->elector.leading()) {
    REQUIRE(StepWhenAsleep(clock, 1));
    // Within the lease duration after the last renewal, which the other saw up to a retry
    // period late, and its next retry.
    REQUIRE(clock.Now() - stopped <= absl::Milliseconds(3000 + 2 * 300) + kStep);
  }
  CHECK(clock.Now() - stopped >= absl::Milliseconds(3000 - 300));  // not before the lease ran out
}

TEST_CASE("a leader that cannot renew steps down within the renew deadline", "[kube][leader]") {
  FakeApiServer server;
  SteppedClock clock;
  Candidate only(server, "autoscaler-a", clock);
  while (!only.elector.leading()) REQUIRE(StepWhenAsleep(clock, 1));
  server.FailNext(1'000'000, 503);  // the API server is gone for good
  const absl::Time broke = clock.Now();
  while (!only.stepped_down) {
    REQUIRE(
        Eventually([&] { return clock.Sleepers() >= 1 || only.stepped_down; }, absl::Seconds(10)));
    if (!only.stepped_down) clock.Step(kStep);
  }
  CHECK(!only.elector.leading());
  // After the renew deadline, and before the lease could pass to anyone else.
  CHECK(clock.Now() - broke >= absl::Milliseconds(2000 - 300));
  CHECK(clock.Now() - broke < absl::Milliseconds(3000));
}

TEST_CASE("a lease held and renewed by another is not taken", "[kube][leader]") {
  FakeApiServer server;
  auto client = Client(server);
  LeaderElector first(*client, testing::TestClock(), Fast("first"));
  LeaderElector second(*client, testing::TestClock(), Fast("second"));
  REQUIRE(*first.TryAcquireOrRenew());
  CHECK(!*second.TryAcquireOrRenew());
  CHECK(*first.TryAcquireOrRenew());  // renewing
  CHECK(!*second.TryAcquireOrRenew());
}

}  // namespace
}  // namespace gpua::kube
