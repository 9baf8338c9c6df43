// The reflector against the fake API server: paged lists, watches that are cut mid-object,
// compacted (410), failing (5xx) or poisoned, and a store that must end up exactly as the
// server is, with no event applied twice.
#include "autoscaler/kube/reflector.h"

#include <catch2/catch.hpp>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_api_client.h"
#include "tests/support/fake_api_server.h"

namespace gpua::kube {
namespace {

using testing::FakeApiServer;

// Keeps objects by namespace/name and counts what would be a duplicate.
class RecordingStore : public ReflectorStore {
 public:
  void BeginList() override { listing_.clear(); }
  void Listed(const JsonReader& o) override { listing_[Key(o)] = Version(o); }
  void EndList() override {
    absl::MutexLock lock(&mu_);
    versions_ = std::move(listing_);
    listing_.clear();
    ++replaces_;
  }
  void Add(const JsonReader& o) override {
    absl::MutexLock lock(&mu_);
    if (versions_.contains(Key(o))) ++duplicates_;
    versions_[Key(o)] = Version(o);
  }
  void Update(const JsonReader& o) override {
    absl::MutexLock lock(&mu_);
    auto it = versions_.find(Key(o));
    if (it != versions_.end() && it->second >= Version(o)) ++duplicates_;
    versions_[Key(o)] = Version(o);
  }
  void Remove(const JsonReader& o) override {
    absl::MutexLock lock(&mu_);
    if (versions_.erase(Key(o)) == 0) ++duplicates_;
  }

  // name -> resourceVersion
  std::map<std::string, int64_t> Versions() {
    absl::MutexLock lock(&mu_);
    return versions_;
  }
  int duplicates() {
    absl::MutexLock lock(&mu_);
    return duplicates_;
  }
  int replaces() {
    absl::MutexLock lock(&mu_);
    return replaces_;
  }

 private:
  static std::string Key(const JsonReader& o) {
    const JsonReader meta = o.Field("metadata");
    return absl::StrCat(meta.Field("namespace").StringView().value_or(""), "/",
                        meta.Field("name").StringView().value_or(""));
  }
  static int64_t Version(const JsonReader& o) {
    return std::stoll(o.Field("metadata").Field("resourceVersion").String("0").value_or("0"));
  }
  std::map<std::string, int64_t> listing_;  // the reflector's thread only
  absl::Mutex mu_;
  std::map<std::string, int64_t> versions_;
  int duplicates_ = 0;
  int replaces_ = 0;
};

nlohmann::json Pod(const std::string& name, const std::string& node = "") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "ml"}, {"labels", {{"app", "train"}}}}},
          {"spec", {{"nodeName", node}, {"containers", {{{"name", "main"}}}}}}};
}

// The server's pods, name -> resourceVersion, as the store should have them.
std::map<std::string, int64_t> Expected(const std::vector<std::pair<std::string, int64_t>>& v) {
  return {v.begin(), v.end()};
}

struct Harness {
  FakeApiServer server;
  std::unique_ptr<ApiClient> client;
  RecordingStore store;
  MemoryLogSink log;
  RealClock clock;
  std::unique_ptr<Reflector> reflector;
  std::atomic<bool> stop{false};
  std::thread thread;

