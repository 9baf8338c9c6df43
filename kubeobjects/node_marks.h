// The marks the autoscaler reads off a node every loop: the taints cluster-autoscaler (and so
// we) put on nodes it removes or may remove, the annotations that steer removal, the MIG
// layout label, and the taints that say a spot node is being reclaimed. Read once per node object
// (NodeObject::Marks()): a loop asks of every node several times, and scanning its taints and
// labels each time showed.
#ifndef GPUA_KUBEOBJECTS_NODE_MARKS_H_
#define GPUA_KUBEOBJECTS_NODE_MARKS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "estimator/node.h"

namespace gpua {

inline constexpr char kToBeDeletedTaint[] = "ToBeDeletedByClusterAutoscaler";
inline constexpr char kDeletionCandidateTaint[] = "DeletionCandidateOfClusterAutoscaler";

// The annotation that says why a node carrying ToBeDeletedByClusterAutoscaler is removed:
// "empty", "underutilized", "unready" or "preempted".
inline constexpr char kRemovalReasonAnnotation[] = "gpu-autoscaler.io/removal-reason";
inline constexpr char kPreemptedReason[] = "preempted";
inline constexpr char kScaleDownDisabledAnnotation[] =
    "cluster-autoscaler.kubernetes.io/scale-down-disabled";
// On a node that has had its MIG layout from us: a restart never relabels it.
inline constexpr char kMigLayoutAssignedAnnotation[] = "gpu-autoscaler.io/mig-layout-assigned";

// Node repair (autoscaler/controller/repair/): the taint that keeps pods off a node found
// broken past its toleration (its value names the signal), the annotation that says a repair
// has begun and why (written before anything else is done), the one that names the group asked
// for its replacement (written before the ask), and the removal reason of its deletion.
inline constexpr char kUnhealthyTaint[] = "gpu-autoscaler.io/unhealthy";
inline constexpr char kRepairAnnotation[] = "gpu-autoscaler.io/repair";
inline constexpr char kRepairReplacementAnnotation[] = "gpu-autoscaler.io/repair-replacement";
inline constexpr char kRepairReason[] = "repair";

struct NodeMarks {
  bool to_be_deleted = false;
  // The taint's value read as Unix seconds, as cluster-autoscaler writes it; unset when the
  // taint is missing or its value is not a number.
  std::optional<absl::Time> to_be_deleted_since;
  bool deletion_candidate = false;
  std::optional<absl::Time> candidate_since;
  bool scale_down_disabled = false;  // the annotation is "true"
  std::string removal_reason;        // the annotation's value; empty when missing
  std::string mig_layout;            // its nvidia.com/mig.config label; empty when missing
  // What put the first spot-interruption taint it carries, in words (a termination handler's
  // or a cloud's own); empty when it carries none.
  absl::string_view interruption_source;
  bool unhealthy = false;          // it carries kUnhealthyTaint
  std::string repair;              // kRepairAnnotation's value; empty when missing
  std::string repair_replacement;  // kRepairReplacementAnnotation's value
};

NodeMarks ReadNodeMarks(const Node& node, const Labels& annotations);

// The value of the first taint `key` whose value is Unix seconds.
std::optional<absl::Time> TaintTime(const Node& node, absl::string_view key);
bool HasTaint(const Node& node, absl::string_view key);

// The Node Readiness Controller's taints (gpu-operator's nvidia-gpu-not-ready among them):
// removed once the node's readiness conditions hold.
inline constexpr absl::string_view kReadinessTaintPrefix = "readiness.k8s.io/";

// Whether `key` is one of `keys`, or under one of them that ends in '/'.
bool TaintKeyMatches(absl::string_view key, const std::vector<std::string>& keys);

// A taint that says the node is still starting: cluster-autoscaler's startup (and ignore)
// prefixes, the Node Readiness Controller's, and the keys of --startup-taint (`startup`).
bool IsReadinessTaint(const Taint& taint, const std::vector<std::string>& startup = {});

// The taints a node carries only while it starts (not-ready, uninitialized, and the
// start-up and status taints users mark with cluster-autoscaler's prefixes) or while we
// remove it: none of them says anything about where pods will run once it is up.
bool IsStartupTaint(const Taint& taint, const std::vector<std::string>& ignored = {});

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_NODE_MARKS_H_
