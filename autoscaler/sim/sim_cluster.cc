#include "autoscaler/sim/sim_cluster.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "cloudproviders/simulated/simulated_node.h"
#include "estimator/dra/template_slices.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/gpu/gpu_inventory_reader.h"

namespace gpua::sim {
namespace {

// What the AWS Node Termination Handler puts on a node under a reclaim notice.
constexpr char kUnreachable[] = "node.kubernetes.io/unreachable";
const Taint kNoticeTaint{"aws-node-termination-handler/spot-itn", "true", TaintEffect::kNoSchedule};

std::string NodeName(absl::string_view provider_id) {
  absl::ConsumePrefix(&provider_id, "sim://");
  std::string name(provider_id);
  std::replace(name.begin(), name.end(), '/', '-');
  return name;
}

void SetTaint(std::vector<Taint>& taints, const Taint& taint) {
  for (Taint& t : taints) {
    if (t.key == taint.key) {
      t = taint;
      return;
    }
  }
  taints.push_back(taint);
}

void DropTaint(std::vector<Taint>& taints, absl::string_view key) {
  taints.erase(
      std::remove_if(taints.begin(), taints.end(), [&](const Taint& t) { return t.key == key; }),
      taints.end());
}

}  // namespace

SimCluster::SimCluster(const std::vector<NodeGroupConfig>& groups, Clock& clock,
                       const std::shared_ptr<const DraObjects>& dra)
    : clock_(clock), configs_(groups), devices_(dra, configs_) {
  for (const NodeGroupConfig& c : configs_) {
    const NodeTemplate& t = c.spec.node_template;
    absl::StatusOr<std::optional<GpuInventory>> gpus =
        ReadGpuInventory(t.labels, t.annotations, t.allocatable, c.spec.id);
    // A pool whose GPUs are DRA devices has no device plugin: its GPU labels advertise nothing.
    const bool devices = dra::GpusAreDevices(!t.resource_slices.empty(), t.allocatable);
    groups_[c.spec.id] = {&c, gpus.ok() && !devices ? *gpus : std::nullopt};
    const std::optional<GpuInventory>& g = groups_[c.spec.id].gpus;
    if (g.has_value() && g->sharing() != GpuSharing::kExclusive) {
      share_spread_.AddPool(c.spec.id, g->physical_count());
    }
    WarmObjects warm = WarmBuffersOf(c, g);
    warm_.buffers.insert(warm_.buffers.end(), warm.buffers.begin(), warm.buffers.end());
    warm_.templates.insert(warm_.templates.end(), warm.templates.begin(), warm.templates.end());
  }
}

std::shared_ptr<const ClusterView> SimCluster::View() const {
  if (view_ == nullptr) {
    view_ = std::make_shared<ClusterView>();
    view_->capacity_buffers = warm_.buffers;
    view_->pod_templates = warm_.templates;
  } else if (view_.use_count() > 1) {  // someone still reads the last one
    view_ = std::make_shared<ClusterView>(*view_);
  }
  ClusterView& view = *view_;
  view.taken = clock_.Now();
  if (patch_.nodes) {
    view.nodes.clear();
    for (const auto& [name, node] : nodes_) view.nodes.push_back(node.object);
  }
  PatchPods(view);
  PatchNodePods(view);
  jobs_.PatchView(view);
  devices_.PatchView(view);
  patch_.pods.clear();
  patch_.node_pods.clear();
  if (patch_.config_maps) {
    view.config_maps.clear();
    for (const auto& [key, cm] : config_maps_) view.config_maps.push_back(cm);
  }
  patch_.nodes = false;
  patch_.config_maps = false;
  return view_;
}

void SimCluster::PatchPods(ClusterView& view) const {
  bool unschedulable_changed = false;
  for (const std::string& key : patch_.pods) {
    auto it = pods_.find(key);
    const PodPtr* object = it == pods_.end() ? nullptr : &it->second.object;
    if (object == nullptr) {
      view.pods.erase(key);
    } else {
      view.pods[key] = *object;
    }
    if (object != nullptr && (*object)->spec.node_name.empty() && (*object)->unschedulable) {
      unschedulable_[key] = *object;
      unschedulable_changed = true;
    } else {
      unschedulable_changed |= unschedulable_.erase(key) > 0;
    }
  }
  if (!unschedulable_changed) return;
  view.unschedulable.clear();
  for (const auto& [key, pod] : unschedulable_) view.unschedulable.push_back(pod);
}

void SimCluster::PatchNodePods(ClusterView& view) const {
  for (const std::string& name : patch_.node_pods) {
    auto node = nodes_.find(name);
    if (node == nodes_.end() || node->second.pods.empty()) {
      view.pods_by_node.erase(name);
      continue;
    }
    std::vector<PodPtr>& on_node = view.pods_by_node[name];
    on_node.clear();
    for (const auto& [key, pod] : node->second.pods) on_node.push_back(pod->object);
  }
}

// --- nodes -----------------------------------------------------------------------------

namespace {

// Whether pods that one admits the other admits too: the same labels, cordon and taints
// that keep pods off (a PreferNoSchedule taint, such as the autoscaler's deletion-candidate
// mark, only lowers a node's score).
bool SameAdmission(const NodeProps& a, const NodeProps& b) {
  const auto hard = [](const Taint& t) { return t.effect != TaintEffect::kPreferNoSchedule; };
  auto ta = a.taints.begin(), tb = b.taints.begin();
  for (;; ++ta, ++tb) {
    ta = std::find_if(ta, a.taints.end(), hard);
    tb = std::find_if(tb, b.taints.end(), hard);
    if (ta == a.taints.end() || tb == b.taints.end()) break;
    if (!(*ta == *tb)) return false;
  }
  return ta == a.taints.end() && tb == b.taints.end() && a.unschedulable == b.unschedulable &&
         a.labels == b.labels;
}

}  // namespace

void SimCluster::Publish(SimNode& node, NodeObject object) {
  auto props = std::make_shared<NodeProps>();
  props->labels = object.node.labels;
  props->taints = object.node.taints;
  props->unschedulable = object.node.unschedulable;
  props->group_id = node.group->config->spec.id;
  if (node.group->gpus.has_value()) {
    props->gpu = std::make_shared<const GpuInventory>(*node.group->gpus);
  }
  // Marking a node a deletion candidate, annotating it or advertising its GPUs changes no
  // verdict: the scheduler's lists of admitting nodes stay as they are.
  const bool same_admission = node.props != nullptr && SameAdmission(*node.props, *props);
  node.props = std::move(props);
  node.object = std::make_shared<const NodeObject>(std::move(object));
  patch_.nodes = true;
  ++room_version_;
  if (same_admission) return;
  node.admits.clear();
  node_changes_.Note(node.object->node.name);
}

void SimCluster::Advertise(SimNode& node, NodeObject& object) {
  const NodeTemplate& t = node.group->config->spec.node_template;
  auto layout = object.node.labels.find(kMigConfigLabel);
  object.node.allocatable = AdvertisedAllocatable(
      t, node.group->gpus, layout == object.node.labels.end() ? "" : layout->second,
      node.gpus_ready);
  // The device plugin's health check marks the GPU that fell off the bus unhealthy: the
  // kubelet advertises one whole GPU fewer.
  if (const Quantity gpus = object.node.allocatable.Get("nvidia.com/gpu");
      node.gpu_failed_at.has_value() && gpus.Sign() > 0) {
    object.node.allocatable.Set("nvidia.com/gpu", gpus - Quantity::FromUnits(1));
  }
  object.capacity = object.node.allocatable;
  SubtractFrom(node.free, node.allocatable);
  node.allocatable = catalog_.ToVector(object.node.allocatable);
  AddInto(node.free, node.allocatable);
}

absl::Status SimCluster::ChangeNode(const std::string& name,
                                    const std::function<void(NodeObject&)>& change) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return absl::NotFoundError(absl::StrCat("node ", name, " not found"));
  NodeObject object = *it->second.object;
  change(object);
  Publish(it->second, std::move(object));
  return absl::OkStatus();
}

