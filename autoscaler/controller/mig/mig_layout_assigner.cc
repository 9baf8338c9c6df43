#include "autoscaler/controller/mig/mig_layout_assigner.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "kubeobjects/node_marks.h"

namespace gpua {

void AssignMigLayouts(const MigLayoutBook& book, ClusterState& state) {
  if (book.empty()) return;
  for (GroupState& g : state.groups) {
    const std::vector<std::string>& layouts = book.Of(g.id());
    size_t next = 0;
    for (int i : g.nodes) {
      if (next == layouts.size()) break;
      NodeStatus& s = state.nodes[i];
      if (s.condition == NodeCondition::kBeingDeleted ||
          s.node->annotations.contains(kMigLayoutAssignedAnnotation)) {
        continue;
      }
      s.mig_layout = layouts[next++];
      state.mig_assignments.push_back({i, s.mig_layout});
    }
    const size_t left =
        std::min(layouts.size() - next, static_cast<size_t>(std::max(0, g.upcoming)));
    g.upcoming_mig_layouts.assign(layouts.begin() + next, layouts.begin() + next + left);
  }
}

int MigLayoutAssigner::Write(const ClusterState& state, MigLayoutBook& book) {
  int labelled = 0;
  absl::flat_hash_map<int, int> unwritten;  // by group
  for (const MigAssignment& a : state.mig_assignments) {
    const NodeStatus& s = state.nodes[a.node];
    const std::string& group = state.groups[s.group].id();
    const std::string& name = s.node->node.name;
    // The label, then the mark: a node marked has its layout; one labelled but not yet
    // marked gets the same layout again next loop.
    absl::Status st = writer_.Label(name, kMigConfigLabel, a.layout);
    if (st.ok()) st = writer_.Annotate(name, kMigLayoutAssignedAnnotation, a.layout);
    if (!st.ok()) {
      log_.Warning(
          absl::StrCat("Could not give node ", name, " MIG layout ", a.layout, ": ", st.message()));
      ++unwritten[s.group];
      continue;
    }
    log_.Info(absl::StrCat("Node ", name, " of group ", group, " gets MIG layout ", a.layout));
    book.Registered(group, a.layout);
    ++labelled;
  }
  for (size_t g = 0; g < state.groups.size(); ++g) {
    const GroupState& gs = state.groups[g];
    if (!gs.provider->call_error.ok()) continue;  // what is on its way is not known
    auto u = unwritten.find(static_cast<int>(g));
    book.CutTo(gs.id(), gs.upcoming + (u == unwritten.end() ? 0 : u->second));
  }
  return labelled;
}

}  // namespace gpua
