#include "estimator/predicates.h"

#include <algorithm>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace gpua {

bool MatchesNodeSelection(const PodSpec& pod, const Labels& labels, absl::string_view node_name) {
  for (const auto& [key, value] : pod.node_selector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return !pod.required_node_affinity.has_value() ||
         pod.required_node_affinity->Matches(labels, node_name);
}

namespace {

// The first of the node-only checks a pod fails, and the taint when it is one; no words, so
// the hot paths that want only a yes or no build no strings.
struct StaticRefusal {
  enum class Kind { kNone, kUnschedulable, kNodeAffinity, kTaint } kind = Kind::kNone;
  const Taint* taint = nullptr;
};

StaticRefusal FirstStaticRefusal(const PodSpec& pod, const NodeProps& props,
                                 absl::string_view node_name) {
  using Kind = StaticRefusal::Kind;
  if (props.unschedulable) {
    // The scheduler lets a pod that tolerates the unschedulable taint onto a cordoned node.
    static const std::vector<Taint> kCordon = {
        {"node.kubernetes.io/unschedulable", "", TaintEffect::kNoSchedule}};
    if (FirstUntoleratedTaint(kCordon, pod.tolerations) != nullptr) {
      return {Kind::kUnschedulable};
    }
  }
  if (!MatchesNodeSelection(pod, props.labels, node_name)) return {Kind::kNodeAffinity};
  if (const Taint* taint = FirstUntoleratedTaint(props.taints, pod.tolerations)) {
    return {Kind::kTaint, taint};
  }
  return {};
}

}  // namespace

bool AdmitsStatically(const PodSpec& pod, const NodeProps& props, absl::string_view node_name) {
  return FirstStaticRefusal(pod, props, node_name).kind == StaticRefusal::Kind::kNone;
}

std::optional<std::string> CheckNodeStatic(const PodSpec& pod, const NodeProps& props,
                                           absl::string_view node_name) {
  const StaticRefusal refusal = FirstStaticRefusal(pod, props, node_name);
  switch (refusal.kind) {
    case StaticRefusal::Kind::kNone:
      return std::nullopt;
    case StaticRefusal::Kind::kUnschedulable:
      return std::string(kReasonUnschedulable);
    case StaticRefusal::Kind::kNodeAffinity:
      return std::string(kReasonNodeAffinity);
    case StaticRefusal::Kind::kTaint:
      return absl::StrCat("node(s) had untolerated taint ", refusal.taint->ToString());
  }
  return std::nullopt;
}

std::optional<std::string> CheckResources(const ResourceCatalog& catalog,
                                          const ResourceVector& request,
                                          const ResourceVector& free) {
  if (At(request, ResourceCatalog::kPods) > At(free, ResourceCatalog::kPods)) {
    return std::string(kReasonTooManyPods);
  }
  const int slot = FirstShortSlot(catalog, request, free);
  if (slot < 0) return std::nullopt;
  Insufficiency miss{catalog.Name(slot), catalog.ToQuantity(slot, request[slot]),
                     catalog.ToQuantity(slot, std::max<int64_t>(0, At(free, slot)))};
  return miss.Message();
}

bool IsolatedFromOtherPods(const PodSpec& pod) {
  return pod.host_ports.empty() && pod.affinity.empty() && pod.anti_affinity.empty() &&
         pod.spread.empty() && pod.devices == nullptr;
}

namespace {

bool PortsFree(const PodSpec& pod, const SimNode& node) {
  for (const HostPort& want : pod.host_ports) {
    for (const HostPort& used : node.ports) {
      if (want.ConflictsWith(used)) return false;
    }
  }
  return true;
}

// Calls fn(node, pod) for every pod on every node that shares `candidate`'s value for `key`.
template <typename Fn>
bool AnyPodInDomain(const ClusterSnapshot& snapshot, const SimNode& candidate,
                    absl::string_view key, Fn fn) {
  const std::optional<absl::string_view> domain = candidate.TopologyValue(key);
  if (!domain.has_value()) return false;
  for (const SimNode& n : snapshot.nodes()) {
    if (n.TopologyValue(key) != domain) continue;
    for (const PodSpec* p : n.pods) {
      if (fn(*p)) return true;
    }
  }
  return false;
}

bool AnyPodAnywhere(const ClusterSnapshot& snapshot, const PodSpec& pod,
                    const PodAffinityTerm& term) {
  for (const SimNode& n : snapshot.nodes()) {
    for (const PodSpec* p : n.pods) {
      if (pod.TermSelects(term, *p)) return true;
    }
  }
  return false;
}

std::optional<std::string> CheckAffinity(const PodSpec& pod, const ClusterSnapshot& snapshot,
                                         const SimNode& candidate) {
  for (const PodAffinityTerm& term : pod.affinity) {
    const bool satisfied =
        AnyPodInDomain(snapshot, candidate, term.topology_key,
                       [&](const PodSpec& p) { return pod.TermSelects(term, p); });
    if (satisfied) continue;
    // The first pod of a group that selects itself may go anywhere the key exists, as
    // long as no matching pod runs anywhere yet.
    const bool first_of_its_kind = candidate.TopologyValue(term.topology_key).has_value() &&
                                   pod.TermSelects(term, pod) &&
                                   !AnyPodAnywhere(snapshot, pod, term);
    if (!first_of_its_kind) return std::string(kReasonAffinity);
  }
  for (const PodAffinityTerm& term : pod.anti_affinity) {
    if (AnyPodInDomain(snapshot, candidate, term.topology_key,
                       [&](const PodSpec& p) { return pod.TermSelects(term, p); })) {
      return std::string(kReasonAntiAffinity);
    }
  }
  return std::nullopt;
}

// Pods already placed whose anti-affinity rejects this pod in their domain.
bool ViolatesExistingAntiAffinity(const PodSpec& pod, const ClusterSnapshot& snapshot,
                                  const SimNode& candidate) {
  for (const ClusterSnapshot::PlacedPod& placed : snapshot.pods_with_anti_affinity()) {
    const PodSpec* p = placed.pod;
    for (const PodAffinityTerm& term : p->anti_affinity) {
      if (!p->TermSelects(term, pod)) continue;
      const auto theirs = snapshot.node(placed.node).TopologyValue(term.topology_key);
      if (theirs.has_value() && theirs == candidate.TopologyValue(term.topology_key)) {
        return true;
      }
    }
  }
  return false;
}

std::optional<std::string> CheckSpread(const PodSpec& pod, const ClusterSnapshot& snapshot,
                                       const SimNode& candidate) {
  for (const TopologySpreadConstraint& c : pod.spread) {
    const auto own_domain = candidate.TopologyValue(c.topology_key);
    if (!own_domain.has_value()) return std::string(kReasonSpreadMissingLabel);
    // Domains are those of nodes the pod's node selector and affinity admit.
    absl::flat_hash_map<absl::string_view, int64_t> counts;
    for (const SimNode& n : snapshot.nodes()) {
      const auto domain = n.TopologyValue(c.topology_key);
      if (!domain.has_value()) continue;
      if (!MatchesNodeSelection(pod, n.props->labels, n.name)) continue;
      int64_t& count = counts[*domain];
      for (const PodSpec* p : n.pods) {
        if (p->namespace_name == pod.namespace_name && c.selector.has_value() &&
            c.selector->Matches(p->labels)) {
          ++count;
        }
      }
    }
    counts.try_emplace(*own_domain, 0);
    int64_t min_count = std::numeric_limits<int64_t>::max();
    for (const auto& [domain, count] : counts) min_count = std::min(min_count, count);
    if (static_cast<int64_t>(counts.size()) < c.min_domains) min_count = 0;
    const int64_t self = c.selector.has_value() && c.selector->Matches(pod.labels) ? 1 : 0;
    if (counts[*own_domain] + self - min_count > c.max_skew) return std::string(kReasonSpread);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> CheckPodInteractions(const PodSpec& pod, const ClusterSnapshot& snapshot,
                                                size_t node_index) {
  const SimNode& node = snapshot.node(node_index);
  if (!PortsFree(pod, node)) return std::string(kReasonPorts);
  if (auto reason = CheckAffinity(pod, snapshot, node)) return reason;
  if (ViolatesExistingAntiAffinity(pod, snapshot, node)) {
    return std::string(kReasonExistingAntiAffinity);
  }
  return CheckSpread(pod, snapshot, node);
}

std::optional<std::string> CheckFit(const PodSpec& pod, const ResourceVector& request,
                                    const ClusterSnapshot& snapshot, size_t node_index) {
  const SimNode& node = snapshot.node(node_index);
  if (auto reason = CheckNodeStatic(pod, *node.props, node.name)) return reason;
  if (auto reason = CheckResources(snapshot.catalog(), request, node.free)) return reason;
  if (auto reason = CheckPodInteractions(pod, snapshot, node_index)) return reason;
  return snapshot.CheckDevices(pod, node_index);
}

}  // namespace gpua
