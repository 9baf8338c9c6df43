// How a command reaches a provider's management cluster (Cluster API's): the kubeconfig the
// provider names (--cloud-config), else the in-cluster configuration when
// --clusterapi-cloud-config-authoritative says so, else the workload cluster's kubeconfig.
// The objects are listed before the command goes on, or the wait gives up and says so.
#ifndef GPUA_AUTOSCALER_CLI_MANAGEMENT_CLUSTER_CONNECTOR_H_
#define GPUA_AUTOSCALER_CLI_MANAGEMENT_CLUSTER_CONNECTOR_H_

#include <string>

#include "autoscaler/kube/api_client.h"
#include "base/clock.h"
#include "base/log.h"
#include "cloudproviders/provider_registry.h"

namespace gpua {

struct ManagementClusterSettings {
  std::string workload_kubeconfig;     // --kubeconfig
  bool in_cluster_when_unset = false;  // --clusterapi-cloud-config-authoritative
  kube::ClientOptions client;
  absl::Duration sync_wait = absl::Seconds(30);
};

// What ProviderContext::connect_management_cluster is given. `clock` and `log` must outlive
// the connections it makes.
decltype(ProviderContext::connect_management_cluster) ManagementClusterConnector(
    ManagementClusterSettings settings, Clock& clock, LogSink& log);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_MANAGEMENT_CLUSTER_CONNECTOR_H_
