// How the registry builds the externalgrpc provider: --cloud-config is its cloud-config file
// (address, certificates, grpc_timeout); the plugin lists the groups itself.
#ifndef GPUA_CLOUDPROVIDERS_EXTERNALGRPC_EXTERNALGRPC_FACTORY_H_
#define GPUA_CLOUDPROVIDERS_EXTERNALGRPC_EXTERNALGRPC_FACTORY_H_

#include "cloudproviders/provider_registry.h"

namespace gpua {

ProviderFactory ExternalGrpcFactory();

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_EXTERNALGRPC_EXTERNALGRPC_FACTORY_H_
