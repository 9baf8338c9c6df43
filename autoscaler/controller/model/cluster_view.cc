#include "autoscaler/controller/model/cluster_view.h"

#include "absl/strings/str_cat.h"

namespace gpua {

namespace {

void AppendWorkloadRef(std::string* out, absl::string_view kind, absl::string_view namespace_name,
                       absl::string_view name) {
  absl::StrAppend(out, kind, "/", namespace_name, "/", name);
}

}  // namespace

std::string WorkloadRef(absl::string_view kind, absl::string_view namespace_name,
                        absl::string_view name) {
  std::string ref;
  AppendWorkloadRef(&ref, kind, namespace_name, name);
  return ref;
}

void ClusterView::AddPod(PodPtr pod) {
  // Bound and unschedulable come from the same object, so they agree with each other.
  if (!pod->spec.node_name.empty()) {
    pods_by_node[pod->spec.node_name].push_back(pod);
  } else if (pod->unschedulable) {
    unschedulable.push_back(pod);
  }
  std::string key = pod->spec.Key();
  pods[std::move(key)] = std::move(pod);
}

void ClusterView::AddWorkload(WorkloadPtr workload) {
  std::string ref = WorkloadRef(workload->kind, workload->namespace_name, workload->name);
  workloads[std::move(ref)] = std::move(workload);
}

WorkloadPtr ClusterView::ControllerOf(const PodSpec& pod) const {
  if (!pod.owner.has_value()) return nullptr;
  // Asked for every pod of every node judged, every loop: the key is built without allocating.
  thread_local std::string ref;
  ref.clear();
  AppendWorkloadRef(&ref, pod.owner->kind, pod.namespace_name, pod.owner->name);
  auto it = workloads.find(ref);
  if (it == workloads.end() || !Owns(*it->second, *pod.owner)) return nullptr;
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

const NodeDeviceState* ClusterView::DevicesOf(const std::string& node) const {
  auto it = node_devices.find(node);
  return it == node_devices.end() ? nullptr : &it->second;
}

}  // namespace gpua
