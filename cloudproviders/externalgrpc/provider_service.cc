#include "cloudproviders/externalgrpc/provider_service.h"

#include "absl/strings/str_cat.h"
#include "cloudproviders/node_proto.h"
#include "cloudproviders/slice_proto.h"
#include "google/protobuf/any.pb.h"

namespace gpua::externalgrpc {

// Every handler: one call into the provider at a time, its status passed on as is.
#define GPUA_GRPC_RETURN_IF_ERROR(expr)                  \
  do {                                                   \
    const absl::Status& gpua_status_ = (expr);           \
    if (!gpua_status_.ok()) return ToGrpc(gpua_status_); \
  } while (false)

absl::StatusOr<std::shared_ptr<NodeGroup>> ProviderService::Find(const std::string& id) {
  return FindNodeGroup(provider_, id);
}

grpc::Status ProviderService::NodeGroups(grpc::ServerContext*, const pb::NodeGroupsRequest*,
                                         pb::NodeGroupsResponse* response) {
  absl::MutexLock lock(&mu_);
  auto groups = provider_.NodeGroups();
  GPUA_GRPC_RETURN_IF_ERROR(groups.status());
  for (const auto& g : *groups) {
    pb::NodeGroup* out = response->add_nodegroups();
    out->set_id(g->Id());
    out->set_minsize(g->MinSize());
    out->set_maxsize(g->MaxSize());
    out->set_debug(g->Debug());
  }
  return grpc::Status::OK;
}

grpc::Status ProviderService::NodeGroupForNode(grpc::ServerContext*,
                                               const pb::NodeGroupForNodeRequest* request,
                                               pb::NodeGroupForNodeResponse* response) {
  absl::MutexLock lock(&mu_);
  auto group = provider_.NodeGroupForNode(FromWire(request->node()));
  GPUA_GRPC_RETURN_IF_ERROR(group.status());
  if (*group != nullptr) {  // an empty group says: not autoscaled
    pb::NodeGroup* out = response->mutable_nodegroup();
    out->set_id((*group)->Id());
    out->set_minsize((*group)->MinSize());
    out->set_maxsize((*group)->MaxSize());
    out->set_debug((*group)->Debug());
  }
  return grpc::Status::OK;
}

grpc::Status ProviderService::PricingNodePrice(grpc::ServerContext*,
                                               const pb::PricingNodePriceRequest* request,
                                               pb::PricingNodePriceResponse* response) {
  absl::MutexLock lock(&mu_);
  auto window = GetWindow(*request);
  GPUA_GRPC_RETURN_IF_ERROR(window.status());
  auto price = provider_.NodePrice(FromWire(request->node()), window->first, window->second);
  GPUA_GRPC_RETURN_IF_ERROR(price.status());
  response->set_price(*price);
  return grpc::Status::OK;
}

grpc::Status ProviderService::PricingPodPrice(grpc::ServerContext*,
                                              const pb::PricingPodPriceRequest* request,
                                              pb::PricingPodPriceResponse* response) {
  absl::MutexLock lock(&mu_);
  auto window = GetWindow(*request);
  GPUA_GRPC_RETURN_IF_ERROR(window.status());
  corev1::Pod wire = request->pod();
  if (!request->pod_bytes().empty() && !wire.ParseFromString(request->pod_bytes())) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "pod_bytes: not a serialized k8s.io.api.core.v1.Pod");
  }
  auto pod = PodFromProto(wire);
  GPUA_GRPC_RETURN_IF_ERROR(pod.status());
  auto price = provider_.PodPrice(*pod, window->first, window->second);
  GPUA_GRPC_RETURN_IF_ERROR(price.status());
  response->set_price(*price);
  return grpc::Status::OK;
}

grpc::Status ProviderService::GPULabel(grpc::ServerContext*, const pb::GPULabelRequest*,
                                       pb::GPULabelResponse* response) {
  absl::MutexLock lock(&mu_);
  auto label = provider_.GpuLabel();
  GPUA_GRPC_RETURN_IF_ERROR(label.status());
  response->set_label(*label);
  return grpc::Status::OK;
}

grpc::Status ProviderService::GetAvailableGPUTypes(grpc::ServerContext*,
                                                   const pb::GetAvailableGPUTypesRequest*,
                                                   pb::GetAvailableGPUTypesResponse* response) {
  absl::MutexLock lock(&mu_);
  auto types = provider_.AvailableGpuTypes();
  GPUA_GRPC_RETURN_IF_ERROR(types.status());
  for (const std::string& t : *types) (*response->mutable_gputypes())[t] = google::protobuf::Any();
  return grpc::Status::OK;
}

grpc::Status ProviderService::Cleanup(grpc::ServerContext*, const pb::CleanupRequest*,
                                      pb::CleanupResponse*) {
  absl::MutexLock lock(&mu_);
  return ToGrpc(provider_.Cleanup());
}

