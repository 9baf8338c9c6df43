// Every informer the controller reads through, each kept in step by its own reflector
// thread: the ClusterSource of a real cluster. A view is taken kind by kind, each kind whole
// under its informer's lock, so within a kind nothing is half-applied (a pod is never both
// bound and unschedulable in one view); across kinds a view is as consistent as client-go's
// listers, which is what kube-scheduler and cluster-autoscaler work from too.
#ifndef GPUA_AUTOSCALER_KUBE_CLUSTER_WATCH_H_
#define GPUA_AUTOSCALER_KUBE_CLUSTER_WATCH_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "autoscaler/controller/model/cluster_source.h"
#include "autoscaler/kube/cluster_informers.h"
#include "base/clock.h"
#include "base/log.h"

namespace gpua::kube {

// What to watch. Pods and nodes always; the rest for the controller (inspect needs none of
// it, and a user allowed to list pods and nodes only can still run it).
struct ClusterWatchOptions {
  bool budgets = true;
  bool daemonsets = true;
  bool workloads = true;
  // The ConfigMaps the controller reads, in this namespace (empty: none).
  std::string config_map_namespace;
  std::vector<std::string> config_map_names;
  // CapacityBuffers and PodTemplates (--capacity-buffer-pod-injection-enabled). Either may
  // be absent (the CRD not installed, RBAC without them): then read as none, and looked for
  // again now and then.
  bool capacity_buffers = false;
  // DeviceClasses, ResourceSlices, ResourceClaims and ResourceClaimTemplates
  // (resource.k8s.io v1, else v1beta2 or v1beta1, whichever the server serves): read as none
  // where DRA is not served or RBAC does not allow them.
  bool dra = false;
  ReflectorOptions reflector;  // its log is where every informer and reflector reports
  Informer<NodeObject>::Handlers node_handlers;
  Informer<PodObject>::Handlers pod_handlers;
};

class ClusterWatch : public ClusterSource {
 public:
  ClusterWatch(ApiClient& client, Clock& clock, ClusterWatchOptions options);
  ~ClusterWatch() override;  // stops the reflectors and waits for them

  void Start();
  // True once every watched kind has been listed; false if `timeout` passes first.
  bool WaitForSync(absl::Duration timeout) const;
  bool synced() const;
  bool Synced() const override { return synced(); }
  std::shared_ptr<const ClusterView> View() const override;

  const Informer<NodeObject>& nodes() const { return nodes_; }
  const Informer<PodObject>& pods() const { return pods_; }

 private:
  struct Watched {
    ReflectorStore* store;
    std::function<bool()> synced;
    std::string path;
    std::string field_selector;
    bool optional = false;
    std::vector<std::string> fallback_paths;  // other versions, when optional
  };
  template <typename T>
  Watched& Watch(Informer<T>& informer, const std::string& path, std::string field_selector = "");
  // An optional resource.k8s.io kind, at the newest version the server serves.
  template <typename T>
  void WatchDra(Informer<T>& informer, absl::string_view resource);

  ApiClient& client_;
  Clock& clock_;
  const ClusterWatchOptions options_;
  Informer<NodeObject> nodes_;
  Informer<PodObject> pods_;
  Informer<PdbObject> pdbs_;
  Informer<DaemonSetObject> daemonsets_;
  Informer<CapacityBufferObject> capacity_buffers_;
  Informer<PodTemplateObject> pod_templates_;
  Informer<dra::DeviceClass> device_classes_;
  Informer<dra::ResourceSlice> resource_slices_;
  Informer<dra::ResourceClaim> resource_claims_;
  Informer<dra::ResourceClaimTemplate> resource_claim_templates_;
  std::vector<std::unique_ptr<Informer<ConfigMapObject>>> config_maps_;
  // One informer per workload kind: each has its own list and watch.
  std::vector<std::unique_ptr<Informer<WorkloadObject>>> workloads_;
  std::vector<Watched> watched_;
  std::vector<std::unique_ptr<Reflector>> reflectors_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
};

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_KUBE_CLUSTER_WATCH_H_
