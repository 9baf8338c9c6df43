#include "autoscaler/controller/repair/node_health.h"

#include <optional>

#include "absl/strings/str_cat.h"

namespace gpua {

std::string UnhealthyNode::Describe(absl::Time now) const {
  std::string out = absl::StrCat(policy.Reason(), " for ", absl::FormatDuration(now - since));
  if (!detail.empty()) absl::StrAppend(&out, " (", detail, ")");
  return out;
}

std::optional<UnhealthyNode> NodeHealthJudge::Signal(
    const NodeStatus& s, const RepairPolicy& p, absl::Time now,
    absl::flat_hash_map<std::string, absl::Time>& seen) const {
  const NodeObject& n = *s.node;
  UnhealthyNode out;
  std::optional<absl::Time> since;
  switch (p.signal) {
    case RepairSignal::kCondition: {
      const NodeConditionStatus* c = n.Condition(p.name);
      if (c == nullptr || c->status != p.status) return std::nullopt;
      since = c->last_transition;
      out.detail = c->reason;
      if (!c->message.empty()) {
        absl::StrAppend(&out.detail, out.detail.empty() ? "" : ": ", c->message.substr(0, 200));
      }
      break;
    }
    case RepairSignal::kTaint:
      if (!HasTaint(n.node, p.name)) return std::nullopt;
      break;
    case RepairSignal::kGpusMissing:
      // Past its startup (not started is the startup rules' to judge) and Ready otherwise.
      if (!s.gpus_pending || s.condition != NodeCondition::kUnready) return std::nullopt;
      out.detail = "its allocatable or ResourceSlices show fewer GPUs than its group's template";
      break;
  }
  if (!since.has_value()) {
    const std::string key = absl::StrCat(n.node.name, "\x1f", p.Key());
    auto it = first_seen_.find(key);
    since = it == first_seen_.end() ? now : it->second;
    seen[key] = *since;
  }
  out.policy = p;
  out.since = std::min(*since, now);
  return out;
}

std::vector<UnhealthyNode> NodeHealthJudge::Judge(const ClusterState& state, absl::Time now) {
  std::vector<UnhealthyNode> out;
  absl::flat_hash_map<std::string, absl::Time> seen;
  for (size_t i = 0; i < state.nodes.size(); ++i) {
    const NodeStatus& s = state.nodes[i];
    if (s.group < 0 || s.condition == NodeCondition::kNotStarted ||
        s.condition == NodeCondition::kBeingDeleted) {
      continue;
    }
    std::optional<UnhealthyNode> first;
    for (const RepairPolicy& p : policies_.For(state.groups[s.group].id())) {
      std::optional<UnhealthyNode> u = Signal(s, p, now, seen);
      if (u.has_value() && (!first.has_value() || u->due() < first->due())) first = std::move(u);
    }
    if (!first.has_value()) continue;
    first->node = static_cast<int>(i);
    out.push_back(*std::move(first));
  }
  first_seen_ = std::move(seen);  // signals gone are forgotten: a return starts a new clock
  return out;
}

}  // namespace gpua
