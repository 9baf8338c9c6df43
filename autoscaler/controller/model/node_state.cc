#include "autoscaler/controller/model/node_state.h"

#include "autoscaler/controller/model/cluster_state.h"
#include "estimator/gpu/gpu_inventory_reader.h"
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
  // The controller's rule, with the node's own labels as its template: every GPU resource
  // they promise (MIG devices of the layout its label names), whatever the vendor.
  const absl::StatusOr<std::shared_ptr<const GpuInventory>>& gpus = n.Gpus();
  if (gpus.ok() && *gpus != nullptr) {
    return GpusAdvertised(n, **gpus) ? NodeState::kReady : NodeState::kGpusNotAdvertised;
  }
  // Labels that name GPUs but cannot say how many (an AMD node before its device plugin):
  // not advertised while no GPU resource of any kind is.
  if (LabelsNameGpus(n.node.labels) && GpuPart(n.node.allocatable).empty()) {
    return NodeState::kGpusNotAdvertised;
  }
  return NodeState::kReady;
}

}  // namespace gpua
