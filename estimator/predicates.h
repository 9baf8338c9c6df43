// Whether a pod fits a node, with kube-scheduler's verdict for the filter plugins
// NodeUnschedulable, NodeAffinity, TaintToleration, NodeResourcesFit, NodePorts,
// InterPodAffinity and PodTopologySpread; when it does not, the first reason in the words
// a user reads in a FailedScheduling or NotTriggerScaleUp event.
#ifndef GPUA_ESTIMATOR_PREDICATES_H_
#define GPUA_ESTIMATOR_PREDICATES_H_

#include <optional>
#include <string>

#include "estimator/cluster_snapshot.h"

namespace gpua {

inline constexpr absl::string_view kReasonUnschedulable = "node(s) were unschedulable";
inline constexpr absl::string_view kReasonNodeAffinity =
    "node(s) didn't match Pod's node affinity/selector";
inline constexpr absl::string_view kReasonPorts = "node(s) didn't have free ports";
inline constexpr absl::string_view kReasonTooManyPods = "too many pods";
inline constexpr absl::string_view kReasonAffinity = "node(s) didn't match pod affinity rules";
inline constexpr absl::string_view kReasonAntiAffinity =
    "node(s) didn't match pod anti-affinity rules";
inline constexpr absl::string_view kReasonExistingAntiAffinity =
    "node(s) didn't satisfy existing pods anti-affinity rules";
inline constexpr absl::string_view kReasonSpread =
    "node(s) didn't match pod topology spread constraints";
inline constexpr absl::string_view kReasonSpreadMissingLabel =
    "node(s) didn't match pod topology spread constraints (missing required label)";

// The pod's nodeSelector and required node affinity.
bool MatchesNodeSelection(const PodSpec& pod, const Labels& labels, absl::string_view node_name);

// Checks that depend on the node's labels, taints and cordon alone, so they hold for every
// node made from one template.
std::optional<std::string> CheckNodeStatic(const PodSpec& pod, const NodeProps& props,
                                           absl::string_view node_name);
// The same checks when only the verdict is wanted: no words are built.
bool AdmitsStatically(const PodSpec& pod, const NodeProps& props, absl::string_view node_name);

// Free resources and pod count.
std::optional<std::string> CheckResources(const ResourceCatalog& catalog,
                                          const ResourceVector& request,
                                          const ResourceVector& free);

// Host ports, inter-pod affinity and anti-affinity (both directions) and topology spread:
// the checks that look at other pods.
std::optional<std::string> CheckPodInteractions(const PodSpec& pod, const ClusterSnapshot& snapshot,
                                                size_t node_index);

// Every check, in kube-scheduler's order, DRA's claims last.
std::optional<std::string> CheckFit(const PodSpec& pod, const ResourceVector& request,
                                    const ClusterSnapshot& snapshot, size_t node_index);

// True when the pod itself asks for none of the checks that look at other pods, nor for DRA
// devices (whose use other pods share). (Whether another pod's anti-affinity rejects it is
// the caller's to know.)
bool IsolatedFromOtherPods(const PodSpec& pod);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_PREDICATES_H_
