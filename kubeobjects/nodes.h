// Nodes: the Node as the controller's cache keeps it, and a Node object read as a pool's
// template for new nodes. The template check (allocatable required, capacity when it is
// absent, nothing negative) is the one every reader of templates uses: the node-group file,
// the externalgrpc protocol's template nodes and the planner.
#ifndef GPUA_KUBEOBJECTS_NODES_H_
#define GPUA_KUBEOBJECTS_NODES_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/memo.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/node.h"
#include "kubeobjects/json_reader.h"
#include "kubeobjects/node_marks.h"

namespace gpua {

// One of status.conditions: the kubelet's Ready, and what node agents (Node Problem Detector,
// EKS's node monitoring agent, NVSentinel) set to say a GPU, its driver or the node is broken.
struct NodeConditionStatus {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  // When it last changed status; unset when the object does not say (or not readably).
  std::optional<absl::Time> last_transition;
};

// A Node as the controller's cache keeps it.
struct NodeObject {
  Node node;  // name, labels, taints, allocatable, unschedulable
  Labels annotations;
  ResourceList capacity;
  std::string provider_id;
  bool ready = false;                           // condition Ready=True
  std::vector<NodeConditionStatus> conditions;  // every condition, Ready among them
  absl::Time created = absl::InfinitePast();    // metadata.creationTimestamp
  std::string resource_version;

  // What its labels, annotations and allocatable say of its GPUs (ReadGpuInventory, errors
  // naming the node); null when it has none. Read once per object: every loop asks.
  const absl::StatusOr<std::shared_ptr<const GpuInventory>>& Gpus() const;
  Memo<absl::StatusOr<std::shared_ptr<const GpuInventory>>> gpus_read;
  // Its removal taints, annotations and MIG layout label (ReadNodeMarks), read once.
  const NodeMarks& Marks() const;
  Memo<NodeMarks> marks_read;

  // The condition of that type; null when it has none.
  const NodeConditionStatus* Condition(absl::string_view type) const;
};
// Errors name the node and the field.
absl::StatusOr<NodeObject> DecodeNode(const JsonReader& object);
absl::StatusOr<NodeObject> DecodeNode(const nlohmann::json& object);

absl::StatusOr<std::vector<Taint>> DecodeTaints(const JsonReader& taints);

// A Node object as a template for new nodes.
absl::StatusOr<NodeTemplate> DecodeNodeTemplate(const JsonReader& node);

// Completes and checks a decoded template: without allocatable it takes `capacity` (the
// kubelet reports both); without either, or with a negative amount, it is refused. Errors
// name the field after `field_prefix` ("nodeGroups[0].template." or "node group g: nodeBytes: ").
absl::Status CheckNodeTemplate(NodeTemplate& t, const ResourceList& capacity,
                               absl::string_view field_prefix);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_NODES_H_
