// The flags a tool reaches a cluster with, as the controller does (--kubeconfig, --context,
// --kube-api-qps, --kube-api-burst), and the API client they make. Shared by the tools that
// read a cluster (inspect, record).
#ifndef GPUA_AUTOSCALER_CLI_CLUSTER_CONNECTION_FLAGS_H_
#define GPUA_AUTOSCALER_CLI_CLUSTER_CONNECTION_FLAGS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "autoscaler/kube/api_client.h"
#include "base/clock.h"
#include "base/flag_set.h"
#include "base/log.h"

namespace gpua {

struct ClusterConnectionFlags {
  std::string kubeconfig;
  std::string context;
  double qps = 20;
  int64_t burst = 30;

  void AddTo(FlagSet& flags);
  // The client for the kubeconfig (else KUBECONFIG, ~/.kube/config, in-cluster); `server` is
  // set to the API server it talks to.
  // Warnings of the kubeconfig's (insecure-skip-tls-verify) go to `log`.
  absl::StatusOr<std::unique_ptr<kube::ApiClient>> Connect(Clock& clock, std::string* server,
                                                           LogSink& log) const;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_CLUSTER_CONNECTION_FLAGS_H_
