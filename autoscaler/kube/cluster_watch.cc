#include "autoscaler/kube/cluster_watch.h"

#include "absl/strings/str_cat.h"

namespace gpua::kube {
namespace {

struct WorkloadKind {
  const char* kind;
  const char* path;
};
// The served versions of CapacityBuffer, newest first: one is enough, and they read alike.
constexpr char kCapacityBuffersPath[] = "/apis/autoscaling.x-k8s.io/v1/capacitybuffers";
const std::vector<std::string> kCapacityBufferFallbacks = {
    "/apis/autoscaling.x-k8s.io/v1beta1/capacitybuffers",
    "/apis/autoscaling.x-k8s.io/v1alpha1/capacitybuffers"};
constexpr char kPodTemplatesPath[] = "/api/v1/podtemplates";

// resource.k8s.io is GA (v1) from Kubernetes 1.34; 1.32 and 1.33 serve v1beta1 (and 1.33
// v1beta2). The decoders read every version.
std::vector<std::string> DraPaths(absl::string_view resource) {
  return {absl::StrCat("/apis/resource.k8s.io/v1/", resource),
          absl::StrCat("/apis/resource.k8s.io/v1beta2/", resource),
          absl::StrCat("/apis/resource.k8s.io/v1beta1/", resource)};
}

constexpr WorkloadKind kWorkloadKinds[] = {
    {"ReplicaSet", "/apis/apps/v1/replicasets"},
    {"StatefulSet", "/apis/apps/v1/statefulsets"},
    {"Job", "/apis/batch/v1/jobs"},
    {"ReplicationController", "/api/v1/replicationcontrollers"},
};

}  // namespace

ClusterWatch::ClusterWatch(ApiClient& client, Clock& clock, ClusterWatchOptions options)
    : client_(client),
      clock_(clock),
      options_(std::move(options)),
      nodes_(NodeDecoder(), options_.node_handlers, *options_.reflector.log),
      pods_(PodDecoder(), options_.pod_handlers, *options_.reflector.log),
      pdbs_(PdbDecoder(), {}, *options_.reflector.log),
      daemonsets_(DaemonSetDecoder(), {}, *options_.reflector.log),
      capacity_buffers_([](const JsonReader& o) { return DecodeCapacityBuffer(o); }, {},
                        *options_.reflector.log),
      pod_templates_([](const JsonReader& o) { return DecodePodTemplate(o); }, {},
                     *options_.reflector.log),
      device_classes_([](const JsonReader& o) { return DecodeDeviceClass(o); }, {},
                      *options_.reflector.log),
      resource_slices_([](const JsonReader& o) { return DecodeResourceSlice(o); }, {},
                       *options_.reflector.log),
      resource_claims_([](const JsonReader& o) { return DecodeResourceClaim(o); }, {},
                       *options_.reflector.log),
      resource_claim_templates_([](const JsonReader& o) { return DecodeResourceClaimTemplate(o); },
                                {}, *options_.reflector.log) {
  AddPodIndexes(pods_);
  Watch(nodes_, kNodesPath);
  Watch(pods_, kPodsPath);
  if (options_.budgets) Watch(pdbs_, kPdbsPath);
  if (options_.daemonsets) Watch(daemonsets_, kDaemonSetsPath);
  if (options_.capacity_buffers) {
    Watched& buffers = Watch(capacity_buffers_, kCapacityBuffersPath);
    buffers.optional = true;
    buffers.fallback_paths = kCapacityBufferFallbacks;
    Watch(pod_templates_, kPodTemplatesPath).optional = true;
  }
  if (options_.dra) {
    WatchDra(device_classes_, "deviceclasses");
    WatchDra(resource_slices_, "resourceslices");
    WatchDra(resource_claims_, "resourceclaims");
    WatchDra(resource_claim_templates_, "resourceclaimtemplates");
  }
  if (options_.workloads) {
    for (const WorkloadKind& k : kWorkloadKinds) {
      const std::string kind = k.kind;
      workloads_.push_back(std::make_unique<Informer<WorkloadObject>>(
          [kind](const JsonReader& o) { return DecodeWorkload(o, kind); },
          Informer<WorkloadObject>::Handlers{}, *options_.reflector.log));
      Watch(*workloads_.back(), k.path);
    }
  }
  // One watch per ConfigMap, each narrowed to its name: a namespace's other ConfigMaps are
  // none of the controller's business.
  for (const std::string& name : options_.config_map_names) {
    config_maps_.push_back(std::make_unique<Informer<ConfigMapObject>>(
        [](const JsonReader& o) { return DecodeConfigMap(o); },
        Informer<ConfigMapObject>::Handlers{}, *options_.reflector.log));
    Watch(*config_maps_.back(),
          absl::StrCat("/api/v1/namespaces/", options_.config_map_namespace, "/configmaps"),
          absl::StrCat("metadata.name=", name));
  }
}

template <typename T>
ClusterWatch::Watched& ClusterWatch::Watch(Informer<T>& informer, const std::string& path,
                                           std::string field_selector) {
  Watched& watched = watched_.emplace_back();
  watched.store = &informer;
  watched.synced = [&informer] { return informer.synced(); };
  watched.path = path;
  watched.field_selector = std::move(field_selector);
  return watched;
}

template <typename T>
void ClusterWatch::WatchDra(Informer<T>& informer, absl::string_view resource) {
  std::vector<std::string> paths = DraPaths(resource);
  Watched& w = Watch(informer, paths.front());
  w.optional = true;
  w.fallback_paths.assign(paths.begin() + 1, paths.end());
}

ClusterWatch::~ClusterWatch() {
  stop_ = true;
  for (std::thread& t : threads_) t.join();
}

void ClusterWatch::Start() {
  for (const Watched& w : watched_) {
    ReflectorOptions reflect = options_.reflector;
    if (!w.field_selector.empty()) reflect.field_selector = w.field_selector;
    reflect.optional = w.optional;
    reflect.fallback_paths = w.fallback_paths;
    reflectors_.push_back(std::make_unique<Reflector>(client_, w.path, *w.store, clock_, reflect));
    Reflector* r = reflectors_.back().get();
    threads_.emplace_back([this, r] { r->Run(stop_); });
  }
}

bool ClusterWatch::synced() const {
  for (const Watched& w : watched_) {
    if (!w.synced()) return false;
  }
  return true;
}

bool ClusterWatch::WaitForSync(absl::Duration timeout) const {
  const absl::Time deadline = clock_.Now() + timeout;
  while (!synced()) {
    if (clock_.Now() >= deadline) return false;
    clock_.SleepFor(absl::Milliseconds(20));
  }
  return true;
}

std::shared_ptr<const ClusterView> ClusterWatch::View() const {
  auto out = std::make_shared<ClusterView>();
  ClusterView& view = *out;
  view.taken = clock_.Now();
  view.nodes = nodes_.List();
  // Bound and unschedulable pods come from one list, so they agree with each other.
  for (PodPtr& p : pods_.List()) view.AddPod(std::move(p));
  for (std::string& node : pods_.Unreadable()) {
    view.nodes_with_unreadable_pods.insert(std::move(node));
  }
  view.pdbs = pdbs_.List();
  view.daemonsets = daemonsets_.List();
  for (const auto& informer : workloads_) {
    for (WorkloadPtr& w : informer->List()) view.AddWorkload(std::move(w));
  }
  view.capacity_buffers = capacity_buffers_.List();
  view.pod_templates = pod_templates_.List();
  view.device_classes = device_classes_.List();
  view.resource_slices = resource_slices_.List();
  view.resource_claims = resource_claims_.List();
  view.resource_claim_templates = resource_claim_templates_.List();
  for (const auto& informer : config_maps_) {
    for (ConfigMapPtr& c : informer->List()) view.config_maps.push_back(std::move(c));
  }
  return out;
}

}  // namespace gpua::kube
