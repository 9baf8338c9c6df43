// plugin-check against a live cluster: the plugin's answers and the cluster's Nodes must
// agree both ways, as the controller relies on them to find each node's group.
#ifndef GPUA_AUTOSCALER_CLI_PLUGIN_CLUSTER_CHECK_H_
#define GPUA_AUTOSCALER_CLI_PLUGIN_CLUSTER_CHECK_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "autoscaler/cli/plugin_check_report.h"
#include "autoscaler/kube/api_client.h"
#include "cloudproviders/cloud_provider.h"
#include "kubeobjects/nodes.h"

namespace gpua {

// A group as NodeGroupNodes listed it.
struct GroupListing {
  std::string id;
  std::vector<Instance> instances;
  absl::Duration provision_time;  // the group's maxNodeProvisionTime
};

// Every Node of the cluster, listed as the controller's informer lists them; a Node that
// cannot be read is a problem of the report, and the others are checked.
absl::StatusOr<std::vector<std::shared_ptr<const NodeObject>>> ListNodes(kube::ApiClient& client,
                                                                         Clock& clock,
                                                                         PluginCheckReport& report);

// An instance that two groups list is a problem, whatever the cluster holds.
void CheckInstancesListedOnce(const std::vector<GroupListing>& groups, PluginCheckReport& report);

// Each Node with a provider ID: NodeGroupForNode's answer must list it, and a group that lists
// it must be the answer. Each running instance should have its Node.
void CheckAgainstCluster(const std::vector<std::shared_ptr<const NodeObject>>& nodes,
                         const std::vector<GroupListing>& groups, CloudProvider& provider,
                         PluginCheckReport& report);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_PLUGIN_CLUSTER_CHECK_H_
