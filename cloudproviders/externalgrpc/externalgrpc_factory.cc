#include "cloudproviders/externalgrpc/externalgrpc_factory.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "cloudproviders/externalgrpc/cloud_config.h"
#include "cloudproviders/externalgrpc/externalgrpc_provider.h"

namespace gpua {

ProviderFactory ExternalGrpcFactory() {
  ProviderFactory f;
  f.name = "externalgrpc";
  f.cloud_config_help = "the plugin's cloud-config: address, certificates, grpc_timeout";
  f.check_auto_discovery = [](const std::vector<std::string>&) {
    return absl::InvalidArgumentError(
        "--node-group-auto-discovery is not meaningful for --cloud-provider=externalgrpc: the "
        "plugin lists the groups (NodeGroups); limit them with --nodes");
  };
  f.create = [](const ProviderContext& c) -> absl::StatusOr<std::unique_ptr<CloudProvider>> {
    GPUA_ASSIGN_OR_RETURN(ExternalGrpcConfig config, LoadExternalGrpcConfig(c.cloud_config));
    GPUA_ASSIGN_OR_RETURN(std::unique_ptr<ExternalGrpcProvider> provider,
                          ExternalGrpcProvider::Create(config, *c.log));
    return std::unique_ptr<CloudProvider>(std::move(provider));
  };
  return f;
}

}  // namespace gpua
