#include "autoscaler/controller/model/group_resizer.h"

#include "absl/strings/str_cat.h"

namespace gpua {

absl::StatusOr<NodeGroup*> SnapshotGroupResizer::Handle(absl::string_view group) const {
  const ProviderGroup* g = snapshot_.Find(group);
  if (g == nullptr || g->group == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("node group ", group, " is not among the provider's groups this loop"));
  }
  return g->group.get();
}

absl::Status SnapshotGroupResizer::IncreaseSize(absl::string_view group, int delta) {
  absl::StatusOr<NodeGroup*> g = Handle(group);
  if (!g.ok()) return g.status();
  return (*g)->IncreaseSize(delta);
}

absl::Status SnapshotGroupResizer::DeleteNodes(absl::string_view group,
                                               const std::vector<NodeRef>& nodes) {
  absl::StatusOr<NodeGroup*> g = Handle(group);
  if (!g.ok()) return g.status();
  return (*g)->DeleteNodes(nodes);
}

}  // namespace gpua
