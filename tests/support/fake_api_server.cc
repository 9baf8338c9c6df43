#include "tests/support/fake_api_server.h"

#include <openssl/pem.h>

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"

namespace gpua::testing {
namespace {

std::string Key(const nlohmann::json& o) {
  const auto& meta = o.at("metadata");
  return absl::StrCat(meta.value("namespace", ""), "/", meta.value("name", ""));
}

// "pods" -> "Pod"
std::string Kind(const std::string& resource) {
  std::string kind = resource;
  if (!kind.empty() && kind.back() == 's') kind.pop_back();
  if (!kind.empty()) kind[0] = absl::ascii_toupper(kind[0]);
  return kind;
}

nlohmann::json StatusObject(int code, const std::string& message) {
  return {{"kind", "Status"},   {"apiVersion", "v1"}, {"status", "Failure"},
          {"message", message}, {"code", code},       {"reason", code == 410 ? "Expired" : ""}};
}

std::string Line(const std::string& type, const nlohmann::json& object) {
  return nlohmann::json{{"type", type}, {"object", object}}.dump() + "\n";
}

// The value at a dotted path ("spec.nodeName"), or empty.
std::string Field(const nlohmann::json& o, absl::string_view path) {
  const nlohmann::json* at = &o;
  for (absl::string_view part : absl::StrSplit(path, '.')) {
    if (!at->is_object() || !at->contains(std::string(part))) return "";
    at = &(*at)[std::string(part)];
  }
  return at->is_string() ? at->get<std::string>() : "";
}

// Kinds with a scale subresource (autoscaling/v1 Scale): the workloads and Cluster API's
// scalable resources.
bool HasScale(const std::string& resource) {
  static const std::set<std::string> kScalable = {"deployments",  "replicasets",
                                                  "statefulsets", "machinedeployments",
                                                  "machinesets",  "machinepools"};
  return kScalable.contains(resource);
}

// An object as its scale subresource shows it.
nlohmann::json ScaleOf(const nlohmann::json& object) {
  const nlohmann::json& meta = object["metadata"];
  nlohmann::json scale = {
      {"apiVersion", "autoscaling/v1"},
      {"kind", "Scale"},
      {"metadata",
       {{"name", meta.value("name", "")},
        {"namespace", meta.value("namespace", "")},
        {"resourceVersion", meta.value("resourceVersion", "")}}},
      {"spec", {{"replicas", object.contains("spec") ? object["spec"].value("replicas", 0) : 0}}},
      {"status", nlohmann::json::object()}};
  if (object.contains("status") && object["status"].contains("replicas")) {
    scale["status"]["replicas"] = object["status"]["replicas"];
  }
  return scale;
}

// Kinds without a status subresource.
bool HasStatus(const std::string& resource) {
  return resource != "configmaps" && resource != "leases" && resource != "events" &&
         resource != "secrets" && resource != "serviceaccounts";
}

// Splits a label selector at the commas that are not inside "in (a,b)".
std::vector<std::string> SelectorTerms(absl::string_view selector) {
  std::vector<std::string> terms(1);
  int depth = 0;
  for (char c : selector) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      terms.emplace_back();
    } else {
      terms.back().push_back(c);
    }
  }
  for (std::string& t : terms) t = std::string(absl::StripAsciiWhitespace(t));
  terms.erase(std::remove(terms.begin(), terms.end(), ""), terms.end());
  return terms;
}

