#include "cloudproviders/simulated/simulated_factory.h"

#include "base/status_macros.h"
#include "cloudproviders/node_group_file.h"
#include "cloudproviders/simulated/simulated_cloud.h"

namespace gpua {

ProviderFactory SimulatedCloudFactory() {
  ProviderFactory f;
  f.name = "simulated";
  f.cloud_config_help = "the node-group file";
  f.groups_fixed_at_start = true;
  f.check_auto_discovery = [](const std::vector<std::string>&) {
    return absl::InvalidArgumentError(
        "--node-group-auto-discovery is not meaningful for --cloud-provider=simulated: the "
        "node-group file lists the groups");
  };
  f.create = [](const ProviderContext& c) -> absl::StatusOr<std::unique_ptr<CloudProvider>> {
    GPUA_ASSIGN_OR_RETURN(std::vector<NodeGroupConfig> groups, LoadNodeGroupFile(c.cloud_config));
    return std::unique_ptr<CloudProvider>(
        std::make_unique<SimulatedCloud>(std::move(groups), *c.clock));
  };
  return f;
}

}  // namespace gpua