bool SimCluster::SyncNodes(const std::vector<Machine>& machines) {
  bool changed = false;
  // Runs after every controller loop: nodes are marked found, not collected into a set.
  ++sync_round_;
  const absl::Time now = clock_.Now();
  for (const Machine& m : machines) {
    const bool ready = now >= m.gpu_ready_at;
    const bool noticed = m.reclaim_at.has_value();
    auto known = node_of_machine_.find(m.provider_id);
    if (known == node_of_machine_.end()) {
      const std::string name = NodeName(m.provider_id);
      auto node = nodes_.find(name);
      if (node == nodes_.end()) {
        AddNode(name, m, ready, noticed);
        nodes_.at(name).synced = sync_round_;
        changed = true;
        continue;
      }
      known = node_of_machine_.emplace(m.provider_id, node).first;
    }
    auto it = known->second;
    it->second.synced = sync_round_;
    if (it->second.gpus_ready != ready || it->second.noticed != noticed ||
        it->second.gpu_failed_at != m.gpu_failed_at) {
      SimNode& node = it->second;
      node.gpus_ready = ready;
      node.noticed = noticed;
      NodeObject object = *node.object;
      NoteGpuFailure(node, m, object);
      Advertise(node, object);
      if (noticed) SetTaint(object.node.taints, kNoticeTaint);
      if (ready) devices_.Publish(it->first, node.group->config->spec.id);
      Publish(node, std::move(object));
      changed = true;
    }
  }
  std::vector<std::string> gone;
  for (auto& [name, node] : nodes_) {
    if (node.synced == sync_round_) continue;
    if (node.lingers_until.has_value()) {
      if (now >= *node.lingers_until) gone.push_back(name);
    } else if (lingers_ && lingers_()) {
      Orphan(node, now + kNodeObjectLingerTime);
      changed = true;
    } else {
      gone.push_back(name);
    }
  }
  for (const std::string& name : gone) RemoveNode(name);
  return changed || !gone.empty();
}

