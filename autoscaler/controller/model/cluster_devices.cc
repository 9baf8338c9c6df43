#include "autoscaler/controller/model/cluster_devices.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace gpua {
namespace {

std::string PoolKey(absl::string_view driver, absl::string_view pool) {
  return absl::StrCat(driver, "/", pool);
}

bool SameClaim(const dra::PodClaim& a, const dra::PodClaim& b) {
  return a.name == b.name && a.claim_key == b.claim_key && a.spec == b.spec &&
         a.allocation == b.allocation && a.shared == b.shared && a.unresolved == b.unresolved;
}

bool SameDevices(const dra::PodDevices& a, const dra::PodDevices& b) {
  if (a.classes != b.classes || a.claims.size() != b.claims.size()) return false;
  for (size_t i = 0; i < a.claims.size(); ++i) {
    if (!SameClaim(a.claims[i], b.claims[i])) return false;
  }
  return true;
}

// A bound pod's own claims go with it: a replacement elsewhere gets a new one, unallocated.
void ForgetOwnAllocations(dra::PodDevices& devices) {
  for (dra::PodClaim& c : devices.claims) {
    if (!c.shared) c.allocation = nullptr;
  }
}

constexpr absl::string_view kImplicitClassResource = "deviceclass.resource.kubernetes.io/";

// Whether some request may be for an extended resource a DeviceClass serves (KEP-5004).
bool MayAskForClassDevices(const PodSpec& pod,
                           const absl::flat_hash_set<std::string>& class_resources) {
  for (const auto& [name, q] : pod.requests) {
    if (class_resources.contains(name) || absl::StartsWith(name, kImplicitClassResource)) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool ClusterDevices::Involved(const ClusterView& view) {
  if (!view.device_classes.empty() || !view.resource_slices.empty() ||
      !view.resource_claims.empty() || !view.resource_claim_templates.empty()) {
    return true;
  }
  // A pod whose claims name objects that are not there is told so, not planned without them.
  for (const auto& [key, pod] : view.pods) {
    if (!pod->spec.claim_refs.empty()) return true;
  }
  return false;
}

std::shared_ptr<const ClusterView> ClusterDevices::Resolve(
    std::shared_ptr<const ClusterView> view) {
  if (!enabled_ || !Involved(*view)) {
    pods_.clear();
    nodes_.clear();
    return view;
  }
  auto out = std::make_shared<ClusterView>(*view);
  RefreshObjects(*out);
  ResolveNodes(*out);
  ResolveAllocations(*out);

  absl::flat_hash_map<const PodObject*, PodPtr> replaced;
  absl::flat_hash_map<std::string, KeptPod> kept;
  for (auto& [key, pod] : out->pods) {
    PodPtr resolved = ResolvePod(pod);
    if (resolved == pod) continue;
    kept[key] = {pod, resolved};
    replaced[pod.get()] = resolved;
    pod = std::move(resolved);
  }
  pods_ = std::move(kept);
  if (replaced.empty()) return out;
  const auto swap_in = [&](std::vector<PodPtr>& pods) {
    for (PodPtr& p : pods) {
      if (auto it = replaced.find(p.get()); it != replaced.end()) p = it->second;
    }
  };
  for (auto& [node, pods] : out->pods_by_node) swap_in(pods);
  swap_in(out->unschedulable);
  return out;
}

void ClusterDevices::RefreshObjects(const ClusterView& view) {
  if (view.device_classes != classes_) {
    classes_ = view.device_classes;
    auto classes = std::make_shared<dra::DeviceClasses>();
    class_resources_.clear();
    for (const DeviceClassPtr& c : classes_) {
      (*classes)[c->name] = *c;
      if (!c->extended_resource_name.empty()) class_resources_.insert(c->extended_resource_name);
    }
    dra_.classes = std::move(classes);
    dra_.extended_specs.clear();  // they name classes
  }
  dra_.catalog.claims.clear();
  for (const ResourceClaimPtr& c : view.resource_claims) dra_.catalog.claims[c->Key()] = c;
  dra_.catalog.templates.clear();
  for (const ResourceClaimTemplatePtr& t : view.resource_claim_templates) {
    dra_.catalog.templates[t->Key()] = t;
  }
  // KEP-5004: an extended resource some node's device plugin advertises stays the plugin's.
  dra_.advertised.clear();
  for (const NodePtr& n : view.nodes) {
    for (const auto& [name, q] : n->node.allocatable) {
      if (q.Sign() > 0 && IsExtendedResource(name)) dra_.advertised.insert(name);
    }
  }
}

void ClusterDevices::ResolveNodes(ClusterView& view) {
  absl::flat_hash_map<std::string, std::vector<ResourceSlicePtr>> by_node;
  pool_nodes_.clear();
  int unsupported = 0;
  for (const ResourceSlicePtr& s : view.resource_slices) {
    if (!s->node_local()) {
      ++unsupported;
      continue;
    }
    by_node[s->node_name].push_back(s);
    pool_nodes_[PoolKey(s->driver, s->pool)] = s->node_name;
  }
  if (unsupported != unsupported_pools_ && unsupported > 0) {
    log_.Warning(absl::StrCat(unsupported,
                              " ResourceSlices publish devices not local to one node "
                              "(nodeSelector, allNodes or perDeviceNodeSelection): they are "
                              "not planned with"));
  }
  unsupported_pools_ = unsupported;
  absl::flat_hash_map<std::string, KeptNode> kept;
  for (auto& [node, slices] : by_node) {
    KeptNode& k = kept[node];
    auto before = nodes_.find(node);
    if (before != nodes_.end() && before->second.slices == slices) {
      k = std::move(before->second);
    } else {
      k.devices = dra::AssembleShared(slices);
      k.slices = std::move(slices);
    }
    NodeDeviceState& state = view.node_devices[node];
    state.slices = k.slices;
    state.devices = k.devices;
  }
  nodes_ = std::move(kept);
}

void ClusterDevices::ResolveAllocations(ClusterView& view) const {
  absl::flat_hash_map<std::string, std::shared_ptr<std::vector<dra::AllocatedDevice>>> held;
  for (const ResourceClaimPtr& c : view.resource_claims) {
    if (c->allocation == nullptr) continue;
    for (const dra::AllocatedDevice& d : c->allocation->devices) {
      auto node = pool_nodes_.find(PoolKey(d.driver, d.pool));
      if (node == pool_nodes_.end()) continue;  // a pool no node publishes any more
      auto& list = held[node->second];
      if (list == nullptr) list = std::make_shared<std::vector<dra::AllocatedDevice>>();
      list->push_back(d);
    }
  }
  for (auto& [node, list] : held) view.node_devices[node].allocated = std::move(list);
}

PodPtr ClusterDevices::ResolvePod(const PodPtr& pod) {
  const PodSpec& spec = pod->spec;
  if (spec.claim_refs.empty() && !MayAskForClassDevices(spec, class_resources_)) return pod;
  PodDeviceResolution resolved = ResolvePodDevices(dra_, spec);
  if (resolved.devices == nullptr) return pod;
  if (!spec.node_name.empty()) ForgetOwnAllocations(*resolved.devices);
  auto before = pods_.find(spec.Key());
  if (before != pods_.end() && before->second.source == pod &&
      SameDevices(*before->second.resolved->spec.devices, *resolved.devices)) {
    return before->second.resolved;
  }
  auto copy = std::make_shared<PodObject>(*pod);
  ApplyPodDevices(std::move(resolved), copy->spec);
  return copy;
}

}  // namespace gpua
