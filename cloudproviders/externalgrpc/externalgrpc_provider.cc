#include "cloudproviders/externalgrpc/externalgrpc_provider.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "cloudproviders/externalgrpc/wire.h"
#include "cloudproviders/node_proto.h"
#include "cloudproviders/slice_proto.h"
#include "estimator/dra/template_slices.h"

namespace gpua {

using externalgrpc::FromGrpc;
using externalgrpc::FromWire;
using externalgrpc::ToWire;
namespace pb = externalgrpc::pb;

struct ExternalGrpcProvider::Connection {
  std::unique_ptr<pb::CloudProvider::Stub> stub;
  absl::Duration timeout;
  LogSink* log;

  // One RPC with the deadline; errors keep their code and say which call failed, for what.
  template <typename Request, typename Response>
  absl::Status Call(grpc::Status (pb::CloudProvider::Stub::*method)(grpc::ClientContext*,
                                                                    const Request&, Response*),
                    absl::string_view rpc, absl::string_view subject, const Request& request,
                    Response* response) {
    grpc::ClientContext context;
    // A relative deadline (a timespan): gRPC measures it from the call's start.
    context.set_deadline(gpr_time_from_micros(absl::ToInt64Microseconds(timeout), GPR_TIMESPAN));
    absl::Status status = FromGrpc((stub.get()->*method)(&context, request, response));
    if (status.ok()) return status;
    return absl::Status(
        status.code(),
        absl::StrCat("externalgrpc ", rpc, subject.empty() ? "" : absl::StrCat(" for ", subject),
                     ": ", status.message()));
  }
};

namespace {

using Stub = pb::CloudProvider::Stub;

class ExternalGrpcNodeGroup : public NodeGroup {
 public:
  ExternalGrpcNodeGroup(std::shared_ptr<ExternalGrpcProvider::Connection> connection,
                        const pb::NodeGroup& group)
      : connection_(std::move(connection)),
        id_(group.id()),
        min_(group.minsize()),
        max_(group.maxsize()),
        debug_(group.debug()),
        subject_(absl::StrCat("node group ", id_)) {}

  const std::string& Id() const override { return id_; }
  int MinSize() const override { return min_; }
  int MaxSize() const override { return max_; }
  std::string Debug() const override { return debug_.empty() ? id_ : debug_; }

  absl::StatusOr<int> TargetSize() override {
    pb::NodeGroupTargetSizeRequest request;
    request.set_id(id_);
    pb::NodeGroupTargetSizeResponse response;
    GPUA_RETURN_IF_ERROR(connection_->Call(&Stub::NodeGroupTargetSize, "NodeGroupTargetSize",
                                           subject_, request, &response));
    if (response.targetsize() < 0) {
      return absl::InvalidArgumentError(absl::StrCat("externalgrpc NodeGroupTargetSize for ",
                                                     subject_, ": targetSize: negative (",
                                                     response.targetsize(), ")"));
    }
    return response.targetsize();
  }

  absl::Status IncreaseSize(int delta) override {
    if (delta <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(subject_, ": size increase must be positive, got ", delta));
    }
    pb::NodeGroupIncreaseSizeRequest request;
    request.set_id(id_);
    request.set_delta(delta);
    pb::NodeGroupIncreaseSizeResponse response;
    return connection_->Call(&Stub::NodeGroupIncreaseSize, "NodeGroupIncreaseSize", subject_,
                             request, &response);
  }

  absl::Status DeleteNodes(const std::vector<NodeRef>& nodes) override {
    pb::NodeGroupDeleteNodesRequest request;
    request.set_id(id_);
    for (const NodeRef& n : nodes) *request.add_nodes() = ToWire(n);
    pb::NodeGroupDeleteNodesResponse response;
    return connection_->Call(&Stub::NodeGroupDeleteNodes, "NodeGroupDeleteNodes", subject_, request,
                             &response);
  }

  absl::Status DecreaseTargetSize(int delta) override {
    if (delta >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(subject_, ": size decrease must be negative, got ", delta));
    }
    pb::NodeGroupDecreaseTargetSizeRequest request;
    request.set_id(id_);
    request.set_delta(delta);
    pb::NodeGroupDecreaseTargetSizeResponse response;
    return connection_->Call(&Stub::NodeGroupDecreaseTargetSize, "NodeGroupDecreaseTargetSize",
                             subject_, request, &response);
  }