void SimCluster::Orphan(SimNode& node, absl::Time until) {
  node.lingers_until = until;
  const std::string name = node.object->node.name;
  absl::erase_if(node_of_machine_, [&](const auto& known) { return known.second->first == name; });
  std::vector<std::string> pods;
  for (const auto& [key, pod] : node.pods) pods.push_back(key);
  for (const std::string& key : pods) Recreate(Remove(key));
  NodeObject object = *node.object;
  object.ready = false;
  // What the node lifecycle controller puts on a node whose kubelet stopped reporting.
  DropTaint(object.node.taints, kUnreachable);
  object.node.taints.push_back(Taint{kUnreachable, "", TaintEffect::kNoSchedule});
  object.node.taints.push_back(Taint{kUnreachable, "", TaintEffect::kNoExecute});
  Publish(node, std::move(object));
}

absl::Time SimCluster::NextLingerEnd() const {
  absl::Time next = absl::InfiniteFuture();
  for (const auto& [name, node] : nodes_) {
    if (node.lingers_until.has_value()) next = std::min(next, *node.lingers_until);
  }
  return next;
}

void SimCluster::AddNode(const std::string& name, const Machine& m, bool gpus_ready, bool noticed) {
  const SimGroup& group = groups_.at(m.group);
  const NodeTemplate& t = group.config->spec.node_template;
  NodeObject object;
  object.node.name = name;
  object.node.labels = t.labels;
  object.node.labels.insert_or_assign("kubernetes.io/hostname", name);
  object.node.taints = t.taints;
  if (noticed) SetTaint(object.node.taints, kNoticeTaint);
  object.annotations = t.annotations;
  object.provider_id = m.provider_id;
  object.ready = true;
  object.created = clock_.Now();
  auto [entry, added] = nodes_.try_emplace(name);
  node_of_machine_[m.provider_id] = entry;
  SimNode& node = entry->second;
  node.group = &group;
  node.gpus_ready = gpus_ready;
  node.noticed = noticed;
  NoteGpuFailure(node, m, object);
  Advertise(node, object);
  // Its DRA drivers publish when its GPUs are up, as its device plugin advertises them.
  if (gpus_ready) devices_.Publish(name, m.group);
  Publish(node, std::move(object));
}

void SimCluster::NoteGpuFailure(SimNode& node, const Machine& m, NodeObject& object) {
  if (!m.gpu_failed_at.has_value() || node.gpu_failed_at.has_value()) return;
  node.gpu_failed_at = m.gpu_failed_at;
  ++accounts_.gpu_failures;
  // What EKS's node monitoring agent says of a GPU that fell off the bus.
  object.conditions.push_back({"AcceleratedHardwareReady", "False", "NvidiaXID79Error",
                               "GPU has fallen off the bus", m.gpu_failed_at});
}

