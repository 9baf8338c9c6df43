#include "autoscaler/controller/node_state.h"

#include "estimator/gpu/gpu_resource.h"

namespace gpua {

std::string GroupLabelOf(const NodeObject& n) {
  for (absl::string_view label :
       {kNodeGroupLabel, absl::string_view("node.kubernetes.io/instance-type")}) {
    if (auto it = n.node.labels.find(label); it != n.node.labels.end()) return it->second;
  }
  return "-";
}

absl::string_view NodeStateName(NodeState state) {
  switch (state) {
    case NodeState::kReady:
      return "ready";
    case NodeState::kNotReady:
      return "not ready";
    case NodeState::kGpusNotAdvertised:
      return "gpus not advertised";
  }
  return "unknown";
}

NodeState StateOf(const NodeObject& n) {
  if (!n.ready) return NodeState::kNotReady;
  const bool promises_gpus = n.node.labels.contains("nvidia.com/gpu.product") ||
                             n.node.labels.contains("nvidia.com/gpu.count");
  if (promises_gpus && GpuPart(n.node.allocatable).empty()) return NodeState::kGpusNotAdvertised;
  return NodeState::kReady;
}

}  // namespace gpua
