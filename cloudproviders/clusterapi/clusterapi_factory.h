// --cloud-provider=clusterapi: Cluster API's MachineDeployments, MachineSets and
// MachinePools as node groups. --cloud-config names the management cluster's kubeconfig;
// without it the management cluster is the one the controller runs against, as
// cluster-autoscaler's clusterapi provider does. CAPI_GROUP renames the API group (and with it
// the annotations), CAPI_VERSION pins its version.
#ifndef GPUA_CLOUDPROVIDERS_CLUSTERAPI_CLUSTERAPI_FACTORY_H_
#define GPUA_CLOUDPROVIDERS_CLUSTERAPI_CLUSTERAPI_FACTORY_H_

#include "cloudproviders/provider_registry.h"

namespace gpua {

ProviderFactory ClusterApiFactory();

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_CLUSTERAPI_CLUSTERAPI_FACTORY_H_
