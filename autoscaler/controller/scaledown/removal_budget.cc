#include "autoscaler/controller/scaledown/removal_budget.h"

#include "absl/strings/str_cat.h"

namespace gpua {

RemovalBudget::RemovalBudget(const ClusterState& state, const ScaleDownOptions& options,
                             const ClusterLimits& limits, int drains_under_way,
                             RunningNodeCache& nodes)
    : state_(state),
      options_(options),
      limits_(limits),
      nodes_(nodes),
      // Cores and memory do not depend on the GPU label; asked under the one the limits use,
      // the answers kept for scale-up serve here too.
      gpu_label_(state.provider != nullptr ? state.provider->gpu_label : ""),
      drains_(drains_under_way) {
  above_min_.resize(state.groups.size());
  for (size_t g = 0; g < state.groups.size(); ++g) {
    const GroupState& gs = state.groups[g];
    above_min_[g] = gs.provider->target_size - gs.counts.being_deleted - gs.provider->min_size;
    in_progress_ += gs.counts.being_deleted;
  }
  for (const NodeStatus& s : state.nodes) {
    if (s.condition == NodeCondition::kBeingDeleted) continue;
    const NodeUsage u = nodes_.UsageOf(s.node, gpu_label_);
    cores_ += u.cores;
    memory_ += u.memory_bytes;
  }
}

std::optional<RemovalBudget::Refusal> RemovalBudget::Refuses(int i) {
  const NodeStatus& s = state_.nodes[i];
  const ProviderGroup& g = *state_.groups[s.group].provider;
  if (above_min_[s.group] <= 0) {
    return Refusal{"NodeGroupMinSizeReached",
                   absl::StrCat("node group ", g.id, " is at its min size of ", g.min_size,
                                " counting the nodes already going")};
  }
  const NodeUsage u = nodes_.UsageOf(s.node, gpu_label_);
  if (cores_ - u.cores < limits_.cores.min) {
    return Refusal{
        "MinimalResourceLimitExceeded",
        absl::StrCat("the cluster would fall under its minimum of ", limits_.cores.min, " cores")};
  }
  if (memory_ - u.memory_bytes < limits_.memory_bytes.min) {
    return Refusal{"MinimalResourceLimitExceeded",
                   absl::StrCat("the cluster would fall under its minimum memory of ",
                                limits_.memory_bytes.min >> 30, " GiB")};
  }
  return std::nullopt;
}

bool RemovalBudget::MayStartNow(bool empty) const {
  if (in_progress_ >= options_.max_scale_down_parallelism) return false;
  return empty || drains_ < options_.max_drain_parallelism;
}

void RemovalBudget::Take(int i, bool started, bool empty) {
  const NodeStatus& s = state_.nodes[i];
  --above_min_[s.group];
  const NodeUsage u = nodes_.UsageOf(s.node, gpu_label_);
  cores_ -= u.cores;
  memory_ -= u.memory_bytes;
  if (!started) return;
  ++in_progress_;
  drains_ += !empty;
}

}  // namespace gpua