grpc::Status ProviderService::Refresh(grpc::ServerContext*, const pb::RefreshRequest*,
                                      pb::RefreshResponse*) {
  absl::MutexLock lock(&mu_);
  return ToGrpc(provider_.Refresh());
}

grpc::Status ProviderService::NodeGroupTargetSize(grpc::ServerContext*,
                                                  const pb::NodeGroupTargetSizeRequest* request,
                                                  pb::NodeGroupTargetSizeResponse* response) {
  absl::MutexLock lock(&mu_);
  auto group = Find(request->id());
  GPUA_GRPC_RETURN_IF_ERROR(group.status());
  auto size = (*group)->TargetSize();
  GPUA_GRPC_RETURN_IF_ERROR(size.status());
  response->set_targetsize(*size);
  return grpc::Status::OK;
}

grpc::Status ProviderService::NodeGroupIncreaseSize(grpc::ServerContext*,
                                                    const pb::NodeGroupIncreaseSizeRequest* request,
                                                    pb::NodeGroupIncreaseSizeResponse*) {
  absl::MutexLock lock(&mu_);
  auto group = Find(request->id());
  GPUA_GRPC_RETURN_IF_ERROR(group.status());
  return ToGrpc((*group)->IncreaseSize(request->delta()));
}

grpc::Status ProviderService::NodeGroupDeleteNodes(grpc::ServerContext*,
                                                   const pb::NodeGroupDeleteNodesRequest* request,
                                                   pb::NodeGroupDeleteNodesResponse*) {
  absl::MutexLock lock(&mu_);
  auto group = Find(request->id());
  GPUA_GRPC_RETURN_IF_ERROR(group.status());
  std::vector<NodeRef> nodes;
  for (const pb::ExternalGrpcNode& n : request->nodes()) nodes.push_back(FromWire(n));
  return ToGrpc((*group)->DeleteNodes(nodes));
}

grpc::Status ProviderService::NodeGroupDecreaseTargetSize(
    grpc::ServerContext*, const pb::NodeGroupDecreaseTargetSizeRequest* request,
    pb::NodeGroupDecreaseTargetSizeResponse*) {
  absl::MutexLock lock(&mu_);
  auto group = Find(request->id());
  GPUA_GRPC_RETURN_IF_ERROR(group.status());
  return ToGrpc((*group)->DecreaseTargetSize(request->delta()));
}

grpc::Status ProviderService::NodeGroupNodes(grpc::ServerContext*,
                                             const pb::NodeGroupNodesRequest* request,
                                             pb::NodeGroupNodesResponse* response) {
  absl::MutexLock lock(&mu_);
  auto group = Find(request->id());
  GPUA_GRPC_RETURN_IF_ERROR(group.status());
  auto instances = (*group)->Nodes();
  GPUA_GRPC_RETURN_IF_ERROR(instances.status());
  for (const Instance& i : *instances) *response->add_instances() = ToWire(i);
  return grpc::Status::OK;
}

grpc::Status ProviderService::NodeGroupTemplateNodeInfo(
    grpc::ServerContext*, const pb::NodeGroupTemplateNodeInfoRequest* request,
    pb::NodeGroupTemplateNodeInfoResponse* response) {
  absl::MutexLock lock(&mu_);
  auto group = Find(request->id());
  GPUA_GRPC_RETURN_IF_ERROR(group.status());
  auto t = (*group)->TemplateNode();
  GPUA_GRPC_RETURN_IF_ERROR(t.status());
  *response->mutable_nodeinfo() = NodeTemplateToProto(*t);
  response->set_nodebytes(response->nodeinfo().SerializeAsString());
  for (const auto& slice : t->resource_slices) {
    response->add_resourceslicebytes(ResourceSliceToProto(*slice).SerializeAsString());
  }
  return grpc::Status::OK;
}

grpc::Status ProviderService::NodeGroupGetOptions(
    grpc::ServerContext*, const pb::NodeGroupAutoscalingOptionsRequest* request,
    pb::NodeGroupAutoscalingOptionsResponse* response) {
  absl::MutexLock lock(&mu_);
  auto group = Find(request->id());
  GPUA_GRPC_RETURN_IF_ERROR(group.status());
  AutoscalingOptions defaults;
  if (request->has_defaults()) {
    auto from_request = FromWire(request->defaults(), defaults);
    GPUA_GRPC_RETURN_IF_ERROR(from_request.status());
    defaults = *from_request;
  }
  auto options = (*group)->GetOptions(defaults);
  GPUA_GRPC_RETURN_IF_ERROR(options.status());
  *response->mutable_nodegroupautoscalingoptions() = ToWire(*options);
  return grpc::Status::OK;
}

}  // namespace gpua::externalgrpc
