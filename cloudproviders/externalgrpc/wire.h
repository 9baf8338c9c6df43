// Conversions between the provider model and the externalgrpc messages, shared by the client
// and the plugin server so that both write the two generations of the protocol the same way:
// every value is written to the current field and to the earlier one, and read from the
// current field, falling back to the earlier one when only that is set.
#ifndef GPUA_CLOUDPROVIDERS_EXTERNALGRPC_WIRE_H_
#define GPUA_CLOUDPROVIDERS_EXTERNALGRPC_WIRE_H_

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cloudproviders/cloud_provider.h"
#include "externalgrpc/externalgrpc.grpc.pb.h"
#include "externalgrpc/externalgrpc.pb.h"

namespace gpua::externalgrpc {

namespace pb = ::clusterautoscaler::cloudprovider::v1::externalgrpc;

// gRPC and Abseil share status code numbers.
absl::Status FromGrpc(const grpc::Status& status);
grpc::Status ToGrpc(const absl::Status& status);

pb::ExternalGrpcNode ToWire(const NodeRef& node);
NodeRef FromWire(const pb::ExternalGrpcNode& node);

pb::Instance ToWire(const Instance& instance);
// An unknown instance state or error class is an error naming the instance.
absl::StatusOr<Instance> FromWire(const pb::Instance& instance);

pb::NodeGroupAutoscalingOptions ToWire(const AutoscalingOptions& options);
// Durations that are set neither way keep `defaults`.
absl::StatusOr<AutoscalingOptions> FromWire(const pb::NodeGroupAutoscalingOptions& options,
                                            const AutoscalingOptions& defaults);

// The pricing window, both ways.
void SetWindow(absl::Time start, absl::Time end, pb::PricingNodePriceRequest* request);
void SetWindow(absl::Time start, absl::Time end, pb::PricingPodPriceRequest* request);
template <typename Request>
absl::StatusOr<std::pair<absl::Time, absl::Time>> GetWindow(const Request& request);

}  // namespace gpua::externalgrpc

#endif  // GPUA_CLOUDPROVIDERS_EXTERNALGRPC_WIRE_H_
