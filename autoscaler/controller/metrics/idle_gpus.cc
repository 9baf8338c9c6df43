#include "autoscaler/controller/metrics/idle_gpus.h"

#include <optional>

#include "autoscaler/controller/scaledown/scale_down_planner.h"

namespace gpua {

std::map<std::string, double> IdleGpus(const ClusterView& view, const ClusterState& state,
                                       const std::vector<double>& known_gpu_use,
                                       RunningNodeCache& nodes) {
  // Summed by group index, filed by group name once: a map lookup per GPU node showed.
  std::vector<std::optional<double>> idle(state.groups.size());
  for (size_t i = 0; i < state.nodes.size(); ++i) {
    const NodeStatus& s = state.nodes[i];
    if (s.group < 0) continue;
    const ProviderGroup& g = *state.groups[s.group].provider;
    if (g.gpus == nullptr) continue;
    double used = 0;
    if (s.condition == NodeCondition::kReady) {
      used = i < known_gpu_use.size() && known_gpu_use[i] >= 0
                 ? known_gpu_use[i]
                 : UtilizationOf(s, g, view, g.options.ignore_daemonsets_utilization, nodes).gpu;
    }
    idle[s.group] = idle[s.group].value_or(0) + g.gpus->physical_count() * (1 - used);
  }
  std::map<std::string, double> out;
  for (size_t g = 0; g < idle.size(); ++g) {
    if (idle[g].has_value()) out[state.groups[g].id()] += *idle[g];
  }
  return out;
}

}  // namespace gpua
