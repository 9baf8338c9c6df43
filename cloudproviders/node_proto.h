// Kubernetes objects in their protobuf form, as the externalgrpc protocol carries them:
// template nodes (`nodeBytes`, or the earlier embedded `nodeInfo`) and pods (pricing).
#ifndef GPUA_CLOUDPROVIDERS_NODE_PROTO_H_
#define GPUA_CLOUDPROVIDERS_NODE_PROTO_H_

#include <string>

#include "absl/status/statusor.h"
#include "estimator/node.h"
#include "estimator/pod.h"
#include "k8s.io/api/core/v1/generated.pb.h"

namespace gpua {

namespace corev1 = ::k8s::io::api::core::v1;

corev1::Node NodeTemplateToProto(const NodeTemplate& t);

// Decodes a template node; allocatable (or, failing it, capacity) is required. Errors start
// with `what` (e.g. "node group h100: template") and name the field.
absl::StatusOr<NodeTemplate> NodeTemplateFromProto(const corev1::Node& node,
                                                   absl::string_view what);
absl::StatusOr<NodeTemplate> NodeTemplateFromBytes(const std::string& bytes,
                                                   absl::string_view what);

// A pod as one container holding its effective requests: what a price needs.
corev1::Pod PodToProto(const PodSpec& pod);
// Back again: identity, labels, node selector, and the containers' requests summed.
absl::StatusOr<PodSpec> PodFromProto(const corev1::Pod& pod);

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_NODE_PROTO_H_
