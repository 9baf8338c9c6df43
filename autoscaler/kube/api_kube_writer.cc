#include "autoscaler/kube/api_kube_writer.h"

#include <algorithm>

#include "absl/hash/hash.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kubeobjects/json_text.h"

namespace gpua::kube {
namespace {

constexpr int kConflictRetries = 5;

std::string NodePath(const std::string& node) { return absl::StrCat("/api/v1/nodes/", node); }

}  // namespace

ApiKubeWriter::ApiKubeWriter(ApiClient& client, Clock& clock, std::string component, LogSink& log,
                             size_t max_queued_events)
    : client_(client),
      clock_(clock),
      component_(std::move(component)),
      log_(log),
      max_queued_(max_queued_events),
      sender_([this] { SendEvents(); }) {}

ApiKubeWriter::~ApiKubeWriter() {
  {
    absl::MutexLock lock(&queue_mu_);
    // What is still queued gets a few seconds; a dead API server must not hold up exit.
    const auto drained = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(queue_mu_) {
      return queue_.empty() && sending_ == 0;
    };
    queue_mu_.AwaitWithTimeout(absl::Condition(&drained), absl::Seconds(5));
    stopping_ = true;
  }
  sender_.join();
}

absl::Status ApiKubeWriter::RecordEvent(const EventRecord& e) {
  absl::MutexLock lock(&queue_mu_);
  if (queue_.size() >= max_queued_) {
    if (dropped_++ % 100 == 0) {
      log_.Warning(absl::StrCat("Event queue full (", max_queued_, "): dropped ", dropped_,
                                " event(s) so far, the last for ", e.object.kind, " ",
                                e.object.name));
    }
    return absl::OkStatus();
  }
  queue_.push_back(e);
  return absl::OkStatus();
}

void ApiKubeWriter::SendEvents() {
  while (true) {
    EventRecord e;
    {
      absl::MutexLock lock(&queue_mu_);
      const auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(queue_mu_) {
        return !queue_.empty() || stopping_;
      };
      queue_mu_.Await(absl::Condition(&ready));
      if (queue_.empty()) return;  // stopping, and nothing left
      e = std::move(queue_.front());
      queue_.pop_front();
      ++sending_;
    }
    const absl::Status s = SendEvent(e);
    if (!s.ok()) log_.Warning(absl::StrCat("Recording event ", e.reason, " failed: ", s.message()));
    absl::MutexLock lock(&queue_mu_);
    --sending_;
  }
}

void ApiKubeWriter::Flush() {
  absl::MutexLock lock(&queue_mu_);
  const auto drained = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(queue_mu_) {
    return queue_.empty() && sending_ == 0;
  };
  queue_mu_.Await(absl::Condition(&drained));
}

std::string ApiKubeWriter::Now() const {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", clock_.Now(), absl::UTCTimeZone());
}

absl::Status ApiKubeWriter::ReadModifyWrite(const std::string& path, absl::string_view what,
                                            const std::function<bool(nlohmann::json&)>& change) {
  for (int attempt = 0; attempt < kConflictRetries; ++attempt) {
    GPUA_ASSIGN_OR_RETURN(HttpResponse got, client_.Request("GET", path));
    if (got.status != 200) return HttpStatusError(what, got);
    nlohmann::json object = ParseJson(got.body, what).value_or(nlohmann::json());
    if (!object.is_object()) {
      return absl::DataLossError(absl::StrCat(what, ": the server sent no object"));
    }
    if (!change(object)) return absl::OkStatus();  // nothing to do
    GPUA_ASSIGN_OR_RETURN(HttpResponse put, client_.Request("PUT", path, object.dump()));
    if (put.status == 200) return absl::OkStatus();
    if (put.status != 409) return HttpStatusError(what, put);
  }
  return absl::AbortedError(
      absl::StrCat(what, ": still conflicting after ", kConflictRetries, " attempts"));
}

absl::StatusOr<HttpResponse> ApiKubeWriter::SendMergePatch(const std::string& path,
                                                           const nlohmann::json& patch) {
  return client_.Request("PATCH", path, patch.dump(), "application/merge-patch+json");
}

absl::Status ApiKubeWriter::MergePatch(const std::string& path, absl::string_view what,
                                       const nlohmann::json& patch) {
  GPUA_ASSIGN_OR_RETURN(HttpResponse res, SendMergePatch(path, patch));
  if (res.status != 200) return HttpStatusError(what, res);
  return absl::OkStatus();
}

absl::Status ApiKubeWriter::AddTaint(const std::string& node, const Taint& taint) {
  return ReadModifyWrite(NodePath(node), absl::StrCat("taint node ", node), [&](nlohmann::json& n) {
    nlohmann::json& taints = n["spec"]["taints"];
    if (!taints.is_array()) taints = nlohmann::json::array();
    const std::string effect(TaintEffectName(taint.effect));
    for (nlohmann::json& t : taints) {
      if (t.value("key", "") == taint.key && t.value("effect", "") == effect) {
        if (t.value("value", "") == taint.value) return false;  // already there
        t["value"] = taint.value;
        return true;
      }
    }
    taints.push_back({{"key", taint.key}, {"value", taint.value}, {"effect", effect}});
    return true;
  });
}

absl::Status ApiKubeWriter::RemoveTaint(const std::string& node, const std::string& key) {
  return ReadModifyWrite(NodePath(node), absl::StrCat("untaint node ", node),
                         [&](nlohmann::json& n) {
                           nlohmann::json& taints = n["spec"]["taints"];
                           if (!taints.is_array()) return false;
                           const size_t before = taints.size();
                           nlohmann::json kept = nlohmann::json::array();
                           for (const nlohmann::json& t : taints) {
                             if (t.value("key", "") != key) kept.push_back(t);
                           }
                           taints = std::move(kept);
                           return taints.size() != before;
                         });
}

absl::Status ApiKubeWriter::SetUnschedulable(const std::string& node, bool unschedulable) {
  return MergePatch(NodePath(node),
                    absl::StrCat(unschedulable ? "cordon" : "uncordon", " node ", node),
                    {{"spec", {{"unschedulable", unschedulable}}}});
}

absl::Status ApiKubeWriter::Annotate(const std::string& node, const std::string& key,
                                     std::optional<std::string> value) {
  nlohmann::json v = value.has_value() ? nlohmann::json(*value) : nlohmann::json(nullptr);
  return MergePatch(NodePath(node), absl::StrCat("annotate node ", node),
                    {{"metadata", {{"annotations", {{key, v}}}}}});
}

absl::Status ApiKubeWriter::Label(const std::string& node, const std::string& key,
                                  std::optional<std::string> value) {
  nlohmann::json v = value.has_value() ? nlohmann::json(*value) : nlohmann::json(nullptr);
  return MergePatch(NodePath(node), absl::StrCat("label node ", node),
                    {{"metadata", {{"labels", {{key, v}}}}}});
}

absl::Status ApiKubeWriter::DeleteNode(const std::string& node) {
  GPUA_ASSIGN_OR_RETURN(HttpResponse res, client_.Request("DELETE", NodePath(node)));
  if (res.status == 200 || res.status == 202 || res.status == 404) return absl::OkStatus();
  return HttpStatusError(absl::StrCat("delete node ", node), res);
}

absl::Status ApiKubeWriter::Nominate(const std::string& namespace_name, const std::string& pod,
                                     std::optional<std::string> node) {
  nlohmann::json v = node.has_value() ? nlohmann::json(*node) : nlohmann::json(nullptr);
  GPUA_ASSIGN_OR_RETURN(
      HttpResponse res,
      SendMergePatch(absl::StrCat("/api/v1/namespaces/", namespace_name, "/pods/", pod, "/status"),
                     {{"status", {{"nominatedNodeName", v}}}}));
  if (res.status == 200) return absl::OkStatus();
  // The scheduler bound the pod since the loop's view was taken, and the API server refuses a
  // nomination on a bound pod: the hint is moot, not failed.
  if (res.status == 422 && node.has_value() && absl::StrContains(res.body, "already bound")) {
    return absl::OkStatus();
  }
  return HttpStatusError(absl::StrCat("set the nominated node of pod ", namespace_name, "/", pod),
                         res);
}

absl::StatusOr<EvictionResult> ApiKubeWriter::Evict(const std::string& namespace_name,
                                                    const std::string& pod,
                                                    std::optional<absl::Duration> grace) {
  nlohmann::json eviction = {{"apiVersion", "policy/v1"},
                             {"kind", "Eviction"},
                             {"metadata", {{"name", pod}, {"namespace", namespace_name}}}};
  if (grace.has_value()) {
    eviction["deleteOptions"] = {{"gracePeriodSeconds", absl::ToInt64Seconds(*grace)}};
  }
  GPUA_ASSIGN_OR_RETURN(
      HttpResponse res,
      client_.Request(
          "POST", absl::StrCat("/api/v1/namespaces/", namespace_name, "/pods/", pod, "/eviction"),
          eviction.dump()));
  if (res.status == 200 || res.status == 201) return EvictionResult::kEvicted;
  if (res.status == 429) return EvictionResult::kBlockedByBudget;
  if (res.status == 404) return EvictionResult::kGone;
  // 500 here is how the API server says more than one budget selects the pod.
  return HttpStatusError(absl::StrCat("evict pod ", namespace_name, "/", pod), res);
}

absl::Status ApiKubeWriter::SendEvent(const EventRecord& e) {
  const std::string ns = e.object.namespace_name.empty() ? "default" : e.object.namespace_name;
  const std::string key =
      absl::StrCat(e.object.kind, "/", ns, "/", e.object.name, "/", e.reason, "/", e.message);
  const std::string base = absl::StrCat("/api/v1/namespaces/", ns, "/events");
  std::string name;
  int count = 1;
  {
    absl::MutexLock lock(&mu_);
    auto it = events_.find(key);
    if (it != events_.end()) {
      name = it->second.first;
      count = ++it->second.second;
    }
  }
  if (count > 1) {  // a repeat: count it on the Event already there
    absl::Status s = MergePatch(absl::StrCat(base, "/", name), "update event",
                                {{"count", count}, {"lastTimestamp", Now()}});
    if (!absl::IsNotFound(s)) return s;  // gone (expired): record it afresh
    count = 1;
  }
  name = absl::StrCat(e.object.name, ".", absl::Hex(absl::HashOf(key)));
  const nlohmann::json event = {{"apiVersion", "v1"},
                                {"kind", "Event"},
                                {"metadata", {{"name", name}, {"namespace", ns}}},
                                {"involvedObject",
                                 {{"kind", e.object.kind},
                                  {"namespace", e.object.namespace_name},
                                  {"name", e.object.name},
                                  {"uid", e.object.uid}}},
                                {"type", e.type},
                                {"reason", e.reason},
                                {"message", e.message},
                                {"count", 1},
                                {"firstTimestamp", Now()},
                                {"lastTimestamp", Now()},
                                {"source", {{"component", component_}}}};
  GPUA_ASSIGN_OR_RETURN(HttpResponse res, client_.Request("POST", base, event.dump()));
  if (res.status != 201 && res.status != 409) return HttpStatusError("record event", res);
  absl::MutexLock lock(&mu_);
  events_[key] = {name, 1};
  return absl::OkStatus();
}

absl::Status ApiKubeWriter::WriteConfigMap(const std::string& namespace_name,
                                           const std::string& name,
                                           const std::map<std::string, std::string>& data,
                                           const std::map<std::string, std::string>& annotations) {
  return UpsertConfigMap(namespace_name, name, &data, annotations);
}

absl::Status ApiKubeWriter::AnnotateConfigMap(
    const std::string& namespace_name, const std::string& name,
    const std::map<std::string, std::string>& annotations) {
  return UpsertConfigMap(namespace_name, name, nullptr, annotations);
}

absl::Status ApiKubeWriter::UpsertConfigMap(const std::string& namespace_name,
                                            const std::string& name,
                                            const std::map<std::string, std::string>* data,
                                            const std::map<std::string, std::string>& annotations) {
  const std::string base = absl::StrCat("/api/v1/namespaces/", namespace_name, "/configmaps");
  const std::string what = absl::StrCat("write configmap ", namespace_name, "/", name);
  const auto update = [&] {
    return ReadModifyWrite(absl::StrCat(base, "/", name), what, [&](nlohmann::json& cm) {
      if (data != nullptr) cm["data"] = *data;
      for (const auto& [k, v] : annotations) cm["metadata"]["annotations"][k] = v;
      return true;
    });
  };
  absl::Status updated = update();
  if (!absl::IsNotFound(updated)) return updated;
  nlohmann::json cm = {
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata", {{"name", name}, {"namespace", namespace_name}, {"annotations", annotations}}}};
  if (data != nullptr) cm["data"] = *data;
  GPUA_ASSIGN_OR_RETURN(HttpResponse res, client_.Request("POST", base, cm.dump()));
  // Another writer created it first: one more read-modify-write puts ours on top.
  if (res.status == 409) return update();
  if (res.status != 201) return HttpStatusError(what, res);
  return absl::OkStatus();
}

}  // namespace gpua::kube