void SimCluster::RemoveNode(const std::string& name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return;
  if (const std::optional<absl::Time>& failed = it->second.gpu_failed_at; failed.has_value()) {
    const absl::Duration broken = clock_.Now() - *failed;
    accounts_.broken_node_time[it->second.group->config->spec.id] += broken;
    accounts_.broken_seconds.push_back(static_cast<float>(absl::ToDoubleSeconds(broken)));
  }
  std::vector<std::string> pods;
  for (const auto& [key, pod] : it->second.pods) pods.push_back(key);
  for (const std::string& key : pods) Recreate(Remove(key));
  devices_.Withdraw(name);
  patch_.nodes = true;
  patch_.node_pods.insert(name);
  node_changes_.Note(name);
  absl::erase_if(node_of_machine_, [&](const auto& known) { return known.second == it; });
  nodes_.erase(it);
}

int SimCluster::BoundMembers(const std::string& gang) const {
  auto it = gang_bound_.find(gang);
  return it == gang_bound_.end() ? 0 : it->second;
}

int SimCluster::NodesOf(const std::string& group) const {
  int n = 0;
  for (const auto& [name, node] : nodes_) n += node.group->config->spec.id == group;
  return n;
}

// --- the KubeWriter ----------------------------------------------------------------------

absl::Status SimCluster::AddTaint(const std::string& node, const Taint& taint) {
  return ChangeNode(node, [&](NodeObject& n) { SetTaint(n.node.taints, taint); });
}

absl::Status SimCluster::RemoveTaint(const std::string& node, const std::string& key) {
  return ChangeNode(node, [&](NodeObject& n) { DropTaint(n.node.taints, key); });
}

absl::Status SimCluster::SetUnschedulable(const std::string& node, bool unschedulable) {
  return ChangeNode(node, [&](NodeObject& n) { n.node.unschedulable = unschedulable; });
}

absl::Status SimCluster::Annotate(const std::string& node, const std::string& key,
                                  std::optional<std::string> value) {
  return ChangeNode(node, [&](NodeObject& n) {
    if (value.has_value() && !value->empty()) {
      n.annotations.insert_or_assign(key, *value);
    } else {
      n.annotations.erase(key);
    }
  });
}

absl::Status SimCluster::Label(const std::string& node, const std::string& key,
                               std::optional<std::string> value) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return absl::NotFoundError(absl::StrCat("node ", node, " not found"));
  SimNode& n = it->second;
  NodeObject object = *n.object;
  if (value.has_value() && !value->empty()) {
    object.node.labels.insert_or_assign(key, *value);
  } else {
    object.node.labels.erase(key);
  }
  // The MIG manager applies a new layout; the device plugin then advertises its devices.
  if (key == kMigConfigLabel) Advertise(n, object);
  Publish(n, std::move(object));
  return absl::OkStatus();
}

absl::Status SimCluster::DeleteNode(const std::string& node) {
  RemoveNode(node);
  return absl::OkStatus();
}

absl::Status SimCluster::Nominate(const std::string& namespace_name, const std::string& name,
                                  std::optional<std::string> node) {
  auto it = pods_.find(absl::StrCat(namespace_name, "/", name));
  if (it == pods_.end())
    return absl::NotFoundError(absl::StrCat("pod ", namespace_name, "/", name));
  SimPod& pod = it->second;
  if (!pod.node.empty()) return absl::OkStatus();  // bound: the API server clears it
  const std::string nominated = node.value_or("");
  if (pod.object->nominated_node == nominated) return absl::OkStatus();
  UpdatePod(pod, [&](PodObject& p) { p.nominated_node = nominated; });
  pod.found_no_node_at = -1;  // its node keeps room for it now: worth another try
  return absl::OkStatus();
}

absl::StatusOr<EvictionResult> SimCluster::Evict(const std::string& namespace_name,
                                                 const std::string& name,
                                                 std::optional<absl::Duration> grace) {
  auto it = pods_.find(absl::StrCat(namespace_name, "/", name));
  if (it == pods_.end()) return EvictionResult::kGone;
  SimPod& pod = it->second;
  if (pod.stopping) return EvictionResult::kEvicted;
  if (pod.node.empty()) {  // nothing runs: it is deleted, and its Job makes it again
    Recreate(Remove(it->first));
    return EvictionResult::kEvicted;
  }
  // The Eviction API's check (the pod is healthy: bound and not terminating): its budget
  // must allow a disruption now, or the answer is 429 and the pod stays.
  if (std::shared_ptr<const PdbObject> budget = BudgetOf(pod);
      budget != nullptr && budget->disruptions_allowed <= 0) {
    ++accounts_.evictions_refused;
    return EvictionResult::kBlockedByBudget;
  }
  jobs_.CountHealthy(pod.object->spec, -1);
  pod.stopping = true;
  UpdatePod(pod, [](PodObject& p) { p.terminating = true; });
  const absl::Duration own = pod.object->termination_grace.value_or(absl::Seconds(30));
  const absl::Duration wait = grace.has_value() ? std::min(*grace, own) : own;
  due_.push({clock_.Now() + wait, it->first, pod.incarnation, PodEnd::kStopped});
  return EvictionResult::kEvicted;
}

