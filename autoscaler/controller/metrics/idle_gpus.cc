#include "autoscaler/controller/metrics/idle_gpus.h"

#include <optional>

#include "autoscaler/controller/planning/node_use.h"

namespace gpua {

namespace {

IdleCause CauseOf(const NodeStatus& s, size_t i, const std::vector<IdleCause>& causes) {
  if (s.condition == NodeCondition::kNotStarted) return IdleCause::kStarting;
  if (s.condition == NodeCondition::kBeingDeleted) return IdleCause::kRemoving;
  return i < causes.size() ? causes[i] : IdleCause::kOther;
}

// By group: the GPUs of one of its nodes, device-plugin GPUs or DRA devices; 0 for none.
std::vector<int> PhysicalGpus(const ClusterState& state) {
  std::vector<int> out(state.groups.size(), 0);
  for (size_t g = 0; g < state.groups.size(); ++g) out[g] = GroupGpus(*state.groups[g].provider);
  return out;
}

}  // namespace

std::map<std::string, IdleGpuCount> IdleGpus(const ClusterView& view, const ClusterState& state,
                                             const std::vector<double>& known_gpu_use,
                                             const std::vector<IdleCause>& causes,
                                             RunningNodeCache& nodes) {
  // Summed by group index, filed by group name once: a map lookup per GPU node showed.
  std::vector<std::optional<IdleGpuCount>> idle(state.groups.size());
  const std::vector<int> physical = PhysicalGpus(state);
  for (size_t i = 0; i < state.nodes.size(); ++i) {
    const NodeStatus& s = state.nodes[i];
    if (s.group < 0 || physical[s.group] == 0) continue;
    const ProviderGroup& g = *state.groups[s.group].provider;
    double used = 0;
    if (s.condition == NodeCondition::kReady) {
      used = i < known_gpu_use.size() && known_gpu_use[i] >= 0
                 ? known_gpu_use[i]
                 : UtilizationOf(s, g, view, g.options.ignore_daemonsets_utilization, nodes).gpu;
    }
    if (!idle[s.group].has_value()) idle[s.group].emplace();
    idle[s.group]->Add(CauseOf(s, i, causes), physical[s.group] * (1 - used));
  }
  std::map<std::string, IdleGpuCount> out;
  for (size_t g = 0; g < idle.size(); ++g) {
    if (!idle[g].has_value()) continue;
    IdleGpuCount& sum = out[state.groups[g].id()];
    for (size_t c = 0; c < kIdleCauseCount; ++c)
      sum.Add(static_cast<IdleCause>(c), idle[g]->by_cause[c]);
  }
  return out;
}

}  // namespace gpua