  Harness() {
    client = testing::ClientFor(server, "", absl::Milliseconds(500));
    ReflectorOptions r;
    r.page_size = 2;
    r.watch_timeout = absl::Seconds(2);
    r.initial_backoff = absl::Milliseconds(20);
    r.max_backoff = absl::Milliseconds(200);
    r.log = &log;
    reflector = std::make_unique<Reflector>(*client, "/api/v1/pods", store, clock, r);
  }
  ~Harness() { Stop(); }
  void Start() {
    thread = std::thread([this] { reflector->Run(stop); });
  }
  void Stop() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
  // Waits (at most 10 s) for the store to hold exactly `want`.
  bool Converges(const std::map<std::string, int64_t>& want) {
    for (int i = 0; i < 500; ++i) {
      if (store.Versions() == want) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  bool Logged(const std::string& text) { return log.Contains(text); }
};

TEST_CASE("a paged list then a watch keep the store as the server is", "[kube][reflector]") {
  Harness h;
  std::vector<std::pair<std::string, int64_t>> want;
  for (int i = 0; i < 5; ++i) {
    const std::string name = absl::StrCat("p", i);
    want.emplace_back("ml/" + name, h.server.Upsert("pods", Pod(name)));
  }
  h.Start();
  REQUIRE(h.Converges(Expected(want)));
  want[1].second = h.server.Upsert("pods", Pod("p1", "node-a"));
  h.server.Delete("pods", "ml", "p2");
  want.erase(want.begin() + 2);
  want.emplace_back("ml/p9", h.server.Upsert("pods", Pod("p9")));
  CHECK(h.Converges(Expected(want)));
  CHECK(h.store.duplicates() == 0);
  CHECK(h.store.replaces() == 1);
}

TEST_CASE("a watch cut mid-object resumes and loses and duplicates nothing", "[kube][reflector]") {
  Harness h;
  std::vector<std::pair<std::string, int64_t>> want;
  want.emplace_back("ml/a", h.server.Upsert("pods", Pod("a")));
  auto rv = h.reflector->ListAll();
  REQUIRE(rv.ok());
  for (int i = 0; i < 6; ++i) {
    const std::string name = absl::StrCat("b", i);
    want.emplace_back("ml/" + name, h.server.Upsert("pods", Pod(name)));
  }
  const size_t event_bytes = nlohmann::json{{"type", "ADDED"}, {"object", Pod("b0")}}.dump().size();
  h.server.CutNextWatchAfter(event_bytes * 2 + event_bytes / 2);  // in the third event
  std::atomic<bool> stop{false};
  auto resumed_from = h.reflector->WatchOnce(*rv, stop);
  REQUIRE(resumed_from.ok());
  CHECK(h.store.Versions().size() < want.size());  // the cut left some out
  CHECK(*resumed_from != *rv);
  auto rest = h.reflector->WatchOnce(*resumed_from, stop);  // ends at its 2 s timeout
  REQUIRE(rest.ok());
  CHECK(h.store.Versions() == Expected(want));
  CHECK(h.store.duplicates() == 0);
}

TEST_CASE("a compacted resourceVersion (410) makes the reflector list again", "[kube][reflector]") {
  Harness h;
  h.server.Upsert("pods", Pod("old"));
  auto rv = h.reflector->ListAll();
  REQUIRE(rv.ok());
  h.server.Upsert("pods", Pod("new"));
  h.server.Compact();
  std::atomic<bool> stop{false};
  auto gone = h.reflector->WatchOnce(*rv, stop);
  CHECK(gone.status().code() == absl::StatusCode::kOutOfRange);
  h.Start();
  CHECK(h.Converges(Expected({{"ml/old", 101}, {"ml/new", 102}})));
  CHECK(h.store.duplicates() == 0);
}

TEST_CASE("a server that hangs times the requests out, the reflector backs off and recovers",
          "[kube][reflector]") {
  Harness h;
  std::vector<std::pair<std::string, int64_t>> want;
  want.emplace_back("ml/a", h.server.Upsert("pods", Pod("a")));
  h.server.StallNext(2, absl::Seconds(1));  // longer than the client's 500 ms
  h.Start();
  REQUIRE(h.Converges(Expected(want)));
  CHECK(h.Logged("/api/v1/pods?limit=2: Timeout was reached"));  // the request, named
  want.emplace_back("ml/b", h.server.Upsert("pods", Pod("b")));
  CHECK(h.Converges(Expected(want)));
  CHECK(h.store.duplicates() == 0);
}

TEST_CASE("5xx answers back off and recover, a malformed watch line restarts the watch",
          "[kube][reflector]") {
  Harness h;
  std::vector<std::pair<std::string, int64_t>> want;
  want.emplace_back("ml/a", h.server.Upsert("pods", Pod("a")));
  h.server.FailNext(3, 503);
  h.Start();
  REQUIRE(h.Converges(Expected(want)));
  CHECK(h.Logged("HTTP 503"));
  const auto watches = [&] {
    int n = 0;
    for (const FakeApiServer::Access& a : h.server.accesses()) n += a.verb == "watch";
    return n;
  };
  const int before = watches();
  h.server.PoisonNextWatch();
  // The current watch ends at its timeout; the next one starts with the bad line, and the
  // reflector, reading it, opens another.
  REQUIRE(testing::Eventually([&] { return watches() >= before + 2; }, absl::Seconds(20)));
  CHECK(h.Logged("malformed line"));
  for (int i = 0; i < 3; ++i) {
    const std::string name = absl::StrCat("c", i);
    want.emplace_back("ml/" + name, h.server.Upsert("pods", Pod(name)));
  }
  CHECK(h.Converges(Expected(want)));
  CHECK(h.store.duplicates() == 0);
}

}  // namespace
}  // namespace gpua::kube