absl::Status SimCluster::RecordEvent(const EventRecord&) {
  ++accounts_.events;
  return absl::OkStatus();
}

absl::Status SimCluster::WriteConfigMap(const std::string& namespace_name, const std::string& name,
                                        const std::map<std::string, std::string>& data,
                                        const std::map<std::string, std::string>& annotations) {
  ChangeConfigMap(namespace_name, name, [&](ConfigMapObject& cm) {
    cm.data = Labels(data.begin(), data.end());
    for (const auto& [k, v] : annotations) cm.annotations.insert_or_assign(k, v);
  });
  return absl::OkStatus();
}

absl::Status SimCluster::AnnotateConfigMap(const std::string& namespace_name,
                                           const std::string& name,
                                           const std::map<std::string, std::string>& annotations) {
  ChangeConfigMap(namespace_name, name, [&](ConfigMapObject& cm) {
    for (const auto& [k, v] : annotations) cm.annotations.insert_or_assign(k, v);
  });
  return absl::OkStatus();
}

void SimCluster::ChangeConfigMap(const std::string& namespace_name, const std::string& name,
                                 const std::function<void(ConfigMapObject&)>& change) {
  std::shared_ptr<const ConfigMapObject>& kept =
      config_maps_[absl::StrCat(namespace_name, "/", name)];
  auto cm = kept == nullptr ? std::make_shared<ConfigMapObject>()
                            : std::make_shared<ConfigMapObject>(*kept);
  cm->namespace_name = namespace_name;
  cm->name = name;
  change(*cm);
  kept = std::move(cm);
  patch_.config_maps = true;
}

// --- pods ----------------------------------------------------------------------------------

void SimCluster::UpdatePod(SimPod& pod, const std::function<void(PodObject&)>& change) {
  PodObject object = *pod.object;
  change(object);
  pod.object = std::make_shared<const PodObject>(std::move(object));
  PodChanged(pod.object->spec.Key(), pod.node);
}

void SimCluster::PodChanged(const std::string& key, const std::string& node) {
  patch_.pods.insert(key);
  if (!node.empty()) patch_.node_pods.insert(node);
}

void SimCluster::Arrive(const TraceArrival& arrival) {
  for (int i = 0; i < arrival.count; ++i) {
    AddPendingPod(arrival, arrival.count == 1 ? arrival.name : absl::StrCat(arrival.name, "-", i),
                  0);
  }
}

void SimCluster::AddPendingPod(const TraceArrival& arrival, const std::string& name,
                               int incarnation) {
  const absl::Time now = clock_.Now();
  const auto name_of = [&](int i) { return i == 0 ? name : absl::StrCat(name, "-r", i); };
  // A trace's names are its own (ParseTrace refuses repeats), but a line may be named as
  // another's pod made anew ("x-r1"): the pod there keeps its name, this one takes the next.
  const std::string& ns = arrival.shape->spec.namespace_name;
  while (pods_.contains(absl::StrCat(ns, "/", name_of(incarnation)))) ++incarnation;
  const std::string pod_name = name_of(incarnation);
  PodObject object = *arrival.shape;
  object.spec.name = pod_name;
  object.spec.uid = absl::StrCat("uid-", object.spec.namespace_name, "-", pod_name);
  object.created = now;
  SimPod pod;
  pod.arrival = &arrival;
  pod.incarnation = incarnation;
  pod.created = now;
  pod.base_name = name;
  pod.seq = seq_++;
  const size_t shape = static_cast<size_t>(arrival.shape_id);
  pod.needs = &devices_.Needs(arrival.shape_id, object.spec);
  if (shape_requests_.size() <= shape) shape_requests_.resize(shape + 1);
  if (!shape_requests_[shape].has_value()) {
    // An extended resource its devices serve is not asked of the node (KEP-5004).
    ResourceList requests;
    for (const auto& [name, q] : object.spec.requests) {
      const std::vector<std::string>& served = pod.needs->served_requests;
      if (std::find(served.begin(), served.end(), name) == served.end()) requests.Set(name, q);
    }
    ResourceVector request = catalog_.ToVector(requests);
    if (request.size() <= ResourceCatalog::kPods) request.resize(ResourceCatalog::kPods + 1, 0);
    request[ResourceCatalog::kPods] = 1;
    shape_requests_[shape] = std::move(request);
  }
  pod.request = *shape_requests_[shape];
  pod.object = std::make_shared<const PodObject>(std::move(object));
  const std::string key = pod.object->spec.Key();
  jobs_.PodCreated(pod.object->spec, arrival.count, arrival.min_available);
  const int64_t seq = pod.seq;
  pending_[{now, seq}] = pods_.insert_or_assign(key, std::move(pod)).first;
  PodChanged(key, "");
}

