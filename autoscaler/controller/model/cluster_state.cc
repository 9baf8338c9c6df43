#include "autoscaler/controller/model/cluster_state.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "autoscaler/controller/model/preemptions.h"
#include "estimator/gpu/gpu_resource.h"

namespace gpua {
namespace {

// True when allocatable holds at least what `expected` lists.
bool Holds(const ResourceList& allocatable, const ResourceList& expected) {
  for (const auto& [name, q] : expected) {
    if (allocatable.Get(name) < q) return false;
  }
  return !expected.empty();
}

}  // namespace

bool StillStarting(const NodeObject& node, const ClusterStateOptions& options) {
  for (const Taint& t : node.node.taints) {
    if (IsReadinessTaint(t, options.startup_taints)) return true;
  }
  for (const std::string& type : options.readiness_conditions) {
    const NodeConditionStatus* c = node.Condition(type);
    if (c != nullptr && c->status != "True") return true;
  }
  return false;
}

void NodeCounts::Add(const NodeCounts& o) {
  registered += o.registered;
  ready += o.ready;
  not_started += o.not_started;
  being_deleted += o.being_deleted;
  unready += o.unready;
  resource_unready += o.resource_unready;
  unregistered += o.unregistered;
  long_unregistered += o.long_unregistered;
}

void CountAsBeingDeleted(int node, ClusterState& state) {
  NodeStatus& s = state.nodes[node];
  if (s.condition == NodeCondition::kBeingDeleted || s.group < 0) return;
  for (NodeCounts* c : {&state.groups[s.group].counts, &state.totals}) {
    int& was = s.condition == NodeCondition::kReady        ? c->ready
               : s.condition == NodeCondition::kNotStarted ? c->not_started
                                                           : c->unready;
    --was;
    if (s.condition == NodeCondition::kUnready && s.gpus_pending) --c->resource_unready;
    ++c->being_deleted;
  }
  s.condition = NodeCondition::kBeingDeleted;
}

const GroupState* ClusterState::FindGroup(absl::string_view id) const {
  for (const GroupState& g : groups) {
    if (g.id() == id) return &g;
  }
  return nullptr;
}

bool GpusAdvertised(const NodeObject& node, const GpuInventory& gpus) {
  const ResourceList& allocatable = node.node.allocatable;
  const std::vector<NamedMigLayout>& layouts = gpus.mig_layouts();
  if (layouts.empty()) return Holds(allocatable, *gpus.SharedAdvertised());
  // A node whose label names one of the pool's layouts is held to that one; else any.
  if (const std::string& layout = node.Marks().mig_layout; !layout.empty()) {
    const NamedMigLayout* named = gpus.LayoutNamed(layout);
    if (named->name == layout) return Holds(allocatable, *gpus.SharedAdvertised(named));
  }
  return std::any_of(layouts.begin(), layouts.end(), [&](const NamedMigLayout& l) {
    return Holds(allocatable, *gpus.SharedAdvertised(&l));
  });
}

bool DevicesPublished(const NodeDeviceState* node, const NodeTemplate& t) {
  absl::flat_hash_map<std::string, size_t> promised;  // devices by driver
  for (const auto& slice : t.resource_slices) promised[slice->driver] += slice->devices.size();
  absl::flat_hash_map<std::string, size_t> published;
  if (node != nullptr && node->devices != nullptr) {
    for (const dra::DevicePool& pool : node->devices->pools) {
      published[pool.driver] += pool.devices.size();
    }
    for (const std::string& incomplete : node->devices->incomplete) {
      // "driver/pool": a driver still publishing is not done.
      const std::string driver = incomplete.substr(0, incomplete.find('/'));
      if (promised.contains(driver)) return false;
    }
  }
  for (const auto& [driver, count] : promised) {
    auto it = published.find(driver);
    if (it == published.end() || it->second < count) return false;
  }
  return true;
}

void ClusterStateBuilder::ClassifyNode(NodeStatus& s, const ProviderGroup* group,
                                       const NodeDeviceState* devices, absl::Time now) const {
  const NodeObject& n = *s.node;
  const bool young = now - s.registered_at < options_.max_node_startup_time;
  const NodeTemplate* t =
      group != nullptr && group->node_template.has_value() ? &*group->node_template : nullptr;
  if (n.Marks().to_be_deleted) {
    s.condition = NodeCondition::kBeingDeleted;
  } else if (!n.ready) {
    s.condition = young ? NodeCondition::kNotStarted : NodeCondition::kUnready;
  } else if ((group != nullptr && group->gpus != nullptr && !GpusAdvertised(n, *group->gpus)) ||
             (dra_ && t != nullptr && !t->resource_slices.empty() &&
              !DevicesPublished(devices, *t))) {
    // Ready, but the driver and device plugin (or DRA driver) are not done: its GPUs are on
    // their way.
    s.gpus_pending = true;
    s.condition = young ? NodeCondition::kNotStarted : NodeCondition::kUnready;
  } else if (StillStarting(n, options_)) {
    s.readiness_pending = true;
    s.condition = young ? NodeCondition::kNotStarted : NodeCondition::kUnready;
  }
}

ClusterState ClusterStateBuilder::Build(const ClusterView& view, const ProviderSnapshot& provider,
                                        NodeGroupBackoff& backoff, absl::Time now) {
  ClusterState state;
  state.now = now;
  state.provider = &provider;
  state.groups.resize(provider.groups.size());
  for (size_t g = 0; g < provider.groups.size(); ++g) {
    state.groups[g].provider = &provider.groups[g];
  }
  state.node_index.reserve(view.nodes.size());
  std::vector<bool> instance_listed;  // by state node: whether some group lists its instance
  std::vector<int> listing;           // by state node: its group's first listing of it, or -1
  instance_listed.reserve(view.nodes.size());
  listing.reserve(view.nodes.size());
  for (const NodePtr& n : view.nodes) {
    NodeStatus s;
    s.node = n;
    s.registered_at = n->created == absl::InfinitePast() ? now - absl::Hours(24 * 365) : n->created;
    const auto instance = provider.instance_listing.find(n->provider_id);
    const bool listed = instance != provider.instance_listing.end();
    instance_listed.push_back(listed);
    if (!n->provider_id.empty() && listed) {
      s.group = static_cast<int>(instance->second.group);
    } else if (auto byname = provider.group_of_node.find(n->node.name);
               byname != provider.group_of_node.end()) {
      s.group = static_cast<int>(byname->second);
    }
    listing.push_back(listed && s.group == static_cast<int>(instance->second.group)
                          ? static_cast<int>(instance->second.index)
                          : -1);
    ClassifyNode(s, s.group >= 0 ? &provider.groups[s.group] : nullptr,
                 view.DevicesOf(n->node.name), now);
    s.mig_layout = n->Marks().mig_layout;
    const int index = static_cast<int>(state.nodes.size());
    state.node_index[absl::string_view(n->node.name)] = index;
    if (s.group >= 0) state.groups[s.group].nodes.push_back(index);
    state.nodes.push_back(std::move(s));
  }
  for (size_t gi = 0; gi < state.groups.size(); ++gi) {
    GroupState& g = state.groups[gi];
    for (int i : g.nodes) {
      const NodeStatus& s = state.nodes[i];
      ++g.counts.registered;
      switch (s.condition) {
        case NodeCondition::kReady:
          ++g.counts.ready;
          break;
        case NodeCondition::kUnready:
          ++g.counts.unready;
          g.counts.resource_unready += s.gpus_pending;
          break;
        case NodeCondition::kNotStarted:
          ++g.counts.not_started;
          break;
        case NodeCondition::kBeingDeleted:
          ++g.counts.being_deleted;
          break;
      }
    }
    CountInstances(gi, state, instance_listed, listing, now);
    state.totals.Add(g.counts);
  }
  // Nodes of no group count towards the cluster's readiness, but a GPU node without its
  // GPUs is only ours to judge when its group's template says what it should have.
  for (const NodeStatus& s : state.nodes) {
    if (s.group >= 0) continue;
    ++state.totals.registered;
    if (s.condition == NodeCondition::kReady) ++state.totals.ready;
    if (s.condition == NodeCondition::kNotStarted) ++state.totals.not_started;
    if (s.condition == NodeCondition::kUnready) ++state.totals.unready;
    if (s.condition == NodeCondition::kBeingDeleted) ++state.totals.being_deleted;
  }
  // Forget instances no group lists any more, so the memory does not grow without bound.
  absl::erase_if(unregistered_since_, [&](const auto& entry) {
    return !provider.instance_listing.contains(entry.first);
  });
  JudgeHealth(state);
  if (provider.error.ok()) BackOffStaleGroups(state, backoff, now);
  for (GroupState& g : state.groups) g.backoff = backoff.Get(g.id(), now);
  state.preemptions = DetectPreemptions(state);
  MarkPreempted(state.preemptions, state);
  return state;
}

void ClusterStateBuilder::BackOffStaleGroups(ClusterState& state, NodeGroupBackoff& backoff,
                                             absl::Time now) const {
  for (const GroupState& g : state.groups) {
    if (!g.failed.empty()) {
      const InstanceError& e = *g.failed.front().error;
      backoff.Fail(g.id(), InstanceErrorCode(e), e.message, now);
    }
    if (!g.long_unregistered.empty()) {
      backoff.Fail(g.id(), "timeout",
                   absl::StrCat(g.long_unregistered.size(), " node(s) did not register within ",
                                absl::FormatDuration(g.provider->options.max_node_provision_time)),
                   now);
    }
  }
}

std::string InstanceErrorCode(const InstanceError& e) {
  if (!e.code.empty()) return e.code;
  return e.error_class == InstanceErrorClass::kOutOfResources ? "OutOfResource" : "OtherError";
}

void ClusterStateBuilder::CountInstances(size_t gi, ClusterState& state,
                                         const std::vector<bool>& instance_listed,
                                         const std::vector<int>& listing, absl::Time now) {
  GroupState& g = state.groups[gi];
  const ProviderGroup& p = *g.provider;
  static const std::vector<size_t> kUnindexed;
  const std::vector<size_t>& first =
      gi < state.provider->first_listing.size() ? state.provider->first_listing[gi] : kUnindexed;
  // The group's first listing of an ID -> the first of its nodes with that ID.
  std::vector<int> node_of(p.instances.size(), -1);
  for (int i : g.nodes) {
    const int at = listing[i];
    if (at >= 0 && static_cast<size_t>(at) < node_of.size() && node_of[at] < 0) node_of[at] = i;
  }
  int listed = 0;
  for (size_t k = 0; k < p.instances.size(); ++k) {
    const Instance& inst = p.instances[k];
    const int node = k < first.size() ? node_of[first[k]] : -1;
    if (node >= 0 && state.nodes[node].instance == nullptr) {
      state.nodes[node].instance = &inst;  // the first listing, should one repeat
    }
    if (inst.state == InstanceState::kDeleting) continue;
    ++listed;
    if (node >= 0) {
      if (!unregistered_since_.empty()) unregistered_since_.erase(inst.id);
      continue;
    }
    if (inst.error.has_value()) {
      g.failed.push_back(inst);
      continue;
    }
    const absl::Time since = unregistered_since_.try_emplace(inst.id, now).first->second;
    if (now - since >= p.options.max_node_provision_time) {
      ++g.counts.long_unregistered;
      g.long_unregistered.push_back(inst);
    } else {
      ++g.counts.unregistered;
      ++g.upcoming;
    }
  }
  // A provider may report a larger target before it lists the instances; nodes whose
  // instance it does not list still take their place in the target.
  const int unlisted_nodes = static_cast<int>(
      std::count_if(g.nodes.begin(), g.nodes.end(), [&](int i) { return !instance_listed[i]; }));
  g.upcoming += std::max(0, p.target_size - listed - unlisted_nodes);
}

void ClusterStateBuilder::JudgeHealth(ClusterState& state) const {
  const auto too_many = [&](const NodeCounts& c) {
    return c.unready > options_.ok_total_unready_count &&
           c.unready > options_.max_total_unready_percentage / 100.0 * c.registered;
  };
  for (GroupState& g : state.groups) g.healthy = !too_many(g.counts);
  if (too_many(state.totals)) {
    state.healthy = false;
    state.unhealthy_reason =
        absl::StrFormat("%d of %d registered nodes are unready (more than %d and more than %.0f%%)",
                        state.totals.unready, state.totals.registered,
                        options_.ok_total_unready_count, options_.max_total_unready_percentage);
  }
}

}  // namespace gpua
