// The generated externalgrpc messages read both generations of the protocol's fields.
#include <catch2/catch.hpp>

#include "externalgrpc/externalgrpc.pb.h"
#include "k8s.io/api/core/v1/generated.pb.h"

namespace gpua {
namespace {

namespace eg = clusterautoscaler::cloudprovider::v1::externalgrpc;
namespace corev1 = k8s::io::api::core::v1;

corev1::Node TemplateNode() {
  corev1::Node node;
  node.mutable_metadata()->set_name("template-h100");
  (*node.mutable_metadata()->mutable_labels())["nvidia.com/gpu.product"] = "NVIDIA-H100-80GB-HBM3";
  corev1::Taint* taint = node.mutable_spec()->add_taints();
  taint->set_key("nvidia.com/gpu");
  taint->set_value("present");
  taint->set_effect("NoSchedule");
  (*node.mutable_status()->mutable_allocatable())["nvidia.com/gpu"].set_string("8");
  return node;
}

TEST_CASE("a template node travels as nodeBytes and as the earlier embedded nodeInfo", "[proto]") {
  eg::NodeGroupTemplateNodeInfoResponse response;
  response.set_nodebytes(TemplateNode().SerializeAsString());
  *response.mutable_nodeinfo() = TemplateNode();

  eg::NodeGroupTemplateNodeInfoResponse decoded;
  REQUIRE(decoded.ParseFromString(response.SerializeAsString()));
  corev1::Node from_bytes;
  REQUIRE(from_bytes.ParseFromString(decoded.nodebytes()));
  CHECK(from_bytes.metadata().labels().at("nvidia.com/gpu.product") == "NVIDIA-H100-80GB-HBM3");
  CHECK(from_bytes.status().allocatable().at("nvidia.com/gpu").string() == "8");
  CHECK(decoded.nodeinfo().spec().taints(0).effect() == "NoSchedule");
  // The two generations carry the same bytes.
  CHECK(decoded.nodeinfo().SerializeAsString() == decoded.nodebytes());
}

TEST_CASE("field numbers match the upstream protocol", "[proto]") {
  // Wire compatibility is the field numbers; pin the ones plugins depend on.
  using Opts = eg::NodeGroupAutoscalingOptions;
  CHECK(Opts::kScaleDownUnneededTimeFieldNumber == 3);
  CHECK(Opts::kScaleDownUnneededDurationFieldNumber == 8);
  CHECK(Opts::kMaxNodeProvisionDurationFieldNumber == 10);
  CHECK(eg::NodeGroupTemplateNodeInfoResponse::kNodeBytesFieldNumber == 2);
  CHECK(eg::PricingPodPriceRequest::kPodBytesFieldNumber == 4);
  CHECK(eg::NodeGroupDeleteNodesRequest::kIdFieldNumber == 2);
  CHECK(eg::InstanceStatus::instanceDeleting == 3);
}

}  // namespace
}  // namespace gpua
