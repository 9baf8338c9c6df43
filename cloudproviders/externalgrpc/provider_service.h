// Serves any CloudProvider over the externalgrpc protocol: the heart of the example plugin,
// and the peer of the client's integration tests. Answers in both generations of the
// protocol (nodeBytes and nodeInfo, Duration and meta.v1 durations) so cluster-autoscaler of
// any version, and this project's client, can use it; reads requests of either generation.
#ifndef GPUA_CLOUDPROVIDERS_EXTERNALGRPC_PROVIDER_SERVICE_H_
#define GPUA_CLOUDPROVIDERS_EXTERNALGRPC_PROVIDER_SERVICE_H_

#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "cloudproviders/cloud_provider.h"
#include "cloudproviders/externalgrpc/wire.h"

namespace gpua::externalgrpc {

class ProviderService : public pb::CloudProvider::Service {
 public:
  // Calls into `provider` one at a time; it must outlive the service.
  explicit ProviderService(CloudProvider& provider) : provider_(provider) {}

  grpc::Status NodeGroups(grpc::ServerContext*, const pb::NodeGroupsRequest*,
                          pb::NodeGroupsResponse*) override;
  grpc::Status NodeGroupForNode(grpc::ServerContext*, const pb::NodeGroupForNodeRequest*,
                                pb::NodeGroupForNodeResponse*) override;
  grpc::Status PricingNodePrice(grpc::ServerContext*, const pb::PricingNodePriceRequest*,
                                pb::PricingNodePriceResponse*) override;
  grpc::Status PricingPodPrice(grpc::ServerContext*, const pb::PricingPodPriceRequest*,
                               pb::PricingPodPriceResponse*) override;
  grpc::Status GPULabel(grpc::ServerContext*, const pb::GPULabelRequest*,
                        pb::GPULabelResponse*) override;
  grpc::Status GetAvailableGPUTypes(grpc::ServerContext*, const pb::GetAvailableGPUTypesRequest*,
                                    pb::GetAvailableGPUTypesResponse*) override;
  grpc::Status Cleanup(grpc::ServerContext*, const pb::CleanupRequest*,
                       pb::CleanupResponse*) override;
  grpc::Status Refresh(grpc::ServerContext*, const pb::RefreshRequest*,
                       pb::RefreshResponse*) override;
  grpc::Status NodeGroupTargetSize(grpc::ServerContext*, const pb::NodeGroupTargetSizeRequest*,
                                   pb::NodeGroupTargetSizeResponse*) override;
  grpc::Status NodeGroupIncreaseSize(grpc::ServerContext*, const pb::NodeGroupIncreaseSizeRequest*,
                                     pb::NodeGroupIncreaseSizeResponse*) override;
  grpc::Status NodeGroupDeleteNodes(grpc::ServerContext*, const pb::NodeGroupDeleteNodesRequest*,
                                    pb::NodeGroupDeleteNodesResponse*) override;
  grpc::Status NodeGroupDecreaseTargetSize(grpc::ServerContext*,
                                           const pb::NodeGroupDecreaseTargetSizeRequest*,
                                           pb::NodeGroupDecreaseTargetSizeResponse*) override;
  grpc::Status NodeGroupNodes(grpc::ServerContext*, const pb::NodeGroupNodesRequest*,
                              pb::NodeGroupNodesResponse*) override;
  grpc::Status NodeGroupTemplateNodeInfo(grpc::ServerContext*,
                                         const pb::NodeGroupTemplateNodeInfoRequest*,
                                         pb::NodeGroupTemplateNodeInfoResponse*) override;
  grpc::Status NodeGroupGetOptions(grpc::ServerContext*,
                                   const pb::NodeGroupAutoscalingOptionsRequest*,
                                   pb::NodeGroupAutoscalingOptionsResponse*) override;

 private:
  // The group with this id, or NotFound naming it.
  absl::StatusOr<std::shared_ptr<NodeGroup>> Find(const std::string& id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  CloudProvider& provider_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpua::externalgrpc

#endif  // GPUA_CLOUDPROVIDERS_EXTERNALGRPC_PROVIDER_SERVICE_H_
