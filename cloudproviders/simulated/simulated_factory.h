// How the registry builds the simulated cloud: --cloud-config is the node-group file, which
// lists the groups; machines come and go on the process's clock.
#ifndef GPUA_CLOUDPROVIDERS_SIMULATED_SIMULATED_FACTORY_H_
#define GPUA_CLOUDPROVIDERS_SIMULATED_SIMULATED_FACTORY_H_

#include "cloudproviders/provider_registry.h"

namespace gpua {

ProviderFactory SimulatedCloudFactory();

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_SIMULATED_SIMULATED_FACTORY_H_
