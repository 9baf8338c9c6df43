#include "autoscaler/kube/cluster_api_watch.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kubeobjects/json_text.h"

namespace gpua::kube {
namespace {

// The group's preferred version, from discovery; `fallback` when discovery does not say.
std::string DiscoverVersion(ApiClient& client, const std::string& group, LogSink& log,
                            const std::string& fallback = "v1beta1") {
  absl::StatusOr<HttpResponse> res = client.Request("GET", absl::StrCat("/apis/", group));
  if (res.ok() && res->status == 200) {
    const nlohmann::json doc = ParseJson(res->body, group).value_or(nlohmann::json());
    if (doc.is_object() && doc.contains("preferredVersion") &&
        doc["preferredVersion"].is_object() && doc["preferredVersion"].contains("version") &&
        doc["preferredVersion"]["version"].is_string()) {
      return doc["preferredVersion"]["version"].get<std::string>();
    }
  }
  log.Info(absl::StrCat("Cluster API: no preferred version of ", group, " in discovery; reading ",
                        fallback));
  return fallback;
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
      reflector_options_(reflector),
      group_version_(std::move(group_version)),
      events_(*client_, clock_, "gpu-autoscaler", *reflector.log),
      machines_([](const JsonReader& o) { return DecodeCapiMachine(o); }, {}, *reflector.log) {
  // No Cluster API here (or no infrastructure templates of a kind, or no access to them):
  // none, and looked for again now and then.
  reflector.optional = true;
  reflector_options_.optional = true;
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
  for (const auto& r : reflectors_) Run(*r);
}

void ClusterApiWatch::Run(Reflector& reflector) {
  absl::MutexLock lock(&mu_);
  threads_.emplace_back([this, &reflector] { reflector.Run(stop_); });
}

ClusterApiWatch::~ClusterApiWatch() {
  stop_ = true;
  absl::MutexLock lock(&mu_);
  for (std::thread& t : threads_) t.join();
}

std::string ClusterApiWatch::InfraCollection(const CapiInfraRef& ref) {
  std::string version = ref.version;
  if (version.empty()) {
    {
      absl::MutexLock lock(&mu_);
      if (auto it = preferred_versions_.find(ref.group); it != preferred_versions_.end()) {
        version = it->second;
      }
    }
    if (version.empty()) {
      version = DiscoverVersion(*client_, ref.group, *reflector_options_.log, "v1beta1");
      absl::MutexLock lock(&mu_);
      preferred_versions_[ref.group] = version;
    }
  }
  // Infrastructure machine templates are plural of their kind, lower case
  // (AWSMachineTemplate: awsmachinetemplates), as every provider's CRD names them.
  return absl::StrCat(ref.group, "/", version, "/", absl::AsciiStrToLower(ref.kind), "s");
}

std::shared_ptr<const ResourceList> ClusterApiWatch::InfrastructureCapacity(
    const std::string& ns, const CapiInfraRef& ref) {
  const std::string collection = InfraCollection(ref);
  Informer<CapiInfraTemplate>* informer = nullptr;
  {
    absl::MutexLock lock(&mu_);
    InfraTemplates& kept = infra_[collection];
    if (kept.informer == nullptr) {
      const std::string kind = ref.kind;
      kept.informer = std::make_unique<Informer<CapiInfraTemplate>>(
          [kind](const JsonReader& o) { return DecodeCapiInfraTemplate(o, kind); },
          Informer<CapiInfraTemplate>::Handlers{}, *reflector_options_.log);
      kept.reflector = std::make_unique<Reflector>(*client_, absl::StrCat("/apis/", collection),
                                                   *kept.informer, clock_, reflector_options_);
      Reflector* r = kept.reflector.get();
      threads_.emplace_back([this, r] { r->Run(stop_); });
    }
    informer = kept.informer.get();
  }
  if (!informer->synced()) return nullptr;
  Informer<CapiInfraTemplate>::Ptr t = informer->Get(absl::StrCat(ns, "/", ref.name));
  if (t == nullptr || t->capacity.empty()) return nullptr;
  return std::shared_ptr<const ResourceList>(t, &t->capacity);
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
