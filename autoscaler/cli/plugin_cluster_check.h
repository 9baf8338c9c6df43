// plugin-check against a live cluster: the plugin's answers and the cluster's Nodes must
// agree both ways, as the controller relies on them to find each node's group.
#ifndef GPUA_AUTOSCALER_CLI_PLUGIN_CLUSTER_CHECK_H_
#define GPUA_AUTOSCALER_CLI_PLUGIN_CLUSTER_CHECK_H_

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

// Every Node of the cluster, a page at a time. A Node that cannot be read is an error
// naming it.
absl::StatusOr<std::vector<NodeObject>> ListNodes(kube::ApiClient& client);

// An instance that two groups list is a problem, whatever the cluster holds.
void CheckInstancesListedOnce(const std::vector<GroupListing>& groups, PluginCheckReport& report);

// Each Node with a provider ID: NodeGroupForNode's answer must list it, and a group that lists
// it must be the answer. Each running instance should have its Node.
void CheckAgainstCluster(const std::vector<NodeObject>& nodes,
                         const std::vector<GroupListing>& groups, CloudProvider& provider,
                         PluginCheckReport& report);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_PLUGIN_CLUSTER_CHECK_H_