  absl::StatusOr<std::vector<Instance>> Nodes() override {
    pb::NodeGroupNodesRequest request;
    request.set_id(id_);
    pb::NodeGroupNodesResponse response;
    GPUA_RETURN_IF_ERROR(
        connection_->Call(&Stub::NodeGroupNodes, "NodeGroupNodes", subject_, request, &response));
    std::vector<Instance> instances;
    for (const pb::Instance& wire : response.instances()) {
      absl::StatusOr<Instance> instance = FromWire(wire);
      if (!instance.ok()) {  // acting on a partial list could delete the wrong thing
        return absl::InvalidArgumentError(absl::StrCat("externalgrpc NodeGroupNodes for ", subject_,
                                                       ": ", instance.status().message()));
      }
      instances.push_back(*std::move(instance));
    }
    return instances;
  }

  absl::StatusOr<NodeTemplate> TemplateNode() override {
    {
      absl::MutexLock lock(&mu_);
      if (template_.has_value()) return *template_;
    }
    pb::NodeGroupTemplateNodeInfoRequest request;
    request.set_id(id_);
    pb::NodeGroupTemplateNodeInfoResponse response;
    GPUA_RETURN_IF_ERROR(connection_->Call(&Stub::NodeGroupTemplateNodeInfo,
                                           "NodeGroupTemplateNodeInfo", subject_, request,
                                           &response));
    absl::StatusOr<NodeTemplate> t =
        !response.nodebytes().empty()
            ? NodeTemplateFromBytes(response.nodebytes(), absl::StrCat(subject_, ": nodeBytes"))
        : response.has_nodeinfo()
            ? NodeTemplateFromProto(response.nodeinfo(), absl::StrCat(subject_, ": nodeInfo"))
            : absl::InvalidArgumentError(
                  absl::StrCat(subject_, ": the plugin answered neither nodeBytes nor nodeInfo"));
    if (!t.ok()) return t.status();
    for (int i = 0; i < response.resourceslicebytes_size(); ++i) {
      absl::StatusOr<dra::ResourceSlice> slice = ResourceSliceFromBytes(
          response.resourceslicebytes(i), absl::StrCat(subject_, ": resourceSliceBytes[", i, "]"));
      if (!slice.ok()) return slice.status();
      if (slice->node_name.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(subject_, ": resourceSliceBytes[", i,
                         "]: a template's slice must be the node's own (spec.nodeName)"));
      }
      t->resource_slices.push_back(std::make_shared<const dra::ResourceSlice>(*std::move(slice)));
    }
    // A plugin that sends no slices may still say, with the annotation, whose devices the
    // template's GPUs are.
    GPUA_RETURN_IF_ERROR(dra::DeriveTemplateSlices(*t, absl::StrCat(subject_, ": template")));
    absl::MutexLock lock(&mu_);
    template_ = *t;
    return t;
  }

  absl::StatusOr<AutoscalingOptions> GetOptions(const AutoscalingOptions& defaults) override {
    pb::NodeGroupAutoscalingOptionsRequest request;
    request.set_id(id_);
    *request.mutable_defaults() = ToWire(defaults);
    pb::NodeGroupAutoscalingOptionsResponse response;
    absl::Status status = connection_->Call(&Stub::NodeGroupGetOptions, "NodeGroupGetOptions",
                                            subject_, request, &response);
    // Unimplemented goes to the caller, which uses its defaults and can say so (plugin-check).
    GPUA_RETURN_IF_ERROR(status);
    if (!response.has_nodegroupautoscalingoptions()) return defaults;
    absl::StatusOr<AutoscalingOptions> options =
        FromWire(response.nodegroupautoscalingoptions(), defaults);
    if (!options.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("externalgrpc NodeGroupGetOptions for ",
                                                     subject_, ": ", options.status().message()));
    }
    return options;
  }

 private:
  std::shared_ptr<ExternalGrpcProvider::Connection> connection_;
  const std::string id_;
  const int min_;
  const int max_;
  const std::string debug_;
  const std::string subject_;
  absl::Mutex mu_;
  std::optional<NodeTemplate> template_ ABSL_GUARDED_BY(mu_);
};

