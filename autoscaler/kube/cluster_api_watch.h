// The Cluster API provider's management cluster over the API: informers for the
// MachineDeployments, MachineSets, MachinePools and Machines of one API group (each an
// optional collection: a cluster without Cluster API lists them empty and looks again now and
// then), the scale subresource, merge patches of a Machine's annotations, and Events through
// an ApiKubeWriter of its own. The version is CAPI_VERSION's, else the group's preferred one
// from discovery (/apis/<group>), else v1beta1.
#ifndef GPUA_AUTOSCALER_KUBE_CLUSTER_API_WATCH_H_
#define GPUA_AUTOSCALER_KUBE_CLUSTER_API_WATCH_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "autoscaler/kube/api_client.h"
#include "autoscaler/kube/api_kube_writer.h"
#include "autoscaler/kube/informer.h"
#include "autoscaler/kube/reflector.h"
#include "cloudproviders/clusterapi/management_cluster.h"

namespace gpua::kube {

class ClusterApiWatch final : public ManagementCluster {
 public:
  // `version` empty: found by discovery. Starts its reflectors at once.
  static absl::StatusOr<std::shared_ptr<ClusterApiWatch>> Start(std::unique_ptr<ApiClient> client,
                                                                Clock& clock,
                                                                const std::string& api_group,
                                                                std::string version,
                                                                ReflectorOptions reflector);
  ~ClusterApiWatch() override;  // stops the reflectors and waits for them

  bool Synced() const override;
  CapiObjects Objects() const override;
  absl::Status SetReplicas(const CapiScalable& scalable, int32_t replicas) override;
  absl::Status AnnotateMachine(const CapiMachine& machine, const std::string& key,
                               const std::string& value) override;
  void Warn(const CapiObjectRef& object, const std::string& reason,
            const std::string& message) override;
  std::shared_ptr<const ResourceList> InfrastructureCapacity(const std::string& ns,
                                                             const CapiInfraRef& ref) override;

  const std::string& group_version() const { return group_version_; }

  ClusterApiWatch(std::unique_ptr<ApiClient> client, Clock& clock, std::string group_version,
                  ReflectorOptions reflector);

 private:
  std::string Path(absl::string_view ns, absl::string_view resource, absl::string_view name) const;
  absl::Status MergePatch(const std::string& path, const std::string& what,
                          const nlohmann::json& patch);

  // Infrastructure machine templates of one kind, kept from the first time one is asked for.
  struct InfraTemplates {
    std::unique_ptr<Informer<CapiInfraTemplate>> informer;
    std::unique_ptr<Reflector> reflector;
  };
  // "group/version/resource" of `ref`, the version found by discovery when it names none.
  std::string InfraCollection(const CapiInfraRef& ref);
  void Run(Reflector& reflector);

  std::unique_ptr<ApiClient> client_;
  Clock& clock_;
  ReflectorOptions reflector_options_;
  const std::string group_version_;  // "cluster.x-k8s.io/v1beta1"
  ApiKubeWriter events_;
  std::vector<std::unique_ptr<Informer<CapiScalable>>> scalables_;  // by kCapiScalableKinds
  Informer<CapiMachine> machines_;
  std::vector<std::unique_ptr<Reflector>> reflectors_;
  std::atomic<bool> stop_{false};
  absl::Mutex mu_;  // the infrastructure templates and their threads, started on demand
  std::map<std::string, InfraTemplates> infra_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> preferred_versions_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> threads_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_KUBE_CLUSTER_API_WATCH_H_
