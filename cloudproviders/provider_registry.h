// Cloud providers by their --cloud-provider name. Each provider's folder defines its factory
// (how to build it from --cloud-config, and which node-group discovery it understands);
// builtin_providers.cc lists them, one line each. The CLI asks the registry and never
// compares provider names itself.
//
// Why a list and not self-registering static objects: the providers live in a static
// library, and a linker drops an archive member nothing refers to, with its registration.
#ifndef GPUA_CLOUDPROVIDERS_PROVIDER_REGISTRY_H_
#define GPUA_CLOUDPROVIDERS_PROVIDER_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/clock.h"
#include "base/log.h"
#include "cloudproviders/cloud_provider.h"

namespace gpua {

class ManagementCluster;  // cloudproviders/clusterapi/management_cluster.h

// What a factory is given: the flags that configure a provider, and the process's clock, log
// and environment.
struct ProviderContext {
  std::string cloud_config;                 // --cloud-config
  std::vector<std::string> auto_discovery;  // --node-group-auto-discovery, each as given
  Clock* clock = nullptr;
  LogSink* log = nullptr;
  // An environment variable's value ("" when unset); null: the process's.
  std::function<std::string(const std::string&)> env;
  // For a provider whose node groups are objects in a cluster (Cluster API): connects to the
  // cluster at the kubeconfig path ("": the cluster the controller runs against) and keeps the
  // objects of `api_group` in step. Given by the command that runs the controller; null where
  // there is no cluster to reach.
  std::function<absl::StatusOr<std::shared_ptr<ManagementCluster>>(const std::string& kubeconfig,
                                                                   const std::string& api_group)>
      connect_management_cluster;
  std::string Env(const std::string& name) const;
};

struct ProviderFactory {
  std::string name;               // its --cloud-provider value
  std::string cloud_config_help;  // what --cloud-config names for it, for --help and errors
  bool cloud_config_required = true;
  // Its node groups are all there once it is built (a file lists them), so --nodes naming
  // another is a mistake at start; elsewhere a group may yet appear, and the loop says so.
  bool groups_fixed_at_start = false;
  // Refuses discovery specs the provider cannot use; the message says why. Null: any spec
  // is refused, as the provider lists its groups itself.
  std::function<absl::Status(const std::vector<std::string>& specs)> check_auto_discovery;
  std::function<absl::StatusOr<std::unique_ptr<CloudProvider>>(const ProviderContext&)> create;
};

class ProviderRegistry {
 public:
  // Every provider this build has (builtin_providers.cc).
  static const ProviderRegistry& Builtin();

  // Fails on an empty name, a name already taken or a factory without `create`.
  absl::Status Add(ProviderFactory factory);
  const ProviderFactory* Find(const std::string& name) const;
  std::vector<std::string> Names() const;  // in the order added
  // "externalgrpc or simulated", for messages.
  std::string NamesText() const;

  // Checks the discovery specs, requires --cloud-config and builds the named provider; an
  // unknown name lists the known ones.
  absl::StatusOr<std::unique_ptr<CloudProvider>> Create(const std::string& name,
                                                        const ProviderContext& context) const;
  absl::Status CheckAutoDiscovery(const std::string& name,
                                  const std::vector<std::string>& specs) const;

 private:
  std::vector<ProviderFactory> factories_;
};

// The providers of this build, one line each (builtin_providers.cc).
void AddBuiltinProviders(ProviderRegistry& registry);

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_PROVIDER_REGISTRY_H_
