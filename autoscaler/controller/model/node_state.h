// What a node is to the autoscaler from its own object: the group its labels name, and
// whether it is ready, not ready, or ready but with GPUs its labels promise and its
// allocatable does not show yet (driver and device plugin still starting). The controller's
// cluster state builds on these; `inspect` shows them.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_NODE_STATE_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_NODE_STATE_H_

#include <string>

#include "absl/strings/string_view.h"
#include "kubeobjects/nodes.h"

namespace gpua {

// The label a node of ours carries to name its group.
inline constexpr absl::string_view kNodeGroupLabel = "gpu-autoscaler.io/node-group";

// The node's group by label: ours, else its instance type; "-" for neither.
std::string GroupLabelOf(const NodeObject& node);

enum class NodeState { kReady, kNotReady, kGpusNotAdvertised };
absl::string_view NodeStateName(NodeState state);

// Ready=True with every GPU it should have advertised is kReady: the rule the controller
// judges a group's node by (GpusAdvertised), with the node's own GPU labels as the template,
// for every vendor. A node whose labels name GPUs (NVIDIA's GPU Feature Discovery, AMD's node
// labeller) that its allocatable does not show is kGpusNotAdvertised.
NodeState StateOf(const NodeObject& node);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_NODE_STATE_H_
