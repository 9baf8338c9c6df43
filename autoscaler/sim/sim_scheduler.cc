#include "autoscaler/sim/sim_scheduler.h"

#include <algorithm>
#include <set>
#include <vector>

#include "estimator/predicates.h"

namespace gpua::sim {
namespace {

double Fraction(int64_t part, int64_t whole) {
  return whole <= 0 ? 0 : static_cast<double>(part) / static_cast<double>(whole);
}

bool PrefersNotTo(const SimNode& node, const SimPod& pod) {
  for (const Taint& t : node.props->taints) {
    if (t.effect != TaintEffect::kPreferNoSchedule) continue;
    bool tolerated = false;
    for (const Toleration& tol : pod.object->spec.tolerations)
      tolerated = tolerated || tol.Tolerates(t);
    if (!tolerated) return true;
  }
  return false;
}

}  // namespace

bool SimScheduler::Admits(const std::string& name, const SimNode& node, const SimPod& pod) {
  const size_t shape = static_cast<size_t>(pod.arrival->shape_id);
  if (node.admits.size() <= shape) node.admits.resize(shape + 1, -1);
  int8_t& verdict = node.admits[shape];
  if (verdict >= 0) return verdict == 1;
  const PodSpec& spec = pod.object->spec;
  bool ok = AdmitsStatically(spec, *node.props, name);
  if (ok && node.props->gpu != nullptr) ok = !CheckGpuFit(spec, *node.props->gpu, policy_);
  verdict = ok ? 1 : 0;
  return ok;
}

double SimScheduler::Score(const SimNode& node, const ResourceVector& free,
                           const SimPod& pod) const {
  const auto left_of = [&](int slot) {
    return Fraction(At(free, slot) - At(pod.request, slot), At(node.allocatable, slot));
  };
  const double left = (left_of(ResourceCatalog::kCpu) + left_of(ResourceCatalog::kMemory)) / 2;
  return scoring_ == Scoring::kLeastAllocated ? left : -left;
}

const SimScheduler::NodeList& SimScheduler::AdmittingNodes(const SimCluster& cluster,
                                                           const SimPod& pod) {
  const size_t shape = static_cast<size_t>(pod.arrival->shape_id);
  if (admitting_.size() <= shape) admitting_.resize(shape + 1);
  Admitting& a = admitting_[shape];
  if (a.nodes_version == cluster.nodes_version()) return a.nodes;
  changed_.clear();
  // Past one change per node, listing the nodes afresh is the cheaper way.
  const bool few = a.nodes_version >= 0 && cluster.nodes_version() - a.nodes_version <=
                                               static_cast<int64_t>(cluster.nodes().size());
  if (few && cluster.NodesChangedSince(a.nodes_version, &changed_)) {
    FollowChanges(cluster, pod, changed_, a.nodes);
  } else {
    a.nodes.clear();
    for (const auto& [name, node] : cluster.nodes()) {
      if (Admits(name, node, pod)) a.nodes.emplace_back(name, &node);
    }
  }
  a.nodes_version = cluster.nodes_version();
  return a.nodes;
}

void SimScheduler::FollowChanges(const SimCluster& cluster, const SimPod& pod,
                                 std::vector<std::string>& changed, NodeList& nodes) {
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  for (const std::string& name : changed) {
    // The list's own names are compared: a node that went left its entry's pointer behind.
    auto at =
        std::lower_bound(nodes.begin(), nodes.end(), name,
                         [](const auto& entry, const std::string& n) { return entry.first < n; });
    if (at != nodes.end() && at->first == name) at = nodes.erase(at);
    auto node = cluster.nodes().find(name);
    if (node != cluster.nodes().end() && Admits(node->first, node->second, pod)) {
      nodes.emplace(at, node->first, &node->second);
    }
  }
}

std::optional<DevicePlacement> SimScheduler::PlaceDevices(const SimCluster& cluster,
                                                          const SimPod& pod,
                                                          const std::string& node,
                                                          const DevicesTaken& taken) {
  if (pod.needs == nullptr || pod.needs->devices == nullptr) return DevicePlacement();
  auto tentative = taken.find(node);
  const dra::DeviceUse* use =
      tentative != taken.end() ? &tentative->second : cluster.devices().Use(node);
  return cluster.devices().Place(*pod.needs, node, use);
}

SimScheduler::Choice SimScheduler::FindNode(const SimCluster& cluster, const SimPod& pod,
                                            const Claims& claims, const DevicesTaken& taken) {
  Choice best;
  bool best_avoided = true;
  double best_score = 0;
  for (const auto& [name, node_ptr] : AdmittingNodes(cluster, pod)) {
    const SimNode& node = *node_ptr;
    auto claimed = claims.find(name);
    const ResourceVector& free = claimed == claims.end() ? node.free : claimed->second;
    if (!Fits(pod.request, free)) continue;
    const bool avoided = PrefersNotTo(node, pod);
    const double score = Score(node, free, pod);
    const bool better = best.node.empty() || (best_avoided && !avoided) ||
                        (avoided == best_avoided && score > best_score);
    if (!better) continue;
    std::optional<DevicePlacement> devices = PlaceDevices(cluster, pod, name, taken);
    if (!devices.has_value()) continue;
    best = {name, *std::move(devices)};
    best_avoided = avoided;
    best_score = score;
  }
  return best;
}

int SimScheduler::ScheduleGang(SimCluster& cluster, const std::string& gang,
                               const std::vector<std::string>& members) {
  const GangRef& ref = *cluster.pod(members.front()).object->spec.gang;
  const int bound = cluster.BoundMembers(gang);
  const int need = ref.min_member > 0 ? ref.min_member : bound + static_cast<int>(members.size());
  Claims claims;
  DevicesTaken taken;
  std::vector<std::pair<std::string, Choice>> placed;  // pod -> node
  for (const std::string& key : members) {
    const SimPod& pod = cluster.pod(key);
    Choice choice = FindNode(cluster, pod, claims, taken);
    if (choice.node.empty()) continue;
    auto [it, added] = claims.try_emplace(choice.node, cluster.nodes().at(choice.node).free);
    SubtractFrom(it->second, pod.request);
    if (const dra::DeviceUse* use = cluster.devices().Use(choice.node); use != nullptr) {
      auto [t, fresh] = taken.try_emplace(choice.node, *use);
      for (const auto& picks : choice.devices) t->second.Take(picks);
    }
    placed.emplace_back(key, std::move(choice));
  }
  int marked = 0;
  if (bound + static_cast<int>(placed.size()) >= need) {
    // Bound in the order placed: each member gets the devices it was placed on.
    for (const auto& [key, choice] : placed) cluster.Bind(key, choice.node, choice.devices);
    for (const std::string& key : members) {
      if (!cluster.IsBound(key)) marked += cluster.MarkUnschedulable(key);
    }
    return marked;
  }
  for (const std::string& key : members) marked += cluster.MarkUnschedulable(key);
  return marked;
}

SimScheduler::Claims SimScheduler::NominatedRoom(const SimCluster& cluster) {
  Claims kept;
  for (const auto& [when, entry] : cluster.pending()) {
    const SimPod& pod = entry->second;
    const std::string& node = pod.object->nominated_node;
    if (node.empty() || pod.object->spec.gang.has_value()) continue;
    auto it = cluster.nodes().find(node);
    if (it == cluster.nodes().end()) continue;
    auto [room, added] = kept.try_emplace(node, it->second.free);
    SubtractFrom(room->second, pod.request);
  }
  return kept;
}

bool SimScheduler::BindNominated(SimCluster& cluster, const std::string& key, const SimPod& pod,
                                 Claims& kept) {
  const std::string name = pod.object->nominated_node;  // binding replaces the pod's object
  auto node = cluster.nodes().find(name);
  auto room = kept.find(name);
  if (node == cluster.nodes().end() || room == kept.end()) return false;
  ResourceVector free = room->second;  // its own room is kept for it
  AddInto(free, pod.request);
  if (!Admits(name, node->second, pod) || !Fits(pod.request, free)) return false;
  std::optional<DevicePlacement> devices = PlaceDevices(cluster, pod, name, {});
  if (!devices.has_value()) return false;
  cluster.Bind(key, name, *devices);
  return true;
}

bool SimScheduler::SomeNodeHasRoom(const SimCluster& cluster, const SimPod& pod) {
  for (const auto& [name, node] : AdmittingNodes(cluster, pod)) {
    if (Fits(pod.request, node->free) && PlaceDevices(cluster, pod, name, {}).has_value()) {
      return true;
    }
  }
  return false;
}

int SimScheduler::Run(SimCluster& cluster) {
  // The pods map's own keys and entries: nothing leaves it during a pass.
  std::vector<SimCluster::PodEntry> order;
  std::map<std::string, std::vector<std::string>> gangs;
  for (const auto& [when, entry] : cluster.pending()) {
    order.push_back(entry);
    const SimPod& pod = entry->second;
    if (pod.object->spec.gang.has_value())
      gangs[pod.object->spec.gang->name].push_back(entry->first);
  }
  // kube-scheduler's nominator: a pending pod nominated to a node is tried there first, and
  // the room it needs there is not given to other pods (none has a higher priority here).
  Claims kept = NominatedRoom(cluster);
  const auto release = [&](const SimPod& pod) {
    auto room = kept.find(pod.object->nominated_node);
    if (room != kept.end()) AddInto(room->second, pod.request);
  };
  const auto take = [&](const std::string& node, const SimPod& pod) {
    auto room = kept.find(node);
    if (room != kept.end()) SubtractFrom(room->second, pod.request);
  };
  int marked = 0;
  std::set<int> no_room;  // shapes that found no node in this pass
  std::set<std::string> gangs_tried;
  for (const SimCluster::PodEntry& entry : order) {
    const std::string& key = entry->first;
    const SimPod& pod = entry->second;
    if (!pod.node.empty()) continue;  // bound with its gang
    // Found no node before, and no room was made since: it finds none now (it is marked).
    if (pod.found_no_node_at == cluster.room_version() && !pod.object->spec.gang.has_value()) {
      continue;
    }
    if (pod.object->spec.gang.has_value()) {
      const std::string& gang = pod.object->spec.gang->name;
      if (gangs_tried.insert(gang).second) marked += ScheduleGang(cluster, gang, gangs[gang]);
      continue;
    }
    const bool nominated = !pod.object->nominated_node.empty();
    // kube-scheduler's queueing hints: an unschedulable pod is tried again only after an event
    // that may let it fit, so a nominated pod no node has room for keeps its nomination.
    if (nominated && pod.object->unschedulable && !SomeNodeHasRoom(cluster, pod)) continue;
    if (nominated && BindNominated(cluster, key, pod, kept)) continue;  // its room was kept
    if (nominated || !no_room.contains(pod.arrival->shape_id)) {
      if (nominated) release(pod);
      Choice choice = FindNode(cluster, pod, kept);
      if (!choice.node.empty()) {
        const std::string node = choice.node;
        cluster.Bind(key, node, choice.devices);
        take(node, pod);
        continue;
      }
      if (nominated) {
        take(pod.object->nominated_node, pod);  // its room stays kept for it
      } else {
        no_room.insert(pod.arrival->shape_id);
      }
    }
    marked += cluster.MarkUnschedulable(entry);
  }
  return marked;
}

}  // namespace gpua::sim