std::shared_ptr<grpc::ChannelCredentials> Credentials(const ExternalGrpcConfig& config) {
  if (!config.UsesTls()) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = config.ca_pem;
  ssl.pem_private_key = config.key_pem;
  ssl.pem_cert_chain = config.cert_pem;
  return grpc::SslCredentials(ssl);
}

// Why a group from the plugin cannot be used, or empty.
std::string GroupProblem(const pb::NodeGroup& g) {
  if (g.id().empty()) return "a node group with an empty id";
  if (g.minsize() < 0) return absl::StrCat("node group ", g.id(), ": minSize is negative");
  if (g.maxsize() < g.minsize()) {
    return absl::StrCat("node group ", g.id(), ": maxSize ", g.maxsize(), " is below minSize ",
                        g.minsize());
  }
  return "";
}

}  // namespace

absl::StatusOr<std::unique_ptr<ExternalGrpcProvider>> ExternalGrpcProvider::Create(
    const ExternalGrpcConfig& config, LogSink& log) {
  grpc::ChannelArguments args;
  // A plugin that restarts is back within seconds; do not wait minutes to notice.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 5'000);
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateCustomChannel(config.address, Credentials(config), args);
  if (channel == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("externalgrpc: cannot use address \"", config.address, "\""));
  }
  auto connection = std::make_shared<Connection>();
  connection->stub = pb::CloudProvider::NewStub(channel);
  connection->timeout = config.timeout;
  connection->log = &log;
  return std::make_unique<ExternalGrpcProvider>(std::move(connection));
}

ExternalGrpcProvider::ExternalGrpcProvider(std::shared_ptr<Connection> connection)
    : connection_(std::move(connection)) {}

ExternalGrpcProvider::~ExternalGrpcProvider() = default;

absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> ExternalGrpcProvider::NodeGroups() {
  {
    absl::MutexLock lock(&mu_);
    if (groups_.has_value()) return *groups_;
  }
  pb::NodeGroupsRequest request;
  pb::NodeGroupsResponse response;
  GPUA_RETURN_IF_ERROR(connection_->Call(&Stub::NodeGroups, "NodeGroups", "", request, &response));
  std::vector<std::shared_ptr<NodeGroup>> groups;
  std::vector<std::string> ignored;
  absl::flat_hash_map<std::string, bool> seen;
  for (const pb::NodeGroup& g : response.nodegroups()) {
    std::string problem = GroupProblem(g);
    if (problem.empty() && !seen.emplace(g.id(), true).second) {
      problem = absl::StrCat("node group ", g.id(), " is listed twice");
    }
    if (!problem.empty()) {  // the others stay usable
      connection_->log->Warning(absl::StrCat("externalgrpc NodeGroups: ignoring ", problem));
      ignored.push_back(std::move(problem));
      continue;
    }
    groups.push_back(std::make_shared<ExternalGrpcNodeGroup>(connection_, g));
  }
  absl::MutexLock lock(&mu_);
  groups_ = groups;
  ignored_groups_ = std::move(ignored);
  return groups;
}

std::vector<std::string> ExternalGrpcProvider::IgnoredGroups() {
  absl::MutexLock lock(&mu_);
  return ignored_groups_;
}

absl::StatusOr<std::shared_ptr<NodeGroup>> ExternalGrpcProvider::NodeGroupForNode(
    const NodeRef& node) {
  const std::string key = node.provider_id.empty() ? node.name : node.provider_id;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = group_of_node_.find(key); it != group_of_node_.end()) return it->second;
  }
  pb::NodeGroupForNodeRequest request;
  *request.mutable_node() = ToWire(node);
  pb::NodeGroupForNodeResponse response;
  GPUA_RETURN_IF_ERROR(connection_->Call(&Stub::NodeGroupForNode, "NodeGroupForNode",
                                         absl::StrCat("node ", key), request, &response));
  std::shared_ptr<NodeGroup> group;
  if (!response.nodegroup().id().empty()) {
    GPUA_ASSIGN_OR_RETURN(auto groups, NodeGroups());
    for (const auto& g : groups) {
      if (g->Id() == response.nodegroup().id()) group = g;
    }
    if (group == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("externalgrpc NodeGroupForNode for node ", key,
                                                     ": node group ", response.nodegroup().id(),
                                                     " is not among the plugin's node groups"));
    }
  }
  absl::MutexLock lock(&mu_);
  group_of_node_[key] = group;
  return group;
}