bool SimCluster::IsBound(const std::string& key) const {
  auto it = pods_.find(key);
  return it != pods_.end() && !it->second.node.empty();
}

bool SimCluster::MarkUnschedulable(const std::string& key) { return Mark(pods_.at(key)); }

bool SimCluster::MarkUnschedulable(const PodEntry& pending_pod) {
  return Mark(pending_pod->second);
}

bool SimCluster::Mark(SimPod& pod) {
  pod.found_no_node_at = room_version_;
  // A failed attempt clears the nominated node, as kube-scheduler does (1.35, and before 1.34).
  if (pod.object->unschedulable && pod.object->nominated_node.empty()) return false;
  UpdatePod(pod, [](PodObject& p) {
    p.unschedulable = true;
    p.nominated_node.clear();
  });
  return true;
}

void SimCluster::Bind(const std::string& key, const std::string& node_name,
                      const DevicePlacement& devices) {
  const absl::Time now = clock_.Now();
  SimPod& pod = pods_.at(key);
  SimNode& node = nodes_.at(node_name);
  pending_.erase({pod.created, pod.seq});
  double device_gpus = 0;
  const std::vector<std::string> made =
      devices_.Allocate(pod.object->spec, node_name, *pod.needs, devices, device_gpus);
  UpdatePod(pod, [&](PodObject& p) {
    // status.resourceClaimStatuses: the claims made for its templates.
    for (size_t i = 0; i < made.size() && i < p.spec.claim_refs.size(); ++i) {
      if (!made[i].empty()) p.spec.claim_refs[i].made_claim = made[i];
    }
    p.spec.node_name = node_name;
    p.phase = "Running";
    p.started = now;
    p.unschedulable = false;
    p.nominated_node.clear();
  });
  pod.bound = now;
  pod.node = node_name;
  if (node.gpu_failed_at.has_value()) {
    ++accounts_.pods_bound_to_broken;
    if (broken_binds_.size() < 10000) {
      broken_binds_.push_back(
          {key, node_name, node.group->config->spec.id, *node.gpu_failed_at, now});
    }
  }
  jobs_.CountHealthy(pod.object->spec, +1);
  SubtractFrom(node.free, pod.request);
  node.pods.emplace(key, &pod);
  PodChanged(key, node_name);
  if (node.group->gpus.has_value() && pod.arrival->gpu) {
    const NodeObject& n = *node.object;
    auto layout_label = n.node.labels.find(kMigConfigLabel);
    const NamedMigLayout* layout = node.group->gpus->LayoutNamed(
        layout_label == n.node.labels.end() ? "" : absl::string_view(layout_label->second));
    pod.gpus = PhysicalGpuUtilization(*node.group->gpus, layout, pod.object->spec.requests) *
               node.group->gpus->physical_count();
    gpus_in_use_[node.group->config->spec.id] += pod.gpus;
    share_spread_.NodeUse(node.group->config->spec.id, node.gpus_used, node.gpus_used + pod.gpus,
                          now);
    node.gpus_used += pod.gpus;
  } else if (device_gpus > 0) {
    pod.gpus = device_gpus;
    gpus_in_use_[node.group->config->spec.id] += pod.gpus;
    node.gpus_used += pod.gpus;
  }
  const float waited = static_cast<float>(absl::ToDoubleSeconds(now - pod.created));
  const std::string& group = node.group->config->spec.id;
  accounts_.pending_seconds.push_back(waited);
  accounts_.pending_seconds_by_group[group].push_back(waited);
  if (pod.arrival->gpu) {
    accounts_.gpu_pending_seconds.push_back(waited);
    accounts_.gpu_pending_seconds_by_group[group].push_back(waited);
  }
  ++accounts_.pods_bound;
  if (pod.object->spec.gang.has_value()) ++gang_bound_[pod.object->spec.gang->name];
  due_.push({now + pod.arrival->run_for, key, pod.incarnation, PodEnd::kFinished});
}

