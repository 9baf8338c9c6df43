#include "cloudproviders/externalgrpc/wire.h"

#include "absl/strings/str_cat.h"

namespace gpua::externalgrpc {
namespace {

namespace metav1 = ::k8s::io::apimachinery::pkg::apis::meta::v1;

void SetDuration(absl::Duration d, metav1::Duration* earlier, google::protobuf::Duration* current) {
  earlier->set_duration(absl::ToInt64Nanoseconds(d));
  const int64_t seconds = absl::IDivDuration(d, absl::Seconds(1), &d);
  current->set_seconds(seconds);
  current->set_nanos(static_cast<int32_t>(absl::ToInt64Nanoseconds(d)));
}

absl::Duration GetDuration(bool has_current, const google::protobuf::Duration& current,
                           bool has_earlier, const metav1::Duration& earlier,
                           absl::Duration fallback) {
  if (has_current) return absl::Seconds(current.seconds()) + absl::Nanoseconds(current.nanos());
  if (has_earlier) return absl::Nanoseconds(earlier.duration());
  return fallback;
}

void SetTime(absl::Time t, metav1::Time* earlier, google::protobuf::Timestamp* current) {
  const int64_t nanos = absl::ToUnixNanos(t);
  const int64_t seconds = nanos / 1'000'000'000;
  const int32_t rest = static_cast<int32_t>(nanos % 1'000'000'000);
  earlier->set_seconds(seconds);
  earlier->set_nanos(rest);
  current->set_seconds(seconds);
  current->set_nanos(rest);
}

}  // namespace

absl::Status FromGrpc(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

pb::ExternalGrpcNode ToWire(const NodeRef& node) {
  pb::ExternalGrpcNode out;
  out.set_providerid(node.provider_id);
  out.set_name(node.name);
  for (const auto& [k, v] : node.labels) (*out.mutable_labels())[k] = v;
  for (const auto& [k, v] : node.annotations) (*out.mutable_annotations())[k] = v;
  return out;
}

NodeRef FromWire(const pb::ExternalGrpcNode& node) {
  NodeRef out;
  out.provider_id = node.providerid();
  out.name = node.name();
  out.labels = Labels(node.labels().begin(), node.labels().end());
  out.annotations = Labels(node.annotations().begin(), node.annotations().end());
  return out;
}

pb::Instance ToWire(const Instance& instance) {
  pb::Instance out;
  out.set_id(instance.id);
  auto* status = out.mutable_status();
  switch (instance.state) {
    case InstanceState::kRunning:
      status->set_instancestate(pb::InstanceStatus::instanceRunning);
      break;
    case InstanceState::kCreating:
      status->set_instancestate(pb::InstanceStatus::instanceCreating);
      break;
    case InstanceState::kDeleting:
      status->set_instancestate(pb::InstanceStatus::instanceDeleting);
      break;
    case InstanceState::kUnspecified:
      status->set_instancestate(pb::InstanceStatus::unspecified);
      break;
  }
  if (instance.error.has_value()) {
    auto* error = status->mutable_errorinfo();
    error->set_errorcode(instance.error->code);
    error->set_errormessage(instance.error->message);
    error->set_instanceerrorclass(static_cast<int32_t>(instance.error->error_class));
  }
  return out;
}

absl::StatusOr<Instance> FromWire(const pb::Instance& instance) {
  Instance out;
  out.id = instance.id();
  if (out.id.empty()) return absl::InvalidArgumentError("instance with an empty id");
  switch (instance.status().instancestate()) {
    case pb::InstanceStatus::instanceRunning:
      out.state = InstanceState::kRunning;
      break;
    case pb::InstanceStatus::instanceCreating:
      out.state = InstanceState::kCreating;
      break;
    case pb::InstanceStatus::instanceDeleting:
      out.state = InstanceState::kDeleting;
      break;
    case pb::InstanceStatus::unspecified:
      out.state = InstanceState::kUnspecified;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("instance ", out.id,
                                                     ": status.instanceState: unknown value ",
                                                     instance.status().instancestate()));
  }
  if (instance.status().has_errorinfo()) {
    const pb::InstanceErrorInfo& e = instance.status().errorinfo();
    InstanceError error{e.errorcode(), e.errormessage(), InstanceErrorClass::kOther};
    if (e.instanceerrorclass() == static_cast<int32_t>(InstanceErrorClass::kOutOfResources)) {
      error.error_class = InstanceErrorClass::kOutOfResources;
    } else if (e.instanceerrorclass() != static_cast<int32_t>(InstanceErrorClass::kOther)) {
      return absl::InvalidArgumentError(
          absl::StrCat("instance ", out.id, ": status.errorInfo.instanceErrorClass: unknown value ",
                       e.instanceerrorclass(), " (expected 1 or 99)"));
    }
    out.error = std::move(error);
  }
  return out;
}

pb::NodeGroupAutoscalingOptions ToWire(const AutoscalingOptions& o) {
  pb::NodeGroupAutoscalingOptions out;
  out.set_scaledownutilizationthreshold(o.scale_down_utilization_threshold);
  out.set_scaledowngpuutilizationthreshold(o.scale_down_gpu_utilization_threshold);
  out.set_zeroormaxnodescaling(o.zero_or_max_node_scaling);
  out.set_ignoredaemonsetsutilization(o.ignore_daemonsets_utilization);
  SetDuration(o.scale_down_unneeded_time, out.mutable_scaledownunneededtime(),
              out.mutable_scaledownunneededduration());
  SetDuration(o.scale_down_unready_time, out.mutable_scaledownunreadytime(),
              out.mutable_scaledownunreadyduration());
  SetDuration(o.max_node_provision_time, out.mutable_maxnodeprovisiontime(),
              out.mutable_maxnodeprovisionduration());
  return out;
}

absl::StatusOr<AutoscalingOptions> FromWire(const pb::NodeGroupAutoscalingOptions& in,
                                            const AutoscalingOptions& defaults) {
  AutoscalingOptions o = defaults;
  o.scale_down_utilization_threshold = in.scaledownutilizationthreshold();
  o.scale_down_gpu_utilization_threshold = in.scaledowngpuutilizationthreshold();
  o.zero_or_max_node_scaling = in.zeroormaxnodescaling();
  o.ignore_daemonsets_utilization = in.ignoredaemonsetsutilization();
  o.scale_down_unneeded_time =
      GetDuration(in.has_scaledownunneededduration(), in.scaledownunneededduration(),
                  in.has_scaledownunneededtime(), in.scaledownunneededtime(),
                  defaults.scale_down_unneeded_time);
  o.scale_down_unready_time = GetDuration(
      in.has_scaledownunreadyduration(), in.scaledownunreadyduration(),
      in.has_scaledownunreadytime(), in.scaledownunreadytime(), defaults.scale_down_unready_time);
  o.max_node_provision_time = GetDuration(
      in.has_maxnodeprovisionduration(), in.maxnodeprovisionduration(),
      in.has_maxnodeprovisiontime(), in.maxnodeprovisiontime(), defaults.max_node_provision_time);
  for (double t : {o.scale_down_utilization_threshold, o.scale_down_gpu_utilization_threshold}) {
    if (!(t >= 0 && t <= 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("a scale-down utilization threshold of ", t, " (expected 0 to 1)"));
    }
  }
  for (absl::Duration d :
       {o.scale_down_unneeded_time, o.scale_down_unready_time, o.max_node_provision_time}) {
    if (d < absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          absl::StrCat("a negative duration (", absl::FormatDuration(d), ")"));
    }
  }
  return o;
}

void SetWindow(absl::Time start, absl::Time end, pb::PricingNodePriceRequest* request) {
  SetTime(start, request->mutable_starttime(), request->mutable_starttimestamp());
  SetTime(end, request->mutable_endtime(), request->mutable_endtimestamp());
}

void SetWindow(absl::Time start, absl::Time end, pb::PricingPodPriceRequest* request) {
  SetTime(start, request->mutable_starttime(), request->mutable_starttimestamp());
  SetTime(end, request->mutable_endtime(), request->mutable_endtimestamp());
}

template <typename Request>
absl::StatusOr<std::pair<absl::Time, absl::Time>> GetWindow(const Request& r) {
  const auto read = [](bool has_current, const google::protobuf::Timestamp& current,
                       bool has_earlier, const metav1::Time& earlier) -> std::optional<absl::Time> {
    if (has_current)
      return absl::FromUnixSeconds(current.seconds()) + absl::Nanoseconds(current.nanos());
    if (has_earlier)
      return absl::FromUnixSeconds(earlier.seconds()) + absl::Nanoseconds(earlier.nanos());
    return std::nullopt;
  };
  std::optional<absl::Time> start =
      read(r.has_starttimestamp(), r.starttimestamp(), r.has_starttime(), r.starttime());
  std::optional<absl::Time> end =
      read(r.has_endtimestamp(), r.endtimestamp(), r.has_endtime(), r.endtime());
  if (!start.has_value() || !end.has_value()) {
    return absl::InvalidArgumentError("the pricing window needs a start and an end time");
  }
  if (*end < *start) return absl::InvalidArgumentError("the pricing window ends before it starts");
  return std::make_pair(*start, *end);
}

template absl::StatusOr<std::pair<absl::Time, absl::Time>> GetWindow(
    const pb::PricingNodePriceRequest&);
template absl::StatusOr<std::pair<absl::Time, absl::Time>> GetWindow(
    const pb::PricingPodPriceRequest&);

}  // namespace gpua::externalgrpc
