#include "autoscaler/controller/model/preemptions.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace gpua {
namespace {

std::string Signal(const NodeStatus& s, const ClusterState& state) {
  const GroupState& g = state.groups[s.group];
  const ProviderGroup& p = *g.provider;
  if (absl::string_view taint = s.node->Marks().interruption_source; !taint.empty()) {
    return std::string(taint);
  }
  if (!p.call_error.ok() || s.node->provider_id.empty()) return "";
  if (s.instance != nullptr) {
    return s.instance->state == InstanceState::kDeleting
               ? absl::StrCat("node group ", p.id, " lists its instance as deleting")
               : "";
  }
  // A listing can lag or glitch: only a node whose kubelet has stopped reporting too is lost.
  if (s.condition != NodeCondition::kUnready) return "";
  return absl::StrCat("node group ", p.id, " no longer lists its instance ", s.node->provider_id,
                      " and the node is not ready");
}

}  // namespace

std::vector<Preemption> DetectPreemptions(const ClusterState& state) {
  std::vector<Preemption> out;
  for (size_t i = 0; i < state.nodes.size(); ++i) {
    const NodeStatus& s = state.nodes[i];
    if (s.group < 0 || s.condition == NodeCondition::kBeingDeleted) continue;
    std::string signal = Signal(s, state);
    if (!signal.empty()) out.push_back({static_cast<int>(i), std::move(signal)});
  }
  return out;
}

void MarkPreempted(const std::vector<Preemption>& preemptions, ClusterState& state) {
  for (const Preemption& p : preemptions) CountAsBeingDeleted(p.node, state);
}

}  // namespace gpua