// A copy, on purpose: the map entry `key` may name is erased.
SimPod SimCluster::Remove(std::string key) {  // NOLINT(performance-unnecessary-value-param)
  auto it = pods_.find(key);
  SimPod pod = std::move(it->second);
  pods_.erase(it);
  PodChanged(key, pod.node);
  devices_.Release(key);
  if (pod.node.empty()) {
    pending_.erase({pod.created, pod.seq});
  } else if (auto n = nodes_.find(pod.node); n != nodes_.end()) {
    if (pod.object->spec.gang.has_value()) --gang_bound_[pod.object->spec.gang->name];
    SimNode& node = n->second;
    AddInto(node.free, pod.request);
    ++room_version_;
    node.pods.erase(key);
    if (pod.gpus > 0) {
      const std::string& group = node.group->config->spec.id;
      gpus_in_use_[group] -= pod.gpus;
      accounts_.gpu_time_used[group] += pod.gpus * (clock_.Now() - pod.bound);
      share_spread_.NodeUse(group, node.gpus_used, node.gpus_used - pod.gpus, clock_.Now());
      node.gpus_used -= pod.gpus;
    }
  }
  jobs_.PodGone(pod.object->spec, !pod.node.empty() && !pod.stopping);
  return pod;
}

void SimCluster::Recreate(const SimPod& lost) {
  ++accounts_.pods_restarted;
  AddPendingPod(*lost.arrival, lost.base_name, lost.incarnation + 1);
  if (lost.object->spec.gang.has_value()) RestartGang(lost.object->spec.gang->name);
}

void SimCluster::RestartGang(const std::string& gang) {
  std::vector<std::string> running;
  for (const auto& [key, pod] : pods_) {
    if (!pod.node.empty() && pod.object->spec.gang.has_value() &&
        pod.object->spec.gang->name == gang) {
      running.push_back(key);
    }
  }
  for (const std::string& key : running) {
    const SimPod pod = Remove(key);
    ++accounts_.pods_restarted;
    AddPendingPod(*pod.arrival, pod.base_name, pod.incarnation + 1);
  }
}

absl::Time SimCluster::NextPodEvent() const {
  return due_.empty() ? absl::InfiniteFuture() : due_.top().at;
}

bool SimCluster::EndDuePods() {
  const absl::Time now = clock_.Now();
  bool any = false;
  while (!due_.empty() && due_.top().at <= now) {
    const DuePod due = due_.top();
    due_.pop();
    auto it = pods_.find(due.key);
    if (it == pods_.end() || it->second.incarnation != due.incarnation || it->second.node.empty()) {
      continue;  // ended another way already
    }
    any = true;
    SimPod pod = Remove(due.key);
    if (due.end == PodEnd::kFinished) {
      ++accounts_.pods_finished;
    } else {
      Recreate(pod);
    }
  }
  return any;
}

void SimCluster::Close() {
  const absl::Time now = clock_.Now();
  for (const auto& [name, node] : nodes_) {
    if (!node.gpu_failed_at.has_value()) continue;
    accounts_.broken_node_time[node.group->config->spec.id] += now - *node.gpu_failed_at;
    ++accounts_.broken_at_end;
  }
  for (const auto& [key, pod] : pods_) {
    if (pod.node.empty()) {
      const float waited = static_cast<float>(absl::ToDoubleSeconds(now - pod.created));
      accounts_.pending_seconds.push_back(waited);
      if (pod.arrival->gpu) accounts_.gpu_pending_seconds.push_back(waited);
    } else if (pod.gpus > 0) {
      const std::string& group = nodes_.at(pod.node).group->config->spec.id;
      accounts_.gpu_time_used[group] += pod.gpus * (now - pod.bound);
    }
  }
}

}  // namespace gpua::sim
