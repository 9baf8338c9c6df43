// Repair policies as data: which signal says a node is broken, how long it may say so before
// the node is repaired (its toleration), and what is done then. A signal is a node condition
// at a status (what Node Problem Detector, EKS's node monitoring agent, NVSentinel and the
// kubelet set), a taint (for tools that taint), or a GPU node advertising fewer GPUs (or DRA
// devices) than its group's template promises. Built-in defaults cover the names those agents
// use; --gpu-repair-policy names a file that changes them, for the cluster and per group.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_REPAIR_POLICY_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_REPAIR_POLICY_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace gpua {

enum class RepairSignal { kCondition, kTaint, kGpusMissing };

// What is done to a node past its toleration. Only replacement: none of the providers spoken
// here (externalgrpc, Cluster API, the simulated cloud) has a call that reboots a node.
enum class RepairAction { kReplace };

struct RepairPolicy {
  RepairSignal signal = RepairSignal::kCondition;
  std::string name;    // the condition's type or the taint's key; empty for kGpusMissing
  std::string status;  // the condition's status that is unhealthy ("False", "True", "Unknown")
  absl::Duration toleration = absl::Minutes(10);
  RepairAction action = RepairAction::kReplace;

  // What it is known by in events, the status and the metric's reason label:
  // "AcceleratedHardwareReady=False", "taint nvidia.com/gpu-error", "GPUsMissing".
  std::string Reason() const;
  // Which signal it judges: a later policy with the same key replaces an earlier one.
  std::string Key() const;
};

// The policies that apply to each group: the cluster's, with a group's own on top (or none,
// when the file turns repair off for it).
class RepairPolicies {
 public:
  // The built-in defaults (DefaultRepairPolicies), for every group.
  RepairPolicies();

  const std::vector<RepairPolicy>& For(absl::string_view group) const;
  const std::vector<RepairPolicy>& cluster() const { return cluster_; }

  // From a policy file's text (YAML or JSON); `source` names it in errors, which name the field.
  static absl::StatusOr<RepairPolicies> Parse(absl::string_view text, absl::string_view source);

 private:
  std::vector<RepairPolicy> cluster_;
  absl::flat_hash_map<std::string, std::vector<RepairPolicy>> groups_;
};

// Karpenter's and EKS's node conditions, gpu-operator's GPUReady, NVSentinel's GPU and syslog
// conditions, a critical XID as a condition, the kubelet's Ready, and GPUs gone missing.
std::vector<RepairPolicy> DefaultRepairPolicies();

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_REPAIR_POLICY_H_
