#include "autoscaler/controller/mig_layouts.h"

#include "absl/strings/str_cat.h"

namespace gpua {

void MigLayoutAssigner::Expect(const std::string& group, const std::vector<std::string>& layouts) {
  std::deque<std::string>& q = expected_[group];
  q.insert(q.end(), layouts.begin(), layouts.end());
}

std::vector<std::string> MigLayoutAssigner::Expected(const std::string& group) const {
  auto it = expected_.find(group);
  if (it == expected_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

int MigLayoutAssigner::Assign(ClusterState& state) {
  int labelled = 0;
  for (const GroupState& g : state.groups) {
    auto queue = expected_.find(g.id());
    if (queue == expected_.end()) continue;
    for (int i : g.nodes) {
      if (queue->second.empty()) break;
      NodeStatus& s = state.nodes[i];
      if (s.condition == NodeCondition::kBeingDeleted ||
          s.node->annotations.contains(kMigLayoutAssignedAnnotation)) {
        continue;
      }
      const std::string layout = queue->second.front();
      const std::string& name = s.node->node.name;
      // The label, then the mark: a node marked has its layout; one labelled but not yet
      // marked gets the same layout again next loop.
      absl::Status st = writer_.Label(name, kMigConfigLabel, layout);
      if (st.ok()) st = writer_.Annotate(name, kMigLayoutAssignedAnnotation, layout);
      if (!st.ok()) {
        log_.Warning(
            absl::StrCat("Could not give node ", name, " MIG layout ", layout, ": ", st.message()));
        continue;
      }
      log_.Info(absl::StrCat("Node ", name, " of group ", g.id(), " gets MIG layout ", layout));
      queue->second.pop_front();
      s.mig_layout = layout;
      ++labelled;
    }
    if (queue->second.empty()) expected_.erase(queue);
  }
  return labelled;
}

}  // namespace gpua
