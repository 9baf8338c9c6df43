#include "kubeobjects/node_marks.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "estimator/gpu/gpu_inventory.h"

namespace gpua {
namespace {

struct InterruptionTaint {
  absl::string_view key;
  absl::string_view source;
};

constexpr InterruptionTaint kInterruptionTaints[] = {
    {"aws-node-termination-handler/spot-itn",
     "the AWS Node Termination Handler's spot interruption taint"},
    {"cloud.google.com/impending-node-termination", "GKE's impending-node-termination taint"},
    {"remediator.kubernetes.azure.com/unschedulable", "AKS node auto-drain's Preempt taint"},
};

}  // namespace

std::optional<absl::Time> TaintTime(const Node& node, absl::string_view key) {
  for (const Taint& t : node.taints) {
    int64_t seconds = 0;
    if (t.key == key && absl::SimpleAtoi(t.value, &seconds)) return absl::FromUnixSeconds(seconds);
  }
  return std::nullopt;
}

bool HasTaint(const Node& node, absl::string_view key) {
  return std::any_of(node.taints.begin(), node.taints.end(),
                     [&](const Taint& t) { return t.key == key; });
}

NodeMarks ReadNodeMarks(const Node& node, const Labels& annotations) {
  NodeMarks m;
  m.to_be_deleted = HasTaint(node, kToBeDeletedTaint);
  m.to_be_deleted_since = TaintTime(node, kToBeDeletedTaint);
  m.deletion_candidate = HasTaint(node, kDeletionCandidateTaint);
  m.candidate_since = TaintTime(node, kDeletionCandidateTaint);
  if (auto a = annotations.find(kScaleDownDisabledAnnotation); a != annotations.end()) {
    m.scale_down_disabled = a->second == "true";
  }
  if (auto a = annotations.find(kRemovalReasonAnnotation); a != annotations.end()) {
    m.removal_reason = a->second;
  }
  m.unhealthy = HasTaint(node, kUnhealthyTaint);
  if (auto a = annotations.find(kRepairAnnotation); a != annotations.end()) m.repair = a->second;
  if (auto a = annotations.find(kRepairReplacementAnnotation); a != annotations.end()) {
    m.repair_replacement = a->second;
  }
  if (auto l = node.labels.find(kMigConfigLabel); l != node.labels.end()) m.mig_layout = l->second;
  for (const InterruptionTaint& t : kInterruptionTaints) {
    if (HasTaint(node, t.key)) {
      m.interruption_source = t.source;
      break;
    }
  }
  return m;
}

bool IsStartupTaint(const Taint& t, const std::vector<std::string>& ignored) {
  static const absl::string_view kKeys[] = {"node.kubernetes.io/not-ready",
                                            "node.kubernetes.io/unreachable",
                                            "node.kubernetes.io/network-unavailable",
                                            "node.cloudprovider.kubernetes.io/uninitialized",
                                            kToBeDeletedTaint,
                                            kDeletionCandidateTaint,
                                            kUnhealthyTaint};
  static constexpr absl::string_view kPrefixes[] = {
      "status-taint.cluster-autoscaler.kubernetes.io/"};
  for (absl::string_view k : kKeys) {
    if (t.key == k) return true;
  }
  for (absl::string_view p : kPrefixes) {
    if (absl::StartsWith(t.key, p)) return true;
  }
  return IsReadinessTaint(t, ignored);
}

bool TaintKeyMatches(absl::string_view key, const std::vector<std::string>& keys) {
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) {
    return k == key || (!k.empty() && k.back() == '/' && absl::StartsWith(key, k));
  });
}

bool IsReadinessTaint(const Taint& t, const std::vector<std::string>& startup) {
  static constexpr absl::string_view kPrefixes[] = {
      "ignore-taint.cluster-autoscaler.kubernetes.io/",
      "startup-taint.cluster-autoscaler.kubernetes.io/", kReadinessTaintPrefix};
  for (absl::string_view p : kPrefixes) {
    if (absl::StartsWith(t.key, p)) return true;
  }
  return TaintKeyMatches(t.key, startup);
}

}  // namespace gpua
