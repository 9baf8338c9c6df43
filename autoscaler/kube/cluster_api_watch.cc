#include "autoscaler/kube/cluster_api_watch.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace gpua::kube {
namespace {

// The group's preferred version, from discovery; v1beta1 when discovery does not say.
std::string DiscoverVersion(ApiClient& client, const std::string& group, LogSink& log) {
  absl::StatusOr<HttpResponse> res = client.Request("GET", absl::StrCat("/apis/", group));
  if (res.ok() && res->status == 200) {
    const nlohmann::json doc = nlohmann::json::parse(res->body, nullptr, false);
    if (doc.is_object() && doc.contains("preferredVersion") &&
        doc["preferredVersion"].contains("version") &&
        doc["preferredVersion"]["version"].is_string()) {
      return doc["preferredVersion"]["version"].get<std::string>();
    }
  }
  log.Info(absl::StrCat("Cluster API: no preferred version of ", group,
                        " in discovery; reading v1beta1"));
  return "v1beta1";
}

}  // namespace

absl::StatusOr<std::shared_ptr<ClusterApiWatch>> ClusterApiWatch::Start(
    std::unique_ptr<ApiClient> client, Clock& clock, const std::string& api_group,
    std::string version, ReflectorOptions reflector) {
  if (version.empty()) version = DiscoverVersion(*client, api_group, *reflector.log);
  return std::make_shared<ClusterApiWatch>(
      std::move(client), clock, absl::StrCat(api_group, "/", version), std::move(reflector));
}

ClusterApiWatch::ClusterApiWatch(std::unique_ptr<ApiClient> client, Clock& clock,
                                 std::string group_version, ReflectorOptions reflector)
    : client_(std::move(client)),
      clock_(clock),
      group_version_(std::move(group_version)),
      events_(*client_, clock_, "gpu-autoscaler", *reflector.log),
      machines_([](const JsonReader& o) { return DecodeCapiMachine(o); }, {}, *reflector.log) {
  reflector.optional = true;  // no Cluster API here: no groups, and looked for again
  for (CapiKind kind : kCapiScalableKinds) {
    scalables_.push_back(std::make_unique<Informer<CapiScalable>>(
        [kind](const JsonReader& o) { return DecodeCapiScalable(o, kind); },
        Informer<CapiScalable>::Handlers{}, *reflector.log));
    reflectors_.push_back(std::make_unique<Reflector>(
        *client_, absl::StrCat("/apis/", group_version_, "/", CapiKindResource(kind)),
        *scalables_.back(), clock_, reflector));
  }
  reflectors_.push_back(std::make_unique<Reflector>(
      *client_, absl::StrCat("/apis/", group_version_, "/machines"), machines_, clock_, reflector));
  for (const auto& r : reflectors_) {
    Reflector* each = r.get();
    threads_.emplace_back([this, each] { each->Run(stop_); });
  }
}

ClusterApiWatch::~ClusterApiWatch() {
  stop_ = true;
  for (std::thread& t : threads_) t.join();
}

bool ClusterApiWatch::Synced() const {
  for (const auto& s : scalables_) {
    if (!s->synced()) return false;
  }
  return machines_.synced();
}

CapiObjects ClusterApiWatch::Objects() const {
  CapiObjects out;
  for (const auto& s : scalables_) {
    std::vector<Informer<CapiScalable>::Ptr> listed = s->List();
    out.scalables.insert(out.scalables.end(), listed.begin(), listed.end());
  }
  out.machines = machines_.List();
  return out;
}

std::string ClusterApiWatch::Path(absl::string_view ns, absl::string_view resource,
                                  absl::string_view name) const {
  return absl::StrCat("/apis/", group_version_, "/namespaces/", ns, "/", resource, "/", name);
}

absl::Status ClusterApiWatch::MergePatch(const std::string& path, const std::string& what,
                                         const nlohmann::json& patch) {
  GPUA_ASSIGN_OR_RETURN(HttpResponse res, client_->Request("PATCH", path, patch.dump(),
                                                           "application/merge-patch+json"));
  if (res.status != 200) return HttpStatusError(what, res);
  return absl::OkStatus();
}

absl::Status ClusterApiWatch::SetReplicas(const CapiScalable& s, int32_t replicas) {
  return MergePatch(
      absl::StrCat(Path(s.namespace_name, CapiKindResource(s.kind), s.name), "/scale"),
      absl::StrCat("scale ", CapiKindName(s.kind), " ", s.Key()),
      {{"spec", {{"replicas", replicas}}}});
}

absl::Status ClusterApiWatch::AnnotateMachine(const CapiMachine& m, const std::string& key,
                                              const std::string& value) {
  return MergePatch(Path(m.namespace_name, "machines", m.name),
                    absl::StrCat("annotate Machine ", m.Key()),
                    {{"metadata", {{"annotations", {{key, value}}}}}});
}

void ClusterApiWatch::Warn(const CapiObjectRef& object, const std::string& reason,
                           const std::string& message) {
  (void)events_.RecordEvent(
      {{std::string(CapiKindName(object.kind)), object.namespace_name, object.name, object.uid},
       "Warning",
       reason,
       message});
}

}  // namespace gpua::kube
