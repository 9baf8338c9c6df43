#include "cloudproviders/cloud_provider.h"

#include "absl/strings/str_cat.h"

namespace gpua {

bool IsNotImplemented(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnimplemented;
}

absl::Status NotImplemented(absl::string_view what) {
  return absl::UnimplementedError(absl::StrCat(what, " is not implemented by this provider"));
}

absl::string_view InstanceStateName(InstanceState state) {
  switch (state) {
    case InstanceState::kRunning:
      return "running";
    case InstanceState::kCreating:
      return "creating";
    case InstanceState::kDeleting:
      return "deleting";
    case InstanceState::kUnspecified:
      break;
  }
  return "unspecified";
}

absl::StatusOr<std::shared_ptr<NodeGroup>> FindNodeGroup(CloudProvider& provider,
                                                         absl::string_view id) {
  absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> groups = provider.NodeGroups();
  if (!groups.ok()) return groups.status();
  for (const auto& g : *groups) {
    if (g->Id() == id) return g;
  }
  return absl::NotFoundError(absl::StrCat("no node group \"", id, "\""));
}

}  // namespace gpua
