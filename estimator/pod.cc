#include "estimator/pod.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "estimator/dra/pod_claims.h"

namespace gpua {

bool HostPort::ConflictsWith(const HostPort& other) const {
  if (port != other.port || protocol != other.protocol) return false;
  const auto wildcard = [](const std::string& ip) { return ip.empty() || ip == "0.0.0.0"; };
  return wildcard(host_ip) || wildcard(other.host_ip) || host_ip == other.host_ip;
}

ResourceList EffectiveRequests(const std::vector<Container>& containers,
                               const std::vector<Container>& init_containers,
                               const ResourceList& overhead) {
  ResourceList sum;
  for (const Container& c : containers) sum += c.requests;
  ResourceList sidecars;  // sidecars started so far
  ResourceList init_peak;
  for (const Container& c : init_containers) {
    if (c.restart_always) {
      sidecars += c.requests;
      init_peak.MaxWith(sidecars);
    } else {
      init_peak.MaxWith(sidecars + c.requests);
    }
  }
  sum += sidecars;
  sum.MaxWith(init_peak);
  sum += overhead;
  return sum;
}

bool PodSpec::TermSelects(const PodAffinityTerm& term, const PodSpec& other) const {
  if (!term.selector.has_value()) return false;
  if (!term.all_namespaces) {
    const bool in_namespace = term.namespaces.empty()
                                  ? other.namespace_name == namespace_name
                                  : std::find(term.namespaces.begin(), term.namespaces.end(),
                                              other.namespace_name) != term.namespaces.end();
    if (!in_namespace) return false;
  }
  return term.selector->Matches(other.labels);
}

namespace {

void AppendRequirements(std::string* out, const std::vector<Requirement>& reqs) {
  for (const Requirement& r : reqs) {
    absl::StrAppend(out, r.key, "\x1f", static_cast<int>(r.op));
    for (const std::string& v : r.values) absl::StrAppend(out, "\x1f", v);
    out->push_back('\x1e');
  }
  out->push_back('\x1d');
}

void AppendSelector(std::string* out, const std::optional<LabelSelector>& s) {
  if (!s.has_value()) {
    out->push_back('-');
    return;
  }
  AppendRequirements(out, s->requirements);
}

void AppendLabels(std::string* out, const Labels& labels) {
  for (const auto& [k, v] : labels) absl::StrAppend(out, k, "=", v, "\x1e");
  out->push_back('\x1d');
}

void AppendTerms(std::string* out, const std::vector<PodAffinityTerm>& terms) {
  for (const PodAffinityTerm& t : terms) {
    AppendSelector(out, t.selector);
    for (const std::string& ns : t.namespaces) absl::StrAppend(out, ns, ",");
    absl::StrAppend(out, t.all_namespaces ? "*" : "", "@", t.topology_key, "\x1e");
  }
  out->push_back('\x1d');
}

void AppendNodeSelection(std::string* out, const PodSpec& pod) {
  AppendLabels(out, pod.node_selector);
  if (pod.required_node_affinity.has_value()) {
    for (const NodeSelectorTerm& t : pod.required_node_affinity->terms) {
      AppendRequirements(out, t.match_expressions);
      AppendRequirements(out, t.match_fields);
    }
  } else {
    out->push_back('-');
  }
  out->push_back('\x1d');
  for (const Toleration& t : pod.tolerations) {
    absl::StrAppend(out, t.key, "\x1f", static_cast<int>(t.op), "\x1f", t.value, "\x1f",
                    t.effect.has_value() ? static_cast<int>(*t.effect) : -1, "\x1e");
  }
  out->push_back('\x1d');
}

}  // namespace

const std::optional<ResourceVector>& FixedRequests(const PodSpec& pod) {
  return pod.fixed_requests.Get([&] { return ResourceCatalog::FixedVector(pod.requests); });
}

const std::string& NodeSelectionKey(const PodSpec& pod) {
  return pod.node_selection_key.Get([&] {
    std::string key;
    AppendNodeSelection(&key, pod);
    return key;
  });
}

namespace {

std::string MakeEquivalenceKey(const PodSpec& pod) {
  std::string key;
  key.reserve(256);
  absl::StrAppend(&key, pod.owner.has_value() ? pod.owner->uid : "", "\x1d", pod.namespace_name,
                  "\x1d", pod.priority, "\x1d", pod.scheduler_name, "\x1d");
  AppendLabels(&key, pod.labels);
  for (const auto& [name, q] : pod.requests) {
    // The exact value's bytes: cheaper than printing it, and as unique.
    const Quantity::Nanos nanos = q.nanos();
    absl::StrAppend(&key, name, "=");
    key.append(reinterpret_cast<const char*>(&nanos), sizeof(nanos));
  }
  key.push_back('\x1d');
  AppendNodeSelection(&key, pod);
  for (const HostPort& p : pod.host_ports) {
    absl::StrAppend(&key, p.protocol, "/", p.host_ip, ":", p.port, "\x1e");
  }
  key.push_back('\x1d');
  AppendTerms(&key, pod.affinity);
  AppendTerms(&key, pod.anti_affinity);
  for (const TopologySpreadConstraint& c : pod.spread) {
    absl::StrAppend(&key, c.max_skew, "@", c.topology_key, "#", c.min_domains);
    AppendSelector(&key, c.selector);
  }
  key.push_back('\x1d');
  for (const auto& [name, q] : pod.largest_container_request) {
    const Quantity::Nanos nanos = q.nanos();
    absl::StrAppend(&key, name, "=");
    key.append(reinterpret_cast<const char*>(&nanos), sizeof(nanos));
  }
  absl::StrAppend(&key, "\x1d", pod.gpu_memory_mib, "\x1d", pod.cuda_version);
  if (pod.gang.has_value()) {
    absl::StrAppend(&key, "\x1d", pod.gang->name, "\x1f", pod.gang->min_member, "\x1f",
                    pod.gang->required_label);
  }
  // Pods whose own claims ask alike (one template's) are alike; a shared claim, or one
  // already allocated, is its pods' alone.
  for (const dra::PodClaimRef& c : pod.claim_refs) {
    absl::StrAppend(&key, "\x1d", c.name, "\x1f", c.claim_name, "\x1f", c.template_name);
  }
  if (pod.devices != nullptr) {
    for (const dra::PodClaim& c : pod.devices->claims) {
      absl::StrAppend(&key, "\x1d", c.name, "\x1f", c.unresolved.message(), "\x1f",
                      c.spec != nullptr ? c.spec->fingerprint : "", "\x1f",
                      c.shared || c.allocation != nullptr ? c.claim_key : "");
    }
  }
  return key;
}

}  // namespace

const std::string& EquivalenceKey(const PodSpec& pod) {
  return pod.equivalence_key.Get([&] { return MakeEquivalenceKey(pod); });
}

}  // namespace gpua
