#include "cloudproviders/clusterapi/clusterapi_factory.h"

#include "base/status_macros.h"
#include "cloudproviders/clusterapi/clusterapi_provider.h"

namespace gpua {

ProviderFactory ClusterApiFactory() {
  ProviderFactory f;
  f.name = "clusterapi";
  f.cloud_config_help =
      "the management cluster's kubeconfig; unset: the cluster the controller runs against";
  f.cloud_config_required = false;
  f.check_auto_discovery = [](const std::vector<std::string>& specs) {
    return ParseCapiDiscovery(specs).status();
  };
  f.create = [](const ProviderContext& c) -> absl::StatusOr<std::unique_ptr<CloudProvider>> {
    ClusterApiOptions options;
    GPUA_ASSIGN_OR_RETURN(options.discovery, ParseCapiDiscovery(c.auto_discovery));
    if (std::string group = c.Env("CAPI_GROUP"); !group.empty()) options.names.group = group;
    if (!c.connect_management_cluster) {
      return absl::FailedPreconditionError(
          "--cloud-provider=clusterapi needs a cluster to read its node groups from, and this "
          "command has none");
    }
    GPUA_ASSIGN_OR_RETURN(std::shared_ptr<ManagementCluster> cluster,
                          c.connect_management_cluster(c.cloud_config, options.names.group));
    return std::unique_ptr<CloudProvider>(std::make_unique<ClusterApiProvider>(
        std::move(cluster), std::move(options), *c.clock, *c.log));
  };
  return f;
}

}  // namespace gpua
