#include "autoscaler/sim/sim_devices.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cloudproviders/simulated/simulated_node.h"
#include "estimator/dra/resource_slice.h"
#include "estimator/dra/template_slices.h"
#include "estimator/gpu/gpu_resource.h"

namespace gpua::sim {
namespace {

// The claim the resourceclaim controller makes for a pod's claim reference (its real names
// end in a random suffix, which a simulation has no use for).
std::string MadeClaimName(const PodSpec& pod, absl::string_view claim) {
  return absl::StrCat(pod.name, "-", claim);
}

// A device's part of its physical GPU, as DeviceUse::Utilization weighs counters: a device
// that consumes no counters is a whole GPU; a partition is the share of its GPU's counters it
// consumes, each counter weighing the same.
double GpuShare(const dra::DevicePool& pool, const dra::Device& device) {
  if (!dra::IsGpuDriver(pool.driver)) return 0;
  if (device.consumes_counters.empty()) return 1;
  double share = 0;
  for (const dra::CounterConsumption& use : device.consumes_counters) {
    auto set = std::find_if(pool.counter_sets.begin(), pool.counter_sets.end(),
                            [&](const dra::CounterSet& s) { return s.name == use.counter_set; });
    if (set == pool.counter_sets.end() || set->counters.empty()) continue;
    double part = 0;
    for (const auto& [counter, amount] : use.counters) {
      auto total = set->counters.find(counter);
      if (total == set->counters.end() || total->second.Sign() <= 0) continue;
      part += std::min(
          1.0, static_cast<double>(amount.nanos()) / static_cast<double>(total->second.nanos()));
    }
    share = std::max(share, part / static_cast<double>(set->counters.size()));
  }
  return share;
}

}  // namespace

SimDevices::SimDevices(const std::shared_ptr<const DraObjects>& objects,
                       const std::vector<NodeGroupConfig>& groups) {
  if (objects != nullptr) objects_ = *objects;
  objects_.extended_specs.clear();
  for (const NodeGroupConfig& g : groups) {
    const NodeTemplate& t = g.spec.node_template;
    group_templates_[g.spec.id] = &t;
    if (!t.resource_slices.empty())
      group_devices_[g.spec.id] = dra::AssembleShared(t.resource_slices);
    // KEP-5004: a resource some pool's device plugin advertises stays the plugin's.
    for (const auto& [name, q] : t.allocatable) {
      if (q.Sign() > 0 && IsExtendedResource(name)) objects_.advertised.insert(name);
    }
  }
  // A trace's shared claims start unallocated: the simulated cluster starts empty.
  for (auto& [key, claim] : objects_.catalog.claims) {
    auto fresh = std::make_shared<dra::ResourceClaim>(*claim);
    fresh->allocation = nullptr;
    fresh->reserved_for.clear();
    claim = fresh;
    shared_[key].object = fresh;
    claims_[key] = std::move(fresh);
  }
}

const PodDeviceNeeds& SimDevices::Needs(int shape, const PodSpec& pod) {
  const auto at = static_cast<size_t>(shape);
  if (needs_.size() <= at) needs_.resize(at + 1);
  if (needs_[at] == nullptr) {
    PodDeviceResolution resolved = ResolvePodDevices(objects_, pod);
    needs_[at] = std::make_unique<PodDeviceNeeds>(
        PodDeviceNeeds{std::move(resolved.devices), std::move(resolved.served_requests)});
  }
  return *needs_[at];
}

void SimDevices::Publish(const std::string& node, const std::string& group) {
  auto devices = group_devices_.find(group);
  if (devices == group_devices_.end() || devices->second == nullptr || nodes_.contains(node)) {
    return;
  }
  NodeState state{dra::DeviceUse(devices->second), {}};
  for (dra::ResourceSlice& s : PublishedSlices(*group_templates_.at(group), node)) {
    state.slices.push_back(std::make_shared<const dra::ResourceSlice>(std::move(s)));
  }
  nodes_.emplace(node, std::move(state));
  slices_changed_ = true;
}

void SimDevices::Withdraw(const std::string& node) {
  if (nodes_.erase(node) > 0) slices_changed_ = true;
}

const dra::DeviceUse* SimDevices::Use(const std::string& node) const {
  auto it = nodes_.find(node);
  return it == nodes_.end() ? nullptr : &it->second.use;
}

std::optional<DevicePlacement> SimDevices::Place(const PodDeviceNeeds& needs,
                                                 const std::string& node,
                                                 const dra::DeviceUse* use) const {
  if (needs.devices == nullptr) return DevicePlacement();
  if (use == nullptr) return std::nullopt;
  const std::vector<dra::PodClaim>& claims = needs.devices->claims;
  dra::AllocationRequest request;
  request.classes = needs.devices->classes.get();
  std::vector<size_t> asked;  // the pod's claim each request entry is
  for (size_t i = 0; i < claims.size(); ++i) {
    const dra::PodClaim& c = claims[i];
    if (!c.unresolved.ok() || c.spec == nullptr) return std::nullopt;
    if (c.shared) {
      const SharedClaim& shared = shared_.at(c.claim_key);
      if (!shared.node.empty()) {
        if (shared.node != node) return std::nullopt;  // its devices are on another node
        continue;
      }
    }
    request.claims.push_back(c.spec.get());
    asked.push_back(i);
  }
  DevicePlacement placement(claims.size());
  if (request.claims.empty()) return placement;
  absl::StatusOr<std::vector<std::vector<dra::DevicePick>>> picks =
      dra::Allocate(request, *use, &matches_);
  if (!picks.ok()) return std::nullopt;
  for (size_t i = 0; i < asked.size(); ++i) placement[asked[i]] = std::move((*picks)[i]);
  return placement;
}

dra::ResourceClaim SimDevices::ClaimObject(const std::string& node,
                                           const std::vector<dra::DevicePick>& picks,
                                           dra::ResourceClaim claim) const {
  const dra::NodeDevices& devices = nodes_.at(node).use.devices();
  auto allocation = std::make_shared<dra::ClaimAllocation>();
  for (const dra::DevicePick& p : picks) {
    const dra::DevicePool& pool = devices.pools[p.ref.pool];
    allocation->devices.push_back({p.request, pool.driver, PublishedPoolName(node, pool.name),
                                   pool.devices[p.ref.device].name, p.admin_access});
  }
  // As the scheduler writes it for node-local devices: only this node can use them.
  NodeSelectorTerm term;
  term.match_fields.push_back({"metadata.name", SelectorOp::kIn, {node}});
  allocation->node_selector = NodeSelector{{std::move(term)}};
  claim.allocation = std::move(allocation);
  return claim;
}

std::vector<std::string> SimDevices::Allocate(const PodSpec& pod, const std::string& node,
                                              const PodDeviceNeeds& needs,
                                              const DevicePlacement& placement, double& gpus) {
  std::vector<std::string> made(pod.claim_refs.size());
  gpus = 0;
  if (needs.devices == nullptr) return made;
  NodeState& state = nodes_.at(node);
  Held& held = held_[pod.Key()];
  held.node = node;
  held.uid = pod.uid;
  const std::vector<dra::PodClaim>& claims = needs.devices->claims;
  for (size_t i = 0; i < claims.size() && i < placement.size(); ++i) {
    const dra::PodClaim& c = claims[i];
    const std::vector<dra::DevicePick>& picks = placement[i];
    state.use.Take(picks);
    gpus += PhysicalGpus(state.use.devices(), picks);
    if (c.shared) {
      SharedClaim& shared = shared_.at(c.claim_key);
      if (shared.node.empty()) {
        shared.node = node;
        shared.picks = picks;
      }
      shared.users.push_back(pod.uid);
      held.shared_claims.push_back(c.claim_key);
      PublishShared(shared);
      continue;
    }
    held.picks.insert(held.picks.end(), picks.begin(), picks.end());
    dra::ResourceClaim own;
    own.namespace_name = pod.namespace_name;
    // KEP-5004's claims come after the references, one per extended resource.
    own.name = MadeClaimName(pod, i < pod.claim_refs.size()
                                      ? c.name
                                      : absl::StrCat("extended-", i - pod.claim_refs.size()));
    own.uid = absl::StrCat("uid-", own.namespace_name, "-", own.name);
    own.spec = c.spec;
    own.reserved_for = {pod.uid};
    if (i < made.size()) made[i] = own.name;
    const std::string key = own.Key();
    held.own_claims.push_back(key);
    claims_[key] =
        std::make_shared<const dra::ResourceClaim>(ClaimObject(node, picks, std::move(own)));
  }
  claims_changed_ = true;
  return made;
}

void SimDevices::PublishShared(const SharedClaim& shared) {
  dra::ResourceClaim claim = *shared.object;
  claim.reserved_for = shared.users;
  const std::string key = claim.Key();
  claims_[key] = shared.node.empty() ? std::make_shared<const dra::ResourceClaim>(std::move(claim))
                                     : std::make_shared<const dra::ResourceClaim>(ClaimObject(
                                           shared.node, shared.picks, std::move(claim)));
  claims_changed_ = true;
}

void SimDevices::Release(const std::string& pod_key) {
  auto it = held_.find(pod_key);
  if (it == held_.end()) return;
  Held held = std::move(it->second);
  held_.erase(it);
  auto node = nodes_.find(held.node);
  if (node != nodes_.end()) node->second.use.Release(held.picks);
  for (const std::string& key : held.own_claims) claims_.erase(key);
  for (const std::string& key : held.shared_claims) {
    SharedClaim& shared = shared_.at(key);
    shared.users.erase(std::remove(shared.users.begin(), shared.users.end(), held.uid),
                       shared.users.end());
    if (shared.users.empty()) {
      // The resourceclaim controller deallocates a claim no pod reserves.
      if (auto n = nodes_.find(shared.node); n != nodes_.end()) n->second.use.Release(shared.picks);
      shared.node.clear();
      shared.picks.clear();
    }
    PublishShared(shared);
  }
  claims_changed_ = true;
}

double SimDevices::PhysicalGpus(const dra::NodeDevices& devices,
                                const std::vector<dra::DevicePick>& picks) {
  double gpus = 0;
  for (const dra::DevicePick& p : picks) {
    if (p.admin_access) continue;  // a monitor's view of a device, not a use of it
    const dra::DevicePool& pool = devices.pools[p.ref.pool];
    gpus += GpuShare(pool, pool.devices[p.ref.device]);
  }
  return gpus;
}

void SimDevices::PatchView(ClusterView& view) const {
  if (!objects_shown_) {
    for (const auto& [name, c] : *objects_.classes) {
      view.device_classes.push_back(std::make_shared<const dra::DeviceClass>(c));
    }
    std::sort(view.device_classes.begin(), view.device_classes.end(),
              [](const DeviceClassPtr& a, const DeviceClassPtr& b) { return a->name < b->name; });
    for (const auto& [key, t] : objects_.catalog.templates) {
      view.resource_claim_templates.push_back(t);
    }
    objects_shown_ = true;
  }
  if (claims_changed_) {
    view.resource_claims.clear();
    for (const auto& [key, claim] : claims_) view.resource_claims.push_back(claim);
    claims_changed_ = false;
  }
  if (slices_changed_) {
    view.resource_slices.clear();
    for (const auto& [name, node] : nodes_) {
      view.resource_slices.insert(view.resource_slices.end(), node.slices.begin(),
                                  node.slices.end());
    }
    slices_changed_ = false;
  }
}

const PodSpec& ResolvedShapes::Of(const TraceArrival& arrival) {
  if (!any_) return arrival.shape->spec;
  auto [it, added] = specs_.try_emplace(arrival.shape_id);
  if (added) {
    it->second = arrival.shape->spec;
    const PodDeviceNeeds& needs = devices_.Needs(arrival.shape_id, arrival.shape->spec);
    if (needs.devices != nullptr) {
      ApplyPodDevices({std::make_shared<dra::PodDevices>(*needs.devices), needs.served_requests},
                      it->second);
    }
  }
  return it->second;
}

}  // namespace gpua::sim
