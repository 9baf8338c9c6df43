// A new node asked for to replace others (replacement_planner.h), until they are gone. Nodes of
// its group that registered since it was asked for are taken for it: they stay, and take the
// replaced nodes' pods whatever their price per GPU, which is what they came for.
//
// It is kept in the cluster (KeptReplacement, in the status ConfigMap) before the node is
// asked for: a controller that restarts, or a new leader, carries it on instead of judging
// the new node idle and the replaced nodes needed.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_PENDING_REPLACEMENT_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_PENDING_REPLACEMENT_H_

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "autoscaler/controller/model/cluster_state.h"

namespace gpua {

inline constexpr char kReplacementAnnotation[] = "gpu-autoscaler.io/replacement-under-way";

struct PendingReplacement {
  std::string group;
  std::vector<std::string> replaced;  // node names
  absl::Time asked_at;
  absl::Time until;  // given up then: the new node is judged like any other
  bool IsReplacementNode(const NodeStatus& s, const ClusterState& state) const {
    return s.group >= 0 && state.groups[s.group].id() == group && s.node->created >= asked_at;
  }
  bool Replaces(const std::string& node) const {
    return std::find(replaced.begin(), replaced.end(), node) != replaced.end();
  }
  bool operator==(const PendingReplacement&) const = default;
};

// The replacement under way, if any, as StatusAnnotationStore keeps it.
struct KeptReplacement {
  std::optional<PendingReplacement> pending;

  bool empty() const { return !pending.has_value(); }
  // {"group":"l4","replaced":["h100-3"],"askedAt":"...","until":"..."} (RFC 3339); "{}" for none.
  std::string ToJson() const;
  // Errors name `what` (the ConfigMap and its annotation) and the field that is wrong.
  static absl::StatusOr<KeptReplacement> FromJson(const std::string& text, const std::string& what);
  bool operator==(const KeptReplacement&) const = default;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEDOWN_PENDING_REPLACEMENT_H_
