#include "autoscaler/cli/management_cluster_connector.h"

#include "absl/strings/str_cat.h"
#include "autoscaler/kube/cluster_api_watch.h"
#include "autoscaler/kube/rest_config.h"
#include "base/status_macros.h"

namespace gpua {

decltype(ProviderContext::connect_management_cluster) ManagementClusterConnector(
    ManagementClusterSettings settings, Clock& clock, LogSink& log) {
  return [settings = std::move(settings), &clock, &log](
             const std::string& kubeconfig,
             const std::string& api_group) -> absl::StatusOr<std::shared_ptr<ManagementCluster>> {
    absl::StatusOr<kube::RestConfig> rest =
        !kubeconfig.empty() || !settings.in_cluster_when_unset
            ? kube::ResolveRestConfig(
                  kubeconfig.empty() ? settings.workload_kubeconfig : kubeconfig, "",
                  kube::ProcessEnv)
            : kube::InClusterConfig(kube::ProcessEnv);
    if (!rest.ok()) {
      return absl::Status(rest.status().code(), absl::StrCat("the Cluster API management cluster: ",
                                                             rest.status().message()));
    }
    GPUA_ASSIGN_OR_RETURN(std::unique_ptr<kube::ApiClient> client,
                          kube::ApiClient::Create(*rest, clock, settings.client));
    kube::ReflectorOptions reflector;
    reflector.log = &log;
    GPUA_ASSIGN_OR_RETURN(
        std::shared_ptr<kube::ClusterApiWatch> watch,
        kube::ClusterApiWatch::Start(std::move(client), clock, api_group,
                                     kube::ProcessEnv("CAPI_VERSION").value_or(""), reflector));
    const absl::Time deadline = clock.Now() + settings.sync_wait;
    while (!watch->Synced() && clock.Now() < deadline) clock.SleepFor(absl::Milliseconds(20));
    log.Info(absl::StrCat("Cluster API: reading ", watch->group_version(), " at ", rest->server,
                          watch->Synced() ? "" : " (not all listed yet)"));
    return std::static_pointer_cast<ManagementCluster>(watch);
  };
}

}  // namespace gpua
