#include "autoscaler/controller/scaleup/nominations.h"

#include "absl/strings/str_cat.h"

namespace gpua {
namespace {

// A group's node that an unmatched nomination made at `since` may be: registered since the
// nomination and not started, or started since.
bool Fresh(const NodeStatus& s, absl::Time since) {
  // creationTimestamp has whole seconds: a node made in the increase's second counts.
  const bool since_nominated = s.registered_at >= since - absl::Seconds(1);
  return s.condition == NodeCondition::kNotStarted ||
         (s.condition == NodeCondition::kReady && since_nominated);
}

}  // namespace

void Nominations::Update(const ClusterState& state, const std::vector<PodPtr>& unschedulable,
                         absl::Time now, LogSink& log) {
  absl::flat_hash_set<absl::string_view> pending;
  for (const PodPtr& p : unschedulable) pending.insert(p->spec.uid);
  for (auto it = of_pod_.begin(); it != of_pod_.end();) {
    auto current = it++;
    if (pending.contains(current->first)) continue;
    planned_[current->second].pods.erase(current->first);  // it bound, or went
    of_pod_.erase(current);
  }
  Adopt(state, unschedulable, now);
  of_slot_.clear();
  held_.clear();
  absl::flat_hash_set<absl::string_view> claimed;
  std::vector<uint64_t> unmatched;
  std::vector<std::pair<uint64_t, std::string>> ended;
  for (auto& [id, p] : planned_) {
    p.slot = {};
    if (p.pods.empty()) {
      ended.emplace_back(id, "");
      continue;
    }
    const GroupState* g = state.FindGroup(p.group);
    if (g == nullptr) {
      ended.emplace_back(id, absl::StrCat("node group ", p.group, " is gone"));
      continue;
    }
    const absl::Duration provision = g->provider->options.max_node_provision_time;
    if (now - p.since > provision) {
      ended.emplace_back(id, absl::StrCat("no node of group ", p.group, " took it within ",
                                          absl::FormatDuration(provision)));
      continue;
    }
    if (!g->provider->call_error.ok()) {
      held_.insert(id);
      continue;
    }
    const int group = static_cast<int>(g - state.groups.data());
    if (p.node.empty()) {
      unmatched.push_back(id);
      continue;
    }
    auto at = state.node_index.find(p.node);
    const NodeStatus* s = at == state.node_index.end() ? nullptr : &state.nodes[at->second];
    if (s == nullptr || s->group != group ||
        (s->condition != NodeCondition::kNotStarted && s->condition != NodeCondition::kReady)) {
      ended.emplace_back(id, absl::StrCat("its node ", p.node, " failed or left"));
      continue;
    }
    p.slot = {group, at->second, -1};
    claimed.insert(s->node->node.name);
  }
  std::vector<int> next_upcoming(state.groups.size(), 0);
  for (uint64_t id : unmatched) {
    Planned& p = planned_[id];
    const int group = static_cast<int>(state.FindGroup(p.group) - state.groups.data());
    int best = -1;
    for (int n : state.groups[group].nodes) {
      const NodeStatus& s = state.nodes[n];
      if (claimed.contains(s.node->node.name) || !Fresh(s, p.since)) continue;
      if (best < 0 || s.registered_at < state.nodes[best].registered_at) best = n;
    }
    if (best >= 0) {
      p.node = state.nodes[best].node->node.name;
      p.slot = {group, best, -1};
      claimed.insert(state.nodes[best].node->node.name);
    } else if (next_upcoming[group] < state.groups[group].upcoming) {
      p.slot = {group, -1, next_upcoming[group]++};
    } else {
      ended.emplace_back(
          id, absl::StrCat("no node of group ", p.group, " is on its way for it any more"));
    }
  }
  for (const auto& [id, why] : ended) End(id, why, log);
  for (const auto& [id, p] : planned_) {
    if (p.slot.group >= 0) of_slot_[KeyOf(p.slot)] = id;
  }
}

bool Nominations::Held(const std::string& uid) const {
  auto it = of_pod_.find(uid);
  return it != of_pod_.end() && held_.contains(it->second);
}

const NodeSlot* Nominations::SlotOf(const std::string& uid) const {
  auto it = of_pod_.find(uid);
  if (it == of_pod_.end()) return nullptr;
  const NodeSlot& slot = planned_.at(it->second).slot;
  return slot.group >= 0 ? &slot : nullptr;
}

bool Nominations::OnItsWay(const std::string& uid, const ClusterState& state) const {
  const NodeSlot* slot = SlotOf(uid);
  if (slot == nullptr) return false;
  return slot->upcoming >= 0 ||
         state.nodes[slot->state_node].condition == NodeCondition::kNotStarted;
}

void Nominations::Adopt(const ClusterState& state, const std::vector<PodPtr>& unschedulable,
                        absl::Time now) {
  absl::flat_hash_map<absl::string_view, uint64_t> by_node;
  for (const auto& [id, p] : planned_) {
    if (!p.node.empty()) by_node[p.node] = id;
  }
  for (const PodPtr& pod : unschedulable) {
    const std::string& node = pod->nominated_node;
    if (node.empty() || of_pod_.contains(pod->spec.uid)) continue;
    auto at = state.node_index.find(node);
    if (at == state.node_index.end()) continue;
    const NodeStatus& s = state.nodes[at->second];
    // A starting node of a group: an increase was for it (the scheduler nominates pods only
    // to nodes whose room it would free by preemption, and a starting node runs nothing).
    if (s.group < 0 || s.condition != NodeCondition::kNotStarted) continue;
    auto [it, added] = by_node.try_emplace(s.node->node.name, next_id_);
    if (added) {
      Planned p;
      p.group = state.groups[s.group].id();
      p.node = s.node->node.name;
      p.since = now;
      planned_.emplace(next_id_++, std::move(p));
    }
    Join(it->second, pod->spec);
  }
}

void Nominations::Place(const PodSpec& pod, const NodeSlot& slot, const ClusterState& state,
                        absl::Time now) {
  const NodeSlot* current = SlotOf(pod.uid);
  if (current != nullptr && *current == slot) return;
  auto found = of_slot_.find(KeyOf(slot));
  if (found != of_slot_.end()) {
    Join(found->second, pod);
    return;
  }
  Planned p;
  p.group = state.groups[slot.group].id();
  if (slot.state_node >= 0) p.node = state.nodes[slot.state_node].node->node.name;
  p.since = now;
  p.slot = slot;
  const uint64_t id = next_id_++;
  planned_.emplace(id, std::move(p));
  of_slot_[KeyOf(slot)] = id;
  Join(id, pod);
}

void Nominations::Miss(const PodSpec& pod, absl::string_view why, LogSink& log) {
  auto it = of_pod_.find(pod.uid);
  if (it == of_pod_.end()) return;
  const Planned& p = planned_[it->second];
  log.Info(absl::StrCat("Pod ", pod.Key(), " no longer fits the node of group ", p.group,
                        p.node.empty() ? "" : absl::StrCat(" (", p.node, ")"),
                        " it was nominated to: ", why, "; planned again"));
  Release(p, pod.uid);
  Drop(pod.uid);
}

void Nominations::Increase(const std::string& group, const std::vector<std::vector<PodPtr>>& nodes,
                           absl::Time now) {
  for (const std::vector<PodPtr>& pods : nodes) {
    if (pods.empty()) continue;
    Planned p;
    p.group = group;
    p.since = now;
    const uint64_t id = next_id_++;
    planned_.emplace(id, std::move(p));
    for (const PodPtr& pod : pods) Join(id, pod->spec);
  }
}

void Nominations::End(uint64_t id, absl::string_view why, LogSink& log) {
  auto it = planned_.find(id);
  if (it == planned_.end()) return;
  if (!why.empty() && log.V(1)) {
    for (const auto& [uid, ref] : it->second.pods) {
      log.Info(
          absl::StrCat("Pod ", ref.first, "/", ref.second, ": its nomination to a node of group ",
                       it->second.group, " ended: ", why),
          1);
    }
  }
  for (const auto& [uid, key] : it->second.pods) {
    Release(it->second, uid);
    of_pod_.erase(uid);
  }
  planned_.erase(it);
}

void Nominations::Release(const Planned& p, const std::string& uid) {
  if (p.node.empty()) return;  // nothing was written for a node not registered
  auto pod = p.pods.find(uid);
  if (pod == p.pods.end()) return;
  released_.push_back({pod->second.first, pod->second.second, p.node});
}

std::vector<Nominations::Released> Nominations::TakeReleased() {
  std::vector<Released> out;
  out.swap(released_);
  return out;
}

void Nominations::Drop(const std::string& uid) {
  auto it = of_pod_.find(uid);
  if (it == of_pod_.end()) return;
  auto p = planned_.find(it->second);
  if (p != planned_.end()) p->second.pods.erase(uid);
  of_pod_.erase(it);
}

void Nominations::Join(uint64_t id, const PodSpec& pod) {
  Drop(pod.uid);
  planned_[id].pods[pod.uid] = {pod.namespace_name, pod.name};
  of_pod_[pod.uid] = id;
}

}  // namespace gpua
