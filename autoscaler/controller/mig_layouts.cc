#include "autoscaler/controller/mig_layouts.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace gpua {

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
