// An in-process Kubernetes API server for integration tests, over loopback HTTP/1.1. It
// follows the documented semantics the client relies on, for any resource under /api/v1
// (pods, nodes, ...):
// - every change gets the next resourceVersion (one counter for the whole server);
// - LIST with limit/continue paging; every page carries the list's resourceVersion;
// - WATCH from a resourceVersion: the events after it, newline-separated JSON
//   {"type","object"}, chunked; from 0 or none, synthetic ADDED events for what exists
//   first; BOOKMARK events (metadata.resourceVersion only) when allowWatchBookmarks is set;
//   the stream ends at timeoutSeconds;
// - a watch from a compacted resourceVersion gets one ERROR event whose Status has code
//   410, as a real server answers;
// - labelSelector with equality terms (key=value, key==value, key!=value), set terms
//   (key in (a,b), key notin (a,b), key, !key); fieldSelector with = and != on any string
//   field by its dotted path (metadata.name, spec.nodeName, status.phase);
// - evictions (POST pods/<name>/eviction) consult the PodDisruptionBudgets whose matchLabels
//   select the pod: none or one allowing a disruption evicts (201) and uses it up; one
//   allowing none answers 429; more than one answers 500, as a real server does. A pod with
//   a grace period (its own terminationGracePeriodSeconds, or the eviction's
//   deleteOptions.gracePeriodSeconds) is only marked terminating (deletionTimestamp), for
//   whoever plays its kubelet to delete; one without is deleted at once;
// - writes: POST (create; 409 AlreadyExists), GET of one object, PUT (update; 409 Conflict
//   when metadata.resourceVersion is given and stale), PATCH as JSON merge patch or JSON
//   patch (a failed "test" is 422), DELETE; for /api/v1 and /apis/<group>/<version> paths
//   (leases under coordination.k8s.io);
// - the status subresource (<name>/status) of kinds that have one: writes there change
//   only .status, and writes to the object itself leave its .status as it was;
// - the scale subresource (<name>/scale, an autoscaling/v1 Scale) of the workloads and of
//   Cluster API's MachineDeployments, MachineSets and MachinePools: GET, and PUT or PATCH
//   of spec.replicas (a stale resourceVersion in a PUT is 409);
// - TLS when made with a server identity (tests make the CA with OpenSSL, test_pki.h).
// Fault injection: cut the next watch stream after N bytes (mid-object), put a malformed
// line into it, answer the next N requests with a status code or only after a delay.
//
// Where it differs from a real API server: list pages after the first come from the state
// at the time of the page, not a snapshot at the first page's resourceVersion; no
// admission, defaulting, validation or field ownership (server-side apply); a resource is
// known by its plural name alone (not its group), and every resource but ConfigMaps,
// Leases, Events, Secrets and ServiceAccounts is taken to have a status subresource; only
// HTTP/1.1.
#ifndef GPUA_TESTS_SUPPORT_FAKE_API_SERVER_H_
#define GPUA_TESTS_SUPPORT_FAKE_API_SERVER_H_

#include <httplib.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gpua::testing {

class FakeApiServer {
 public:
  // What the server presents over TLS (PEM).
  struct TlsIdentity {
    std::string cert;
    std::string key;
  };

  FakeApiServer();
  explicit FakeApiServer(const TlsIdentity& tls);
  ~FakeApiServer();

  std::string url() const;
  int port() const { return port_; }

  // Creates or replaces an object of `resource` ("pods"); sets its resourceVersion and
  // returns it.
  int64_t Upsert(const std::string& resource, nlohmann::json object);
  int64_t Delete(const std::string& resource, const std::string& ns, const std::string& name);
  // What the server holds now ("" namespace for nodes).
  std::optional<nlohmann::json> Get(const std::string& resource, const std::string& ns,
                                    const std::string& name) const;
  std::vector<nlohmann::json> List(const std::string& resource) const;
  // Forgets the events so far: watches from before now get 410.
  void Compact();
  int64_t resource_version() const;

