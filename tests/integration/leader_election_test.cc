// Leader election on a Lease in the fake API server: one leader at a time, takeover after
// the leader stops, and a leader that cannot renew steps down before its lease runs out.
#include "autoscaler/kube/leader_election.h"

#include <catch2/catch.hpp>
#include <thread>

#include "tests/support/eventually.h"
#include "tests/support/fake_api_client.h"
#include "tests/support/fake_api_server.h"

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

// A candidate campaigning in its own thread.
struct Candidate {
  std::unique_ptr<ApiClient> client;
  LeaderElector elector;
  std::atomic<bool> stop{false};
  std::atomic<bool> stepped_down{false};
  std::thread thread;
  Candidate(const FakeApiServer& server, const std::string& id)
      : client(Client(server)), elector(*client, testing::TestClock(), Fast(id)) {
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

TEST_CASE("two candidates: exactly one leads, the other takes over after it stops",
          "[kube][leader]") {
  FakeApiServer server;
  auto a = std::make_unique<Candidate>(server, "autoscaler-a");
  auto b = std::make_unique<Candidate>(server, "autoscaler-b");
  REQUIRE(
      Eventually([&] { return a->elector.leading() || b->elector.leading(); }, absl::Seconds(10)));
  // Watch for a while: never both.
  for (int i = 0; i < 100; ++i) {
    CHECK(!(a->elector.leading() && b->elector.leading()));
    absl::SleepFor(absl::Milliseconds(10));
  }
  std::unique_ptr<Candidate>& leader = a->elector.leading() ? a : b;
  std::unique_ptr<Candidate>& other = a->elector.leading() ? b : a;
  leader->Stop();  // as a crash: the lease is not released
  // Timed from when the leader has stopped: Stop() waits for its thread, which may be in a
  // request or a retry sleep (a second under the sanitizers on a loaded machine).
  const absl::Time stopped = absl::Now();
  REQUIRE(Eventually([&] { return other->elector.leading(); }, absl::Seconds(10)));
  // Within the lease duration after the last renewal, which the other saw up to a retry
  // period late, and its next retry (+ slack for a loaded CI machine).
  CHECK(absl::Now() - stopped < absl::Milliseconds(3000 + 2 * 300 + 1000));
}

TEST_CASE("a leader that cannot renew steps down within the renew deadline", "[kube][leader]") {
  FakeApiServer server;
  Candidate only(server, "autoscaler-a");
  REQUIRE(Eventually([&] { return only.elector.leading(); }, absl::Seconds(10)));
  server.FailNext(1'000'000, 503);  // the API server is gone for good
  const absl::Time broke = absl::Now();
  REQUIRE(Eventually([&] { return only.stepped_down.load(); }, absl::Seconds(10)));
  CHECK(!only.elector.leading());
  // Before the lease could pass to anyone else.
  CHECK(absl::Now() - broke < absl::Milliseconds(3000));
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
