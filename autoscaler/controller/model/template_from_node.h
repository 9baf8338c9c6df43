// What a new node of a group will look like, read off one of its running nodes, for a
// provider that cannot say (cluster-autoscaler does the same when TemplateNodeInfo is not
// implemented): its labels, our own annotations, allocatable and taints, without what belongs
// to that node alone (its hostname, the MIG layout it was given) or to its moment (start-up
// and removal taints). A group at zero has no such node: its provider must give a template.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_TEMPLATE_FROM_NODE_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_TEMPLATE_FROM_NODE_H_

#include <optional>
#include <string>
#include <vector>

#include "autoscaler/controller/model/cluster_view.h"
#include "estimator/node.h"

namespace gpua {

// A node and its DRA devices (null: none): its ResourceSlices become the template's.
struct TemplateCandidate {
  const NodeObject* node = nullptr;
  const NodeDeviceState* devices = nullptr;
};

NodeTemplate TemplateFromNode(const TemplateCandidate& from, const std::string& group_id);

// Of `candidates` (a group's registered nodes), the one to template from: ready, not being
// removed, with the most GPUs advertised, then the most DRA devices published (a node whose
// device plugin or DRA driver is not up yet would make a template without GPUs), the first by
// name on a tie; none when no node qualifies.
const TemplateCandidate* NodeToTemplateFrom(const std::vector<TemplateCandidate>& candidates);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_TEMPLATE_FROM_NODE_H_