  // Trouble for the next watch: end the stream after `bytes` of events.
  void CutNextWatchAfter(size_t bytes);
  // A line that is not JSON in the next watch, before its events.
  void PoisonNextWatch();
  // The next PUT answers 409 as if someone else had just written the object.
  void ConflictNextUpdate();
  // The next `count` requests answer `status`.
  void FailNext(int count, int status);
  // The next `count` requests are answered only after `delay` (a server that hangs).
  void StallNext(int count, absl::Duration delay);
  // Every request whose path starts with `prefix` is answered `status` with a Status body:
  // 404 for a resource (or a version of one) not served, as when its CRD is not installed;
  // 403 for one RBAC does not allow. Status 0 serves it again.
  void RefusePath(const std::string& prefix, int status);
  // How often a bookmark is sent on watches that allow them.
  void SetBookmarkInterval(std::chrono::milliseconds interval);
  int requests() const;

  // A request as RBAC sees it (the verb, API group, resource[/subresource], namespace and
  // name of the authorization docs' "request attributes"): list and watch narrowed by a
  // metadata.name field selector carry that name, as the API server authorizes them.
  struct Access {
    std::string verb, api_group, resource, ns, name;
  };
  // Every request the server has answered, in order.
  std::vector<Access> accesses() const;

 private:
  struct Event {
    int64_t rv;
    std::string type;
    nlohmann::json object;
    std::string resource;
  };

  struct Target {
    std::string api_group, ns, resource, name, subresource;
  };
  void RecordAccess(const std::string& method, const httplib::Request& req,
                    const std::optional<Target>& t);
  static std::optional<Target> Parse(const std::string& path);
  // Counts the request and answers an injected failure; true when it did.
  bool Injected(httplib::Response& res);
  bool Refused(const std::string& path, httplib::Response& res);
  void HandleGet(const httplib::Request& req, httplib::Response& res);
  void HandleWrite(const std::string& method, const httplib::Request& req, httplib::Response& res);
  void Evict(const Target& t, std::optional<int64_t> grace, httplib::Response& res)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void List(const std::string& resource, const std::string& ns, const httplib::Request& req,
            httplib::Response& res);
  void Watch(const std::string& resource, const std::string& ns, const httplib::Request& req,
             httplib::Response& res);
  bool Selected(const nlohmann::json& object, const std::string& ns,
                const httplib::Request& req) const;
  // A write to a subresource: the object as `view` shows it (itself for status, a Scale for
  // scale) takes the write, and `take` moves the part the subresource owns back into the
  // object, or says why it cannot (answered 422).
  struct SubresourceWrite {
    std::function<nlohmann::json(const nlohmann::json&)> view;
    std::function<std::string(const nlohmann::json& written, nlohmann::json& object)> take;
  };
  void WriteSubresource(const std::string& method, const Target& t, const httplib::Request& req,
                        httplib::Response& res, const SubresourceWrite& write)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  absl::CondVar changed_;
  int64_t rv_ ABSL_GUARDED_BY(mu_) = 100;
  int64_t compacted_ ABSL_GUARDED_BY(mu_) = 0;
  // resource -> "ns/name" -> object
  std::map<std::string, std::map<std::string, nlohmann::json>> objects_ ABSL_GUARDED_BY(mu_);
  std::vector<Event> events_ ABSL_GUARDED_BY(mu_);
  size_t cut_after_ ABSL_GUARDED_BY(mu_) = 0;
  bool poison_ ABSL_GUARDED_BY(mu_) = false;
  bool conflict_next_update_ ABSL_GUARDED_BY(mu_) = false;
  int fail_count_ ABSL_GUARDED_BY(mu_) = 0;
  int fail_status_ ABSL_GUARDED_BY(mu_) = 500;
  int stall_count_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, int> refused_paths_ ABSL_GUARDED_BY(mu_);
  absl::Duration stall_ ABSL_GUARDED_BY(mu_);
  int requests_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<Access> accesses_ ABSL_GUARDED_BY(mu_);
  std::chrono::milliseconds bookmark_interval_ ABSL_GUARDED_BY(mu_){200};
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;

  void Serve();

  std::unique_ptr<httplib::Server> server_;
  bool tls_ = false;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_FAKE_API_SERVER_H_
