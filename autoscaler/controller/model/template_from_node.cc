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

size_t Devices(const TemplateCandidate& c) {
  return c.devices != nullptr && c.devices->devices != nullptr ? c.devices->devices->DeviceCount()
                                                               : 0;
}

// Ordered so that the better template comes first.
bool Better(const TemplateCandidate& a, const TemplateCandidate& b) {
  const int64_t ga = GpuUnits(*a.node);
  const int64_t gb = GpuUnits(*b.node);
  if (ga != gb) return ga > gb;
  const size_t da = Devices(a);
  const size_t db = Devices(b);
  if (da != db) return da > db;
  return a.node->node.name < b.node->node.name;
}

}  // namespace

NodeTemplate TemplateFromNode(const TemplateCandidate& from, const std::string& group_id) {
  const NodeObject& n = *from.node;
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
  if (from.devices != nullptr) t.resource_slices = from.devices->slices;
  return t;
}

const TemplateCandidate* NodeToTemplateFrom(const std::vector<TemplateCandidate>& candidates) {
  const TemplateCandidate* best = nullptr;
  for (const TemplateCandidate& c : candidates) {
    if (!c.node->ready || c.node->Marks().to_be_deleted) continue;
    if (best == nullptr || Better(c, *best)) best = &c;
  }
  return best;
}

}  // namespace gpua
