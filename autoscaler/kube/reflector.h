// A reflector as client-go has it: LIST (paged with limit/continue), then WATCH from the
// list's resourceVersion with bookmarks and a server timeout, keeping a store in step with
// the server. A closed stream resumes from the last resourceVersion seen; 410 Gone (as a
// status or an ERROR event) relists; other failures back off exponentially with jitter.
// Across all of these no event is lost or applied twice: the resourceVersion only moves on
// once an event has been applied.
#ifndef GPUA_AUTOSCALER_KUBE_REFLECTOR_H_
#define GPUA_AUTOSCALER_KUBE_REFLECTOR_H_

#include <simdjson.h>

#include <atomic>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "autoscaler/kube/api_client.h"
#include "base/clock.h"
#include "base/log.h"
#include "kubeobjects/json_reader.h"

namespace gpua::kube {

// What a reflector keeps up to date (an informer's cache). Objects are lent for the call
// only: their document is gone when it returns.
class ReflectorStore {
 public:
  virtual ~ReflectorStore() = default;
  // A (re)list: BeginList, Listed for every object of every page, then EndList once the
  // list is whole; only then does the store hold exactly what was listed. A list that
  // fails midway is begun again, and what it had listed is dropped.
  virtual void BeginList() = 0;
  virtual void Listed(const JsonReader& object) = 0;
  virtual void EndList() = 0;
  virtual void Add(const JsonReader& object) = 0;
  virtual void Update(const JsonReader& object) = 0;
  virtual void Remove(const JsonReader& object) = 0;
};

// Reads one page of a list and hands its items to `store.Listed`; fails (handing nothing on)
// when the body is not a list.
struct ListPage {
  std::string resource_version;
  std::string continue_token;
};
absl::StatusOr<ListPage> ReadListPage(simdjson::dom::parser& parser, const std::string& body,
                                      ReflectorStore& store);

struct ReflectorOptions {
  int64_t page_size = 500;
  absl::Duration watch_timeout = absl::Minutes(5);  // asked of the server per watch
  absl::Duration initial_backoff = absl::Milliseconds(800);
  absl::Duration max_backoff = absl::Seconds(30);
  std::string label_selector;
  std::string field_selector;
  // A collection that may not be there (a custom resource whose definition is not installed,
  // or one RBAC does not let us read): when the list is refused 404 at every path (`path`,
  // then these, other versions of it) or 403, the store is listed empty, which counts as
  // synced, and the list is tried again after `absent_retry`.
  bool optional = false;
  std::vector<std::string> fallback_paths;
  absl::Duration absent_retry = absl::Minutes(5);
  LogSink* log = &StderrLog();
};

class Reflector {
 public:
  // `path` is the collection, e.g. "/api/v1/pods" or "/api/v1/namespaces/ns/pods".
  Reflector(ApiClient& client, std::string path, ReflectorStore& store, Clock& clock,
            ReflectorOptions options = {});

  // Lists and watches until `stop`; errors are logged and retried, never returned.
  void Run(const std::atomic<bool>& stop);

  // One full list into the store; returns its resourceVersion.
  absl::StatusOr<std::string> ListAll();
  // One watch from `rv` until the stream ends; returns the last resourceVersion applied.
  // A 410 comes back as absl::StatusCode::kOutOfRange ("relist").
  absl::StatusOr<std::string> WatchOnce(std::string rv, const std::atomic<bool>& stop);

 private:
  std::string Query(bool watch) const;
  // An optional collection refused by every path: the store empty, the list tried later.
  void ListedAbsent(const absl::Status& why, const std::atomic<bool>& stop);
  void Backoff(int failures, const std::atomic<bool>& stop);

  ApiClient& client_;
  std::vector<std::string> paths_;  // the collection, then the versions to fall back to
  size_t path_at_ = 0;
  std::string path_;  // the one listed and watched
  bool said_absent_ = false;
  ReflectorStore& store_;
  Clock& clock_;
  const ReflectorOptions options_;
  std::mt19937 jitter_{std::random_device{}()};
  // Reused for every page and event, so its buffers are allocated once (simdjson decodes a
  // list page several times faster than a tree of nlohmann objects is built).
  simdjson::dom::parser parser_;
};

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_KUBE_REFLECTOR_H_
