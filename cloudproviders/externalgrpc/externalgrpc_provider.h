// The externalgrpc client: a CloudProvider backed by a plugin process speaking
// cluster-autoscaler's externalgrpc protocol, so plugins written for cluster-autoscaler work
// unchanged. Behaves as cluster-autoscaler's client does:
// - node groups and node-to-group answers are cached until the next Refresh; a group's
//   template is cached in its group object (so also until Refresh); the GPU label and GPU
//   types are cached for good;
// - every call has the config's deadline; a failed call caches nothing, so the next loop
//   asks again; gRPC reconnects to a plugin that restarted;
// - Unimplemented is "not implemented": GetOptions falls back to the defaults, and pricing
//   answers NotImplemented after one log line saying the price expander cannot be used.
#ifndef GPUA_CLOUDPROVIDERS_EXTERNALGRPC_EXTERNALGRPC_PROVIDER_H_
#define GPUA_CLOUDPROVIDERS_EXTERNALGRPC_EXTERNALGRPC_PROVIDER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "base/log.h"
#include "cloudproviders/cloud_provider.h"
#include "cloudproviders/externalgrpc/cloud_config.h"

namespace gpua {

class ExternalGrpcProvider : public CloudProvider {
 public:
  struct Connection;  // the channel, the stub and the call settings

  // Sets up the channel (it connects lazily: a plugin that is not up yet is not an error
  // here). `log` receives the provider's notices (groups left out, pricing unimplemented).
  static absl::StatusOr<std::unique_ptr<ExternalGrpcProvider>> Create(
      const ExternalGrpcConfig& config, LogSink& log = StderrLog());
  // Use Create.
  explicit ExternalGrpcProvider(std::shared_ptr<Connection> connection);
  ~ExternalGrpcProvider() override;

  std::string Name() const override { return "externalgrpc"; }
  absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> NodeGroups() override;
  absl::StatusOr<std::shared_ptr<NodeGroup>> NodeGroupForNode(const NodeRef& node) override;
  absl::StatusOr<double> NodePrice(const NodeRef& node, absl::Time start, absl::Time end) override;
  absl::StatusOr<double> PodPrice(const PodSpec& pod, absl::Time start, absl::Time end) override;
  absl::StatusOr<std::string> GpuLabel() override;
  absl::StatusOr<std::vector<std::string>> AvailableGpuTypes() override;
  absl::Status Refresh() override;
  absl::Status Cleanup() override;

  // What was wrong with the groups the last NodeGroups answer listed and that were left out
  // (empty id, min above max, listed twice).
  std::vector<std::string> IgnoredGroups();

 private:
  absl::StatusOr<double> Price(const absl::Status& status, double price);

  std::shared_ptr<Connection> connection_;
  absl::Mutex mu_;
  std::optional<std::vector<std::shared_ptr<NodeGroup>>> groups_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> ignored_groups_ ABSL_GUARDED_BY(mu_);
  // provider ID (or name) -> group; nullptr: not autoscaled.
  absl::flat_hash_map<std::string, std::shared_ptr<NodeGroup>> group_of_node_ ABSL_GUARDED_BY(mu_);
  std::optional<std::string> gpu_label_ ABSL_GUARDED_BY(mu_);
  std::optional<std::vector<std::string>> gpu_types_ ABSL_GUARDED_BY(mu_);
  bool told_pricing_unimplemented_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_EXTERNALGRPC_EXTERNALGRPC_PROVIDER_H_