// One label selector term against an object's labels.
bool LabelTermMatches(const nlohmann::json& o, absl::string_view term) {
  const nlohmann::json labels = o["metadata"].value("labels", nlohmann::json::object());
  const auto value_of = [&](absl::string_view key) -> std::optional<std::string> {
    auto it = labels.find(std::string(absl::StripAsciiWhitespace(key)));
    if (it == labels.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  if (absl::StartsWith(term, "!")) return !value_of(term.substr(1)).has_value();
  for (absl::string_view op : {" notin ", " in "}) {
    const size_t at = term.find(op);
    if (at == absl::string_view::npos) continue;
    absl::string_view set = absl::StripAsciiWhitespace(term.substr(at + op.size()));
    set = absl::StripSuffix(absl::StripPrefix(set, "("), ")");
    const std::optional<std::string> v = value_of(term.substr(0, at));
    bool in = false;
    for (absl::string_view item : absl::StrSplit(set, ',')) {
      in = in || (v.has_value() && *v == absl::StripAsciiWhitespace(item));
    }
    return op == " in " ? in : !in;
  }
  if (const size_t at = term.find("!="); at != absl::string_view::npos) {
    return value_of(term.substr(0, at)) != std::string(term.substr(at + 2));
  }
  if (const size_t at = term.find('='); at != absl::string_view::npos) {
    const absl::string_view value = absl::StripPrefix(term.substr(at + 1), "=");
    return value_of(term.substr(0, at)) == std::string(value);
  }
  return value_of(term).has_value();
}

// One field selector term (path=value, path==value, path!=value).
bool FieldTermMatches(const nlohmann::json& o, absl::string_view term) {
  if (const size_t at = term.find("!="); at != absl::string_view::npos) {
    return Field(o, term.substr(0, at)) != term.substr(at + 2);
  }
  const size_t at = term.find('=');
  if (at == absl::string_view::npos) return false;
  return Field(o, term.substr(0, at)) == absl::StripPrefix(term.substr(at + 1), "=");
}

// What a PUT or PATCH of `body` makes of `current`, into `out`; the HTTP status to answer
// (200, or 409 for a PUT with a stale resourceVersion, 422 for a JSON patch that fails) and
// for an error its message.
int ApplyWrite(const std::string& method, const std::string& content_type,
               const nlohmann::json& current, const nlohmann::json& body, bool conflict,
               nlohmann::json* out, std::string* error) {
  if (method == "PUT") {
    const std::string want = body.contains("metadata") && body["metadata"].is_object()
                                 ? body["metadata"].value("resourceVersion", "")
                                 : "";
    if (conflict || (!want.empty() && want != current["metadata"].value("resourceVersion", ""))) {
      *error =
          "the object has been modified; please apply your changes to the latest version and "
          "try again";
      return 409;
    }
    *out = body;
  } else if (content_type == "application/json-patch+json") {
    try {
      *out = current.patch(body);
    } catch (const nlohmann::json::exception& e) {
      *error = e.what();
      return 422;
    }
  } else {
    *out = current;
    out->merge_patch(body);
  }
  return 200;
}

// Whether a status write names a nominated node for a pod already bound, which the real API
// server refuses (422) since the scheduler bound it.
bool NominatesBoundPod(const nlohmann::json& written, const nlohmann::json& pod) {
  const nlohmann::json status = written.value("status", nlohmann::json::object());
  const nlohmann::json spec = pod.value("spec", nlohmann::json::object());
  return status.is_object() && spec.is_object() &&
         !status.value("nominatedNodeName", nlohmann::json()).is_null() &&
         status.value("nominatedNodeName", nlohmann::json()) != "" &&
         spec.value("nodeName", nlohmann::json()).is_string() && spec["nodeName"] != "";
}

// Gives `to` the status of `from` (none if it has none).
void CopyStatus(const nlohmann::json& from, nlohmann::json& to) {
  if (from.contains("status")) {
    to["status"] = from["status"];
  } else {
    to.erase("status");
  }
}

}  // namespace

FakeApiServer::FakeApiServer() : server_(std::make_unique<httplib::Server>()) { Serve(); }

FakeApiServer::FakeApiServer(const TlsIdentity& tls) : tls_(true) {
  const auto read = [](const std::string& pem, auto reader) {
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    auto* value = reader(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    return value;
  };
  X509* cert = read(tls.cert, PEM_read_bio_X509);
  EVP_PKEY* key = read(tls.key, PEM_read_bio_PrivateKey);
  server_ = std::make_unique<httplib::SSLServer>(cert, key);  // it takes its own references
  X509_free(cert);
  EVP_PKEY_free(key);
  Serve();
}

void FakeApiServer::Serve() {
  httplib::Server& server = *server_;
  // Each informer keeps a watch open for minutes, as against a real API server; httplib's
  // default pool of 8 threads would leave the ninth watch (or any request) waiting until one
  // ends. httplib's interface hands it the pool to own.
  server.new_task_queue = [] { return new httplib::ThreadPool(64); };
  server.Get(".*",
             [this](const httplib::Request& req, httplib::Response& res) { HandleGet(req, res); });
  for (const char* method : {"POST", "PUT", "PATCH", "DELETE"}) {
    const auto handler = [this, method](const httplib::Request& req, httplib::Response& res) {
      HandleWrite(method, req, res);
    };
    if (std::string(method) == "POST") server.Post(".*", handler);
    if (std::string(method) == "PUT") server.Put(".*", handler);
    if (std::string(method) == "PATCH") server.Patch(".*", handler);
    if (std::string(method) == "DELETE") server.Delete(".*", handler);
  }
  port_ = server.bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  for (int i = 0; i < 500 && !server_->is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

FakeApiServer::~FakeApiServer() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  changed_.SignalAll();
  server_->stop();
  thread_.join();
}

std::string FakeApiServer::url() const {
  return absl::StrCat(tls_ ? "https" : "http", "://127.0.0.1:", port_);
}

int64_t FakeApiServer::Upsert(const std::string& resource, nlohmann::json object) {
  absl::MutexLock lock(&mu_);
  object["metadata"]["resourceVersion"] = std::to_string(++rv_);
  if (!object["metadata"].contains("namespace") && resource != "nodes") {
    object["metadata"]["namespace"] = "default";
  }
  auto& bucket = objects_[resource];
  const std::string key = Key(object);
  const bool exists = bucket.contains(key);
  bucket[key] = object;
  events_.push_back({rv_, exists ? "MODIFIED" : "ADDED", object, resource});
  changed_.SignalAll();
  return rv_;
}

std::optional<nlohmann::json> FakeApiServer::Get(const std::string& resource, const std::string& ns,
                                                 const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto bucket = objects_.find(resource);
  if (bucket == objects_.end()) return std::nullopt;
  auto it = bucket->second.find(absl::StrCat(ns, "/", name));
  if (it == bucket->second.end()) return std::nullopt;
  return it->second;
}

std::vector<nlohmann::json> FakeApiServer::List(const std::string& resource) const {
  absl::MutexLock lock(&mu_);
  std::vector<nlohmann::json> out;
  auto bucket = objects_.find(resource);
  if (bucket == objects_.end()) return out;
  for (const auto& [key, object] : bucket->second) out.push_back(object);
  return out;
}

int64_t FakeApiServer::Delete(const std::string& resource, const std::string& ns,
                              const std::string& name) {
  absl::MutexLock lock(&mu_);
  auto& bucket = objects_[resource];
  auto it = bucket.find(absl::StrCat(ns, "/", name));
  if (it == bucket.end()) return rv_;
  nlohmann::json last = it->second;
  bucket.erase(it);
  last["metadata"]["resourceVersion"] = std::to_string(++rv_);
  events_.push_back({rv_, "DELETED", last, resource});
  changed_.SignalAll();
  return rv_;
}

void FakeApiServer::Compact() {
  absl::MutexLock lock(&mu_);
  compacted_ = rv_;
  events_.clear();
}

int64_t FakeApiServer::resource_version() const {
  absl::MutexLock lock(&mu_);
  return rv_;
}

void FakeApiServer::CutNextWatchAfter(size_t bytes) {
  absl::MutexLock lock(&mu_);
  cut_after_ = bytes;
}

void FakeApiServer::PoisonNextWatch() {
  absl::MutexLock lock(&mu_);
  poison_ = true;
}

void FakeApiServer::ConflictNextUpdate() {
  absl::MutexLock lock(&mu_);
  conflict_next_update_ = true;
}

void FakeApiServer::FailNext(int count, int status) {
  absl::MutexLock lock(&mu_);
  fail_count_ = count;
  fail_status_ = status;
}

void FakeApiServer::StallNext(int count, absl::Duration delay) {
  absl::MutexLock lock(&mu_);
  stall_count_ = count;
  stall_ = delay;
}

void FakeApiServer::SetBookmarkInterval(std::chrono::milliseconds interval) {
  absl::MutexLock lock(&mu_);
  bookmark_interval_ = interval;
}

int FakeApiServer::requests() const {
  absl::MutexLock lock(&mu_);
  return requests_;
}

bool FakeApiServer::Selected(const nlohmann::json& o, const std::string& ns,
                             const httplib::Request& req) const {
  if (!ns.empty() && o["metadata"].value("namespace", "") != ns) return false;
  for (const std::string& term : SelectorTerms(req.get_param_value("labelSelector"))) {
    if (!LabelTermMatches(o, term)) return false;
  }
  for (absl::string_view term :
       absl::StrSplit(req.get_param_value("fieldSelector"), ',', absl::SkipEmpty())) {
    if (!FieldTermMatches(o, term)) return false;
  }
  return true;
}

std::optional<FakeApiServer::Target> FakeApiServer::Parse(const std::string& path) {
  std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  size_t at = 0;
  std::string group;
  if (parts.size() >= 2 && parts[0] == "api" && parts[1] == "v1") {
    at = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    at = 3;
    group = parts[1];
  } else {
    return std::nullopt;
  }
  std::vector<std::string> rest(parts.begin() + static_cast<long>(at), parts.end());
  Target t;
  t.api_group = group;
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    t.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 3) return std::nullopt;
  t.resource = rest[0];
  if (rest.size() >= 2) t.name = rest[1];
  if (rest.size() == 3) t.subresource = rest[2];
  return t;
}

bool FakeApiServer::Injected(httplib::Response& res) {
  absl::Duration stall;
  {
    absl::MutexLock lock(&mu_);
    if (stall_count_ > 0) {
      --stall_count_;
      stall = stall_;
    }
  }
  absl::SleepFor(stall);  // outside the lock: other requests go on meanwhile
  absl::MutexLock lock(&mu_);
  ++requests_;
  if (fail_count_ <= 0) return false;
  --fail_count_;
  res.status = fail_status_;
  res.set_content(StatusObject(fail_status_, "injected failure").dump(), "application/json");
  return true;
}

// The verbs of Kubernetes authorization: GET is get, list or watch; POST create; PUT update;
// PATCH patch; DELETE delete, or deletecollection without a name.
void FakeApiServer::RecordAccess(const std::string& method, const httplib::Request& req,
                                 const std::optional<Target>& t) {
  Access a;
  if (t.has_value()) {
    a = {"", t->api_group, t->resource, t->ns, t->name};
    if (!t->subresource.empty()) absl::StrAppend(&a.resource, "/", t->subresource);
  } else {
    a.resource = req.path;  // not a resource path: recorded as is, so a test sees it
  }
  const std::string watch = req.get_param_value("watch");
  const bool named = !a.name.empty();
  if (method == "GET") {
    a.verb = named ? "get" : (watch == "1" || watch == "true") ? "watch" : "list";
  } else if (method == "POST") {
    a.verb = "create";
  } else if (method == "PUT") {
    a.verb = "update";
  } else if (method == "PATCH") {
    a.verb = "patch";
  } else {
    a.verb = named ? "delete" : "deletecollection";
  }
  if (!named) {
    for (absl::string_view term : absl::StrSplit(req.get_param_value("fieldSelector"), ',')) {
      if (absl::ConsumePrefix(&term, "metadata.name=")) a.name = std::string(term);
    }
  }
  absl::MutexLock lock(&mu_);
  accesses_.push_back(std::move(a));
}

std::vector<FakeApiServer::Access> FakeApiServer::accesses() const {
  absl::MutexLock lock(&mu_);
  return accesses_;
}

void FakeApiServer::RefusePath(const std::string& prefix, int status) {
  absl::MutexLock lock(&mu_);
  if (status == 0) {
    refused_paths_.erase(prefix);
  } else {
    refused_paths_[prefix] = status;
  }
}

bool FakeApiServer::Refused(const std::string& path, httplib::Response& res) {
  absl::MutexLock lock(&mu_);
  for (const auto& [prefix, status] : refused_paths_) {
    if (!absl::StartsWith(path, prefix)) continue;
    res.status = status;
    res.set_content(StatusObject(status, status == 403 ? "forbidden"
                                                       : "the server could not "
                                                         "find the requested resource")
                        .dump(),
                    "application/json");
    return true;
  }
  return false;
}

void FakeApiServer::HandleGet(const httplib::Request& req, httplib::Response& res) {
  std::optional<Target> t = Parse(req.path);
  RecordAccess("GET", req, t);
  if (Injected(res) || Refused(req.path, res)) return;
  if (!t.has_value()) {
    res.status = 404;
    return;
  }
  if (!t->name.empty()) {
    absl::MutexLock lock(&mu_);
    auto& bucket = objects_[t->resource];
    auto it = bucket.find(absl::StrCat(t->ns, "/", t->name));
    if (it == bucket.end()) {
      res.status = 404;
      res.set_content(StatusObject(404, absl::StrCat(t->name, " not found")).dump(),
                      "application/json");
      return;
    }
    res.set_content(
        (t->subresource == "scale" && HasScale(t->resource) ? ScaleOf(it->second) : it->second)
            .dump(),
        "application/json");
    return;
  }
  const std::string watch = req.get_param_value("watch");
  if (watch == "1" || watch == "true") {
    Watch(t->resource, t->ns, req, res);
  } else {
    List(t->resource, t->ns, req, res);
  }
}

void FakeApiServer::HandleWrite(const std::string& method, const httplib::Request& req,
                                httplib::Response& res) {
  std::optional<Target> t = Parse(req.path);
  RecordAccess(method, req, t);
  if (Injected(res) || Refused(req.path, res)) return;
  const auto answer = [&](int status, const nlohmann::json& body) {
    res.status = status;
    res.set_content(body.dump(), "application/json");
  };
  if (t.has_value() && method == "POST" && t->resource == "pods" && t->subresource == "eviction") {
    const nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
    std::optional<int64_t> grace;
    if (body.is_object() && body.contains("deleteOptions") && body["deleteOptions"].is_object() &&
        body["deleteOptions"].value("gracePeriodSeconds", nlohmann::json()).is_number_integer()) {
      grace = body["deleteOptions"]["gracePeriodSeconds"].get<int64_t>();
    }
    absl::MutexLock lock(&mu_);
    return Evict(*t, grace, res);
  }
  if (t.has_value() && t->subresource == "status" && HasStatus(t->resource) &&
      (method == "PUT" || method == "PATCH")) {
    absl::MutexLock lock(&mu_);
    const bool pod = t->resource == "pods";
    return WriteSubresource(method, *t, req, res,
                            {[](const nlohmann::json& object) { return object; },
                             [pod](const nlohmann::json& whole, nlohmann::json& object) {
                               if (pod && NominatesBoundPod(whole, object)) {
                                 return std::string(
                                     "status.nominatedNodeName: Forbidden: may not be set on "
                                     "pods that are already bound to a node");
                               }
                               CopyStatus(whole, object);
                               return std::string();
                             }});
  }
  if (t.has_value() && t->subresource == "scale" && HasScale(t->resource) &&
      (method == "PUT" || method == "PATCH")) {
    absl::MutexLock lock(&mu_);
    return WriteSubresource(
        method, *t, req, res,
        {ScaleOf, [](const nlohmann::json& scale, nlohmann::json& object) -> std::string {
           const nlohmann::json replicas = scale["spec"].value("replicas", nlohmann::json());
           if (!replicas.is_number_integer() || replicas.get<int64_t>() < 0) {
             return "spec.replicas: must be a non-negative integer";
           }
           object["spec"]["replicas"] = replicas;
           return "";
         }});
  }
  if (!t.has_value() || !t->subresource.empty()) {
    return answer(404, StatusObject(404, "no such path"));
  }
  if (method == "DELETE" && t->name.empty()) {  // deletecollection, by label and field selector
    absl::MutexLock lock(&mu_);
    nlohmann::json deleted = {{"kind", "List"}, {"items", nlohmann::json::array()}};
    auto& bucket = objects_[t->resource];
    for (auto it = bucket.begin(); it != bucket.end();) {
      if (!Selected(it->second, t->ns, req)) {
        ++it;
        continue;
      }
      nlohmann::json last = it->second;
      last["metadata"]["resourceVersion"] = std::to_string(++rv_);
      events_.push_back({rv_, "DELETED", last, t->resource});
      deleted["items"].push_back(std::move(last));
      it = bucket.erase(it);
    }
    changed_.SignalAll();
    return answer(200, deleted);
  }
  nlohmann::json body =
      req.body.empty() ? nlohmann::json() : nlohmann::json::parse(req.body, nullptr, false);
  if (body.is_discarded()) return answer(400, StatusObject(400, "body is not JSON"));
  absl::MutexLock lock(&mu_);
  auto& bucket = objects_[t->resource];
  const std::string name = method == "POST" ? body["metadata"].value("name", "") : t->name;
  const std::string key = absl::StrCat(t->ns, "/", name);
  auto it = bucket.find(key);
  const auto store = [&](nlohmann::json object, const std::string& type, int status) {
    object["metadata"]["name"] = name;
    if (!t->ns.empty()) object["metadata"]["namespace"] = t->ns;
    object["metadata"]["resourceVersion"] = std::to_string(++rv_);
    bucket[key] = object;
    events_.push_back({rv_, type, object, t->resource});
    changed_.SignalAll();
    answer(status, object);
  };
  if (method == "POST") {
    if (name.empty()) return answer(422, StatusObject(422, "metadata.name is required"));
    if (it != bucket.end())
      return answer(409, StatusObject(409, absl::StrCat(name, " already exists")));
    // The API server gives every object it creates a uid, which owner references name.
    if (!body["metadata"].contains("uid")) {
      body["metadata"]["uid"] = absl::StrCat("uid-", t->resource, "-", rv_ + 1);
    }
    return store(std::move(body), "ADDED", 201);
  }
  if (it == bucket.end()) return answer(404, StatusObject(404, absl::StrCat(name, " not found")));
  if (method == "DELETE") {
    nlohmann::json last = it->second;
    bucket.erase(it);
    last["metadata"]["resourceVersion"] = std::to_string(++rv_);
    events_.push_back({rv_, "DELETED", last, t->resource});
    changed_.SignalAll();
    return answer(200, last);
  }
  nlohmann::json updated;
  std::string error;
  const int status =
      ApplyWrite(method, req.get_header_value("Content-Type"), it->second, body,
                 method == "PUT" && std::exchange(conflict_next_update_, false), &updated, &error);
  if (status != 200) return answer(status, StatusObject(status, error));
  // The status subresource is the only way to change the status.
  if (HasStatus(t->resource)) CopyStatus(it->second, updated);
  store(std::move(updated), "MODIFIED", 200);
}

void FakeApiServer::WriteSubresource(const std::string& method, const Target& t,
                                     const httplib::Request& req, httplib::Response& res,
                                     const SubresourceWrite& write) {
  const auto answer = [&](int status, const nlohmann::json& body) {
    res.status = status;
    res.set_content(body.dump(), "application/json");
  };
  auto& bucket = objects_[t.resource];
  auto it = bucket.find(absl::StrCat(t.ns, "/", t.name));
  if (it == bucket.end()) return answer(404, StatusObject(404, t.name + " not found"));
  const nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return answer(400, StatusObject(400, "body is not a JSON object"));
  }
  nlohmann::json written;
  std::string error;
  const int status = ApplyWrite(method, req.get_header_value("Content-Type"),
                                write.view(it->second), body, false, &written, &error);
  if (status != 200) return answer(status, StatusObject(status, error));
  nlohmann::json updated = it->second;  // only the subresource's part changes
  if (std::string invalid = write.take(written, updated); !invalid.empty()) {
    return answer(422, StatusObject(422, invalid));
  }
  updated["metadata"]["resourceVersion"] = std::to_string(++rv_);
  it->second = updated;
  events_.push_back({rv_, "MODIFIED", updated, t.resource});
  changed_.SignalAll();
  answer(200, write.view(updated));
}

void FakeApiServer::List(const std::string& resource, const std::string& ns,
                         const httplib::Request& req, httplib::Response& res) {
  absl::MutexLock lock(&mu_);
  int64_t limit = 0;
  if (req.has_param("limit")) (void)absl::SimpleAtoi(req.get_param_value("limit"), &limit);
  std::string after;
  int64_t list_rv = rv_;
  if (const std::string token = req.get_param_value("continue"); !token.empty()) {
    std::pair<std::string, std::string> parts = absl::StrSplit(token, absl::MaxSplits('|', 1));
    after = parts.first;
    if (!absl::SimpleAtoi(parts.second, &list_rv) || list_rv < compacted_) {
      res.status = 410;
      res.set_content(StatusObject(410, "continue token expired").dump(), "application/json");
      return;
    }
  }
  nlohmann::json items = nlohmann::json::array();
  std::string last;
  bool more = false;
  for (const auto& [key, object] : objects_[resource]) {
    if (!after.empty() && key <= after) continue;
    if (!Selected(object, ns, req)) continue;
    if (limit > 0 && static_cast<int64_t>(items.size()) == limit) {
      more = true;
      break;
    }
    items.push_back(object);
    last = key;
  }
  nlohmann::json list = {{"kind", Kind(resource) + "List"},
                         {"apiVersion", "v1"},
                         {"metadata", {{"resourceVersion", std::to_string(list_rv)}}},
                         {"items", std::move(items)}};
  if (more) list["metadata"]["continue"] = absl::StrCat(last, "|", list_rv);
  res.set_content(list.dump(), "application/json");
}

void FakeApiServer::Watch(const std::string& resource, const std::string& ns,
                          const httplib::Request& req, httplib::Response& res) {
  int64_t from = 0;
  int64_t timeout_seconds = 30;
  (void)absl::SimpleAtoi(req.get_param_value("resourceVersion"), &from);
  if (req.has_param("timeoutSeconds")) {
    (void)absl::SimpleAtoi(req.get_param_value("timeoutSeconds"), &timeout_seconds);
  }
  const bool bookmarks = req.get_param_value("allowWatchBookmarks") == "true";
  std::string opening;  // what the stream starts with
  size_t cut = 0;
  {
    absl::MutexLock lock(&mu_);
    cut = std::exchange(cut_after_, 0);
    if (std::exchange(poison_, false)) opening += "{this is not json\n";
    if (from > 0 && from < compacted_) {
      opening += Line("ERROR", StatusObject(410, "too old resource version"));
      from = -1;  // nothing more: the client must relist
    } else if (from == 0) {
      for (const auto& [key, object] : objects_[resource]) {
        if (Selected(object, ns, req)) opening += Line("ADDED", object);
      }
      from = rv_;
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  res.set_chunked_content_provider("application/json", [=, this](size_t,
                                                                 httplib::DataSink& sink) mutable {
    size_t written = 0;
    // Writes `text`, or only what the cut allows; false once the stream must end.
    const auto write = [&](const std::string& text) {
      if (cut > 0 && written + text.size() > cut) {
        sink.write(text.data(), cut - written);
        return false;
      }
      written += text.size();
      return sink.write(text.data(), text.size());
    };
    if (!opening.empty() && !write(opening)) return false;
    auto last_bookmark = std::chrono::steady_clock::now();
    while (from >= 0 && std::chrono::steady_clock::now() < deadline) {
      std::string batch;
      bool bookmark = false;
      {
        absl::MutexLock lock(&mu_);
        if (stopping_) break;
        const auto has_news = [&] {
          return stopping_ || (!events_.empty() && events_.back().rv > from);
        };
        if (!has_news()) {
          changed_.WaitWithTimeout(&mu_, absl::FromChrono(bookmark_interval_));
        }
        for (const Event& e : events_) {
          if (e.rv <= from || e.resource != resource) continue;
          if (Selected(e.object, ns, req)) batch += Line(e.type, e.object);
        }
        if (!events_.empty()) from = std::max(from, events_.back().rv);
        if (bookmarks && std::chrono::steady_clock::now() - last_bookmark >= bookmark_interval_) {
          bookmark = true;
          from = std::max(from, rv_);
        }
      }
      if (!batch.empty() && !write(batch)) return false;
      if (bookmark) {
        last_bookmark = std::chrono::steady_clock::now();
        nlohmann::json mark = {{"kind", Kind(resource)},
                               {"apiVersion", "v1"},
                               {"metadata", {{"resourceVersion", std::to_string(from)}}}};
        if (!write(Line("BOOKMARK", mark))) return false;
      }
    }
    sink.done();
    return true;
  });
}

void FakeApiServer::Evict(const Target& t, std::optional<int64_t> grace, httplib::Response& res) {
  const auto answer = [&](int status, const std::string& message) {
    res.status = status;
    res.set_content(StatusObject(status, message).dump(), "application/json");
  };
  auto& pods = objects_["pods"];
  auto pod = pods.find(absl::StrCat(t.ns, "/", t.name));
  if (pod == pods.end()) return answer(404, absl::StrCat("pods \"", t.name, "\" not found"));
  const nlohmann::json labels = pod->second["metadata"].value("labels", nlohmann::json::object());
  std::vector<nlohmann::json*> budgets;
  for (auto& [key, pdb] : objects_["poddisruptionbudgets"]) {
    if (pdb["metadata"].value("namespace", "") != t.ns) continue;
    const nlohmann::json match =
        pdb["spec"]["selector"].value("matchLabels", nlohmann::json::object());
    bool selects = true;
    for (auto it = match.begin(); it != match.end(); ++it) {
      selects = selects && labels.value(it.key(), "") == it.value().get<std::string>();
    }
    if (selects) budgets.push_back(&pdb);
  }
  if (budgets.size() > 1) {
    return answer(500,
                  "This pod has more than one PodDisruptionBudget, which the eviction "
                  "subresource does not support.");
  }
  if (budgets.size() == 1) {
    nlohmann::json& pdb = *budgets[0];
    const int allowed = pdb["status"].value("disruptionsAllowed", 0);
    if (allowed < 1) {
      return answer(429, absl::StrCat("Cannot evict pod as it would violate the pod's "
                                      "disruption budget ",
                                      pdb["metadata"].value("name", "")));
    }
    pdb["status"]["disruptionsAllowed"] = allowed - 1;
    pdb["metadata"]["resourceVersion"] = std::to_string(++rv_);
    events_.push_back({rv_, "MODIFIED", pdb, "poddisruptionbudgets"});  // watchers see it spent
  }
  // A pod with a grace period terminates: the API server marks it, and its kubelet deletes
  // it once its containers have stopped (here, whoever plays the kubelet). One without is
  // gone at once.
  const nlohmann::json& spec = pod->second.contains("spec") && pod->second["spec"].is_object()
                                   ? pod->second["spec"]
                                   : nlohmann::json::object();
  const int64_t seconds = grace.value_or(spec.value("terminationGracePeriodSeconds", int64_t{0}));
  nlohmann::json last = pod->second;
  last["metadata"]["resourceVersion"] = std::to_string(++rv_);
  if (seconds > 0 && !last["metadata"].contains("deletionTimestamp")) {
    last["metadata"]["deletionTimestamp"] =
        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
    last["metadata"]["deletionGracePeriodSeconds"] = seconds;
    pod->second = last;
    events_.push_back({rv_, "MODIFIED", last, "pods"});
  } else if (seconds > 0) {
    pod->second = last;
    events_.push_back({rv_, "MODIFIED", last, "pods"});
  } else {
    pods.erase(pod);
    events_.push_back({rv_, "DELETED", last, "pods"});
  }
  changed_.SignalAll();
  res.status = 201;
  res.set_content(R"({"kind":"Status","apiVersion":"v1","status":"Success","code":201})",
                  "application/json");
}

}  // namespace gpua::testing