absl::StatusOr<double> ExternalGrpcProvider::Price(const absl::Status& status, double price) {
  if (IsNotImplemented(status)) {
    absl::MutexLock lock(&mu_);
    if (!told_pricing_unimplemented_) {
      told_pricing_unimplemented_ = true;
      connection_->log->Info(
          "externalgrpc: the plugin does not implement pricing; the price expander cannot be "
          "used with it");
    }
    return NotImplemented("pricing");
  }
  GPUA_RETURN_IF_ERROR(status);
  if (!(price >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("externalgrpc pricing: the plugin answered a price of ", price));
  }
  return price;
}

absl::StatusOr<double> ExternalGrpcProvider::NodePrice(const NodeRef& node, absl::Time start,
                                                       absl::Time end) {
  pb::PricingNodePriceRequest request;
  *request.mutable_node() = ToWire(node);
  externalgrpc::SetWindow(start, end, &request);
  pb::PricingNodePriceResponse response;
  absl::Status status = connection_->Call(&Stub::PricingNodePrice, "PricingNodePrice",
                                          absl::StrCat("node ", node.name), request, &response);
  return Price(status, response.price());
}

absl::StatusOr<double> ExternalGrpcProvider::PodPrice(const PodSpec& pod, absl::Time start,
                                                      absl::Time end) {
  pb::PricingPodPriceRequest request;
  *request.mutable_pod() = PodToProto(pod);
  request.set_pod_bytes(request.pod().SerializeAsString());
  externalgrpc::SetWindow(start, end, &request);
  pb::PricingPodPriceResponse response;
  absl::Status status = connection_->Call(&Stub::PricingPodPrice, "PricingPodPrice",
                                          absl::StrCat("pod ", pod.Key()), request, &response);
  return Price(status, response.price());
}

absl::StatusOr<std::string> ExternalGrpcProvider::GpuLabel() {
  {
    absl::MutexLock lock(&mu_);
    if (gpu_label_.has_value()) return *gpu_label_;
  }
  pb::GPULabelRequest request;
  pb::GPULabelResponse response;
  GPUA_RETURN_IF_ERROR(connection_->Call(&Stub::GPULabel, "GPULabel", "", request, &response));
  absl::MutexLock lock(&mu_);
  gpu_label_ = response.label();
  return *gpu_label_;
}

absl::StatusOr<std::vector<std::string>> ExternalGrpcProvider::AvailableGpuTypes() {
  {
    absl::MutexLock lock(&mu_);
    if (gpu_types_.has_value()) return *gpu_types_;
  }
  pb::GetAvailableGPUTypesRequest request;
  pb::GetAvailableGPUTypesResponse response;
  GPUA_RETURN_IF_ERROR(connection_->Call(&Stub::GetAvailableGPUTypes, "GetAvailableGPUTypes", "",
                                         request, &response));
  std::vector<std::string> types;
  for (const auto& [name, any] : response.gputypes()) types.push_back(name);
  std::sort(types.begin(), types.end());
  absl::MutexLock lock(&mu_);
  gpu_types_ = types;
  return types;
}

absl::Status ExternalGrpcProvider::Refresh() {
  {
    absl::MutexLock lock(&mu_);
    groups_.reset();
    group_of_node_.clear();
  }
  pb::RefreshRequest request;
  pb::RefreshResponse response;
  return connection_->Call(&Stub::Refresh, "Refresh", "", request, &response);
}

absl::Status ExternalGrpcProvider::Cleanup() {
  pb::CleanupRequest request;
  pb::CleanupResponse response;
  return connection_->Call(&Stub::Cleanup, "Cleanup", "", request, &response);
}

}  // namespace gpua
