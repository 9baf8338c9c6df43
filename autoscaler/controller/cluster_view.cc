#include "autoscaler/controller/cluster_view.h"

#include "absl/strings/str_cat.h"

namespace gpua {
namespace {

std::string RefKey(absl::string_view kind, absl::string_view ns, absl::string_view name) {
  return absl::StrCat(kind, "/", ns, "/", name);
}

}  // namespace

void ClusterView::AddPod(PodPtr pod) {
  // Bound and unschedulable come from the same object, so they agree with each other.
  if (!pod->spec.node_name.empty()) {
    pods_by_node[pod->spec.node_name].push_back(pod);
  } else if (pod->unschedulable) {
    unschedulable.push_back(pod);
  }
  pods.push_back(std::move(pod));
}

void ClusterView::AddWorkload(WorkloadPtr workload) {
  workloads_by_ref[RefKey(workload->kind, workload->namespace_name, workload->name)] = workload;
  workloads.push_back(std::move(workload));
}

WorkloadPtr ClusterView::ControllerOf(const PodSpec& pod) const {
  if (!pod.owner.has_value()) return nullptr;
  auto it = workloads_by_ref.find(RefKey(pod.owner->kind, pod.namespace_name, pod.owner->name));
  if (it == workloads_by_ref.end() || !Owns(*it->second, *pod.owner)) return nullptr;
  return it->second;
}

ConfigMapPtr ClusterView::FindConfigMap(absl::string_view namespace_name,
                                        absl::string_view name) const {
  for (const ConfigMapPtr& c : config_maps) {
    if (c->namespace_name == namespace_name && c->name == name) return c;
  }
  return nullptr;
}

const std::vector<PodPtr>& ClusterView::PodsOn(const std::string& node) const {
  static const std::vector<PodPtr> kNone;
  auto it = pods_by_node.find(node);
  return it == pods_by_node.end() ? kNone : it->second;
}

}  // namespace gpua
