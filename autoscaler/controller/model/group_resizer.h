// What the actuators may ask of the cloud, and no more: grow a group, or remove given
// instances from it (which lowers its target). Reading the provider is the loop's, once a
// loop (ProviderSnapshot); an actuator that could read would have a second, later view.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_GROUP_RESIZER_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_GROUP_RESIZER_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "autoscaler/controller/model/provider_snapshot.h"
#include "cloudproviders/cloud_provider.h"

namespace gpua {

class GroupResizer {
 public:
  virtual ~GroupResizer() = default;
  virtual absl::Status IncreaseSize(absl::string_view group, int delta) = 0;
  virtual absl::Status DeleteNodes(absl::string_view group, const std::vector<NodeRef>& nodes) = 0;
};

// Through the NodeGroup handles of the loop's provider read, so an actuator changes exactly
// the groups its plan was made from. A group the read did not list is NotFound.
class SnapshotGroupResizer final : public GroupResizer {
 public:
  explicit SnapshotGroupResizer(const ProviderSnapshot& snapshot) : snapshot_(snapshot) {}

  absl::Status IncreaseSize(absl::string_view group, int delta) override;
  absl::Status DeleteNodes(absl::string_view group, const std::vector<NodeRef>& nodes) override;

 private:
  absl::StatusOr<NodeGroup*> Handle(absl::string_view group) const;

  const ProviderSnapshot& snapshot_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_GROUP_RESIZER_H_
