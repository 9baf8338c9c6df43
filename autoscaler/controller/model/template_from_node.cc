#include "autoscaler/controller/model/template_from_node.h"

#include "absl/strings/match.h"
#include "estimator/gpu/gpu_resource.h"
#include "kubeobjects/node_marks.h"

namespace gpua {
namespace {

int64_t GpuUnits(const NodeObject& n) {
  int64_t units = 0;
  for (const auto& [name, q] : GpuPart(n.node.allocatable)) units += q.Value();
  return units;
}

}  // namespace

NodeTemplate TemplateFromNode(const NodeObject& n, const std::string& group_id) {
  NodeTemplate t;
  t.name = group_id;
  for (const auto& [k, v] : n.node.labels) {
    if (k == "kubernetes.io/hostname" || k == kMigConfigLabel) continue;
    t.labels[k] = v;
  }
  for (const auto& [k, v] : n.annotations) {
    if (absl::StartsWith(k, "gpu-autoscaler.io/") && k != kMigLayoutAssignedAnnotation) {
      t.annotations[k] = v;
    }
  }
  for (const Taint& taint : n.node.taints) {
    if (!IsStartupTaint(taint)) t.taints.push_back(taint);
  }
  t.allocatable = n.node.allocatable;
  return t;
}

const NodeObject* NodeToTemplateFrom(const std::vector<const NodeObject*>& candidates) {
  const NodeObject* best = nullptr;
  for (const NodeObject* n : candidates) {
    if (!n->ready || n->Marks().to_be_deleted) continue;
    if (best == nullptr || GpuUnits(*n) > GpuUnits(*best) ||
        (GpuUnits(*n) == GpuUnits(*best) && n->node.name < best->node.name)) {
      best = n;
    }
  }
  return best;
}

}  // namespace gpua
