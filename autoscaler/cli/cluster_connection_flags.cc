#include "autoscaler/cli/cluster_connection_flags.h"

#include <utility>

#include "autoscaler/kube/rest_config.h"
#include "base/status_macros.h"

namespace gpua {

void ClusterConnectionFlags::AddTo(FlagSet& flags) {
  flags.AddString("kubeconfig", &kubeconfig,
                  "kubeconfig file (default: KUBECONFIG, ~/.kube/config, in-cluster)");
  flags.AddString("context", &context, "kubeconfig context (default: its current-context)");
  flags.AddDouble("kube-api-qps", &qps, "requests per second to the API server");
  flags.AddInt("kube-api-burst", &burst, "requests allowed at once");
}

absl::StatusOr<std::unique_ptr<kube::ApiClient>> ClusterConnectionFlags::Connect(
    Clock& clock, std::string* server, LogSink& log) const {
  GPUA_ASSIGN_OR_RETURN(kube::RestConfig config,
                        kube::ResolveRestConfig(kubeconfig, context, kube::ProcessEnv));
  for (const std::string& warning : config.warnings) log.Warning(warning);
  *server = config.server;
  kube::ClientOptions options;
  options.qps = qps;
  options.burst = static_cast<int>(burst);
  return kube::ApiClient::Create(std::move(config), clock, options);
}

}  // namespace gpua
