// The providers this build has: a new provider is its folder and one line here.
#include "cloudproviders/clusterapi/clusterapi_factory.h"
#include "cloudproviders/externalgrpc/externalgrpc_factory.h"
#include "cloudproviders/provider_registry.h"
#include "cloudproviders/simulated/simulated_factory.h"

namespace gpua {

void AddBuiltinProviders(ProviderRegistry& registry) {
  (void)registry.Add(ExternalGrpcFactory());
  (void)registry.Add(SimulatedCloudFactory());
  (void)registry.Add(ClusterApiFactory());
}

}  // namespace gpua
