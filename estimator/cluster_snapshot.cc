#include "estimator/cluster_snapshot.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "estimator/dra/pod_claims.h"
#include "estimator/gpu/gpu_inventory_reader.h"
#include "estimator/gpu/gpu_resource.h"
#include "estimator/node_room.h"

namespace gpua {

std::optional<absl::string_view> SimNode::TopologyValue(absl::string_view key) const {
  if (key == kLabelHostname && (is_new || !props->labels.contains(key))) {
    return absl::string_view(name);
  }
  auto it = props->labels.find(key);
  if (it == props->labels.end()) return std::nullopt;
  return absl::string_view(it->second);
}

std::shared_ptr<const NodeProps> ClusterSnapshot::PropsOf(Node& n) {
  auto props = std::make_shared<NodeProps>();
  props->unschedulable = n.unschedulable;
  props->group_id = n.group_id;
  // A running node's labels say how its GPUs are shared; if they cannot be read, its
  // advertised resources still count, only the sharing rules are not checked.
  // One whose GPUs are DRA devices (no GPU resource advertised) has no device-plugin GPUs.
  if (n.devices == nullptr || AsksForGpus(n.allocatable)) {
    absl::StatusOr<std::optional<GpuInventory>> gpu =
        ReadGpuInventory(n.labels, n.annotations, n.allocatable, n.name);
    if (gpu.ok() && gpu->has_value()) props->gpu = std::make_shared<const GpuInventory>(**gpu);
  }
  // Moved, not copied: the source is kept only for its pods.
  props->labels = std::move(n.labels);
  props->taints = std::move(n.taints);
  props->devices = std::move(n.devices);
  return props;
}

ClusterSnapshot::ClusterSnapshot(std::vector<Node> nodes) { Reset(std::move(nodes)); }

void ClusterSnapshot::Reset(std::vector<Node> nodes) {
  journal_.clear();
  marks_.clear();
  anti_affinity_.clear();
  claim_nodes_.clear();
  match_cache_.Clear();
  // Slots never move, so the catalog could be kept; it starts again only when some node or
  // pod brought names beyond the fixed ones, so names that come and go do not pile up.
  if (catalog_.size() > ResourceCatalog::kFixedSlots) catalog_ = ResourceCatalog();
  source_ = std::move(nodes);
  nodes_.resize(source_.size());
  for (size_t i = 0; i < source_.size(); ++i) Fill(source_[i], i, nodes_[i]);
}

void ClusterSnapshot::Fill(Node& n, size_t index, SimNode& sim) {
  if (n.room != nullptr && n.props != nullptr) {
    TakeRoom(n, index, sim);
    return;
  }
  sim.props = n.props != nullptr ? n.props : PropsOf(n);
  sim.name = std::move(n.name);  // the source is kept only for its pods
  sim.is_new = false;
  sim.room = nullptr;
  sim.changed = false;
  std::optional<ResourceVector> fixed = ResourceCatalog::FixedVector(n.allocatable);
  sim.allocatable = fixed.has_value() ? *std::move(fixed) : catalog_.ToVector(n.allocatable);
  sim.free = sim.allocatable;
  sim.ports.clear();
  sim.pods.clear();
  for (const std::shared_ptr<const PodSpec>& pod : n.pods) {
    SubtractFrom(sim.free, PodRequest(*pod));
    sim.ports.insert(sim.ports.end(), pod->host_ports.begin(), pod->host_ports.end());
    sim.pods.push_back(pod.get());
    NotePlaced(index, pod.get());
  }
  FillDevices(sim, n.device_allocations);
}

void ClusterSnapshot::FillDevices(
    SimNode& sim, const std::shared_ptr<const std::vector<dra::AllocatedDevice>>& allocations) {
  if (sim.props->devices == nullptr) {
    sim.devices = nullptr;
    return;
  }
  sim.devices = std::make_shared<dra::DeviceUse>(sim.props->devices);
  if (allocations != nullptr) sim.devices->TakeAllocated(*allocations);
}

void ClusterSnapshot::TakeRoom(Node& n, size_t index, SimNode& sim) {
  const NodeRoom& room = *n.room;
  // Most nodes of a planner's snapshot kept from loop to loop are as the last loop left them.
  if (sim.room != n.room || sim.props != n.props || sim.changed || sim.is_new ||
      sim.name != n.name) {
    sim.props = n.props;
    sim.name = std::move(n.name);
    sim.is_new = false;
    sim.room = n.room;
    sim.changed = false;
    sim.allocatable = room.allocatable;
    sim.free = room.free;
    sim.ports.assign(room.ports.begin(), room.ports.end());
    sim.pods.assign(room.pods.begin(), room.pods.end());
    FillDevices(sim, n.device_allocations);
  } else if (sim.devices != nullptr || n.props->devices != nullptr) {
    FillDevices(sim, n.device_allocations);  // claims change without the node's room changing
  }
  if (!room.any_anti_affinity) return;
  for (const PodSpec* pod : room.pods) NotePlaced(index, pod);
}

void ClusterSnapshot::NotePlaced(size_t node, const PodSpec* pod, int64_t copies) {
  if (pod->anti_affinity.empty()) return;
  for (int64_t i = 0; i < copies; ++i) anti_affinity_.push_back({node, pod});
}

ResourceVector ClusterSnapshot::PodRequest(const PodSpec& pod) {
  if (std::optional<ResourceVector> fixed = FixedPodRequest(pod)) return *std::move(fixed);
  ResourceVector v = catalog_.ToVector(pod.requests);
  if (v.size() <= ResourceCatalog::kPods) v.resize(ResourceCatalog::kPods + 1, 0);
  v[ResourceCatalog::kPods] = 1;
  return v;
}

size_t ClusterSnapshot::AddNodeFromTemplate(const std::string& name,
                                            std::shared_ptr<const NodeProps> props,
                                            const ResourceVector& allocatable,
                                            const std::vector<const PodSpec*>& daemonset_pods,
                                            const ResourceVector& daemonset_requests) {
  SimNode sim;
  sim.name = name;
  sim.props = std::move(props);
  sim.is_new = true;
  FillDevices(sim, nullptr);
  sim.allocatable = allocatable;
  sim.free = allocatable;
  SubtractFrom(sim.free, daemonset_requests);
  Change change;
  change.anti_affinity_before = anti_affinity_.size();
  for (const PodSpec* pod : daemonset_pods) {
    sim.ports.insert(sim.ports.end(), pod->host_ports.begin(), pod->host_ports.end());
    sim.pods.push_back(pod);
    NotePlaced(nodes_.size(), pod);
  }
  nodes_.push_back(std::move(sim));
  change.kind = Change::Kind::kAddNode;
  change.node = nodes_.size() - 1;
  journal_.push_back(std::move(change));
  return nodes_.size() - 1;
}

void ClusterSnapshot::AddPods(size_t index, const PodSpec* pod, const ResourceVector& request,
                              int64_t copies) {
  SimNode& n = nodes_[index];
  n.changed = true;
  const size_t ports_before = n.ports.size();
  SubtractFrom(n.free, request, copies);
  for (int64_t i = 0; i < copies; ++i) {
    n.ports.insert(n.ports.end(), pod->host_ports.begin(), pod->host_ports.end());
  }
  n.pods.insert(n.pods.end(), static_cast<size_t>(copies), pod);
  Change change;
  change.anti_affinity_before = anti_affinity_.size();
  NotePlaced(index, pod, copies);
  change.kind = Change::Kind::kAddPods;
  change.node = index;
  change.copies = copies;
  change.ports_before = ports_before;
  change.request = request;
  if (pod->devices != nullptr) {
    for (int64_t i = 0; i < copies; ++i) {
      absl::StatusOr<DevicePlan> plan = PlanDevices(*pod, index);
      if (!plan.ok()) continue;  // the caller placed it unchecked: it holds no devices
      if (n.devices != nullptr) n.devices->Take(plan->picks);
      for (const std::string& claim : plan->new_claims) claim_nodes_[claim] = index;
      change.picks.insert(change.picks.end(), plan->picks.begin(), plan->picks.end());
      change.claims.insert(change.claims.end(), plan->new_claims.begin(), plan->new_claims.end());
    }
  }
  journal_.push_back(std::move(change));
}

absl::StatusOr<ClusterSnapshot::DevicePlan> ClusterSnapshot::PlanDevices(const PodSpec& pod,
                                                                         size_t index) const {
  DevicePlan plan;
  if (pod.devices == nullptr) return plan;
  const SimNode& node = nodes_[index];
  std::vector<const dra::ClaimSpec*> to_allocate;
  std::vector<std::string> shared_keys;
  for (const dra::PodClaim& claim : pod.devices->claims) {
    if (!claim.unresolved.ok()) return claim.unresolved;
    if (claim.allocation != nullptr) {
      const std::optional<NodeSelector>& where = claim.allocation->node_selector;
      if (where.has_value() && !where->Matches(node.props->labels, node.name)) {
        return absl::FailedPreconditionError(
            absl::StrCat("claim ", claim.name, " is allocated to devices of other nodes"));
      }
      continue;
    }
    if (claim.shared) {
      auto it = claim_nodes_.find(claim.claim_key);
      if (it != claim_nodes_.end()) {
        if (it->second == index) continue;
        return absl::FailedPreconditionError(absl::StrCat(
            "claim ", claim.name, " gets its devices on node ", nodes_[it->second].name));
      }
      shared_keys.push_back(claim.claim_key);
    }
    to_allocate.push_back(claim.spec.get());
  }
  if (to_allocate.empty()) return plan;
  static const auto* const kNoDevices =
      new dra::DeviceUse(std::make_shared<const dra::NodeDevices>());
  const dra::DeviceUse& use = node.devices != nullptr ? *node.devices : *kNoDevices;
  static const auto* const kNoClasses = new dra::DeviceClasses();
  const dra::DeviceClasses* classes =
      pod.devices->classes != nullptr ? pod.devices->classes.get() : kNoClasses;
  absl::StatusOr<std::vector<std::vector<dra::DevicePick>>> picks =
      dra::Allocate(dra::AllocationRequest{std::move(to_allocate), classes}, use, &match_cache_);
  if (!picks.ok()) return picks.status();
  for (auto& per_claim : *picks) {
    plan.picks.insert(plan.picks.end(), per_claim.begin(), per_claim.end());
  }
  plan.new_claims = std::move(shared_keys);
  return plan;
}

std::optional<std::string> ClusterSnapshot::CheckDevices(const PodSpec& pod, size_t index) const {
  if (pod.devices == nullptr) return std::nullopt;
  absl::StatusOr<DevicePlan> plan = PlanDevices(pod, index);
  if (plan.ok()) return std::nullopt;
  return absl::StrCat("cannot allocate all claims: ", plan.status().message());
}

void ClusterSnapshot::Fork() { marks_.push_back(journal_.size()); }

void ClusterSnapshot::Revert() {
  const size_t mark = marks_.back();
  marks_.pop_back();
  while (journal_.size() > mark) {
    const Change& c = journal_.back();
    if (c.kind == Change::Kind::kAddNode) {
      nodes_.pop_back();
    } else {
      SimNode& n = nodes_[c.node];
      AddInto(n.free, c.request, c.copies);
      n.ports.resize(c.ports_before);
      n.pods.resize(n.pods.size() - static_cast<size_t>(c.copies));
      if (n.devices != nullptr && !c.picks.empty()) n.devices->Release(c.picks);
      for (const std::string& claim : c.claims) claim_nodes_.erase(claim);
    }
    anti_affinity_.resize(c.anti_affinity_before);
    journal_.pop_back();
  }
}

void ClusterSnapshot::Commit() {
  marks_.pop_back();
  if (marks_.empty()) journal_.clear();
}

}  // namespace gpua
