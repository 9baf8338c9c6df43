#include "estimator/pod_class.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "estimator/predicates.h"

namespace gpua {
namespace {

// The pods (placed or pending) with anti-affinity terms: few or none in most clusters, so
// finding them once beats asking every placed pod about every class.
std::vector<const PodSpec*> PodsWithAntiAffinity(const ClusterSnapshot& snapshot,
                                                 const std::vector<PodClass>& classes) {
  std::vector<const PodSpec*> out;
  for (const PodClass& c : classes) {
    if (!c.pod->anti_affinity.empty()) out.push_back(c.pod);
  }
  for (const SimNode& n : snapshot.nodes()) {
    for (const PodSpec* p : n.pods) {
      if (!p->anti_affinity.empty()) out.push_back(p);
    }
  }
  return out;
}

// Anti-affinity of any pod that selects `pod` makes placement depend on where that pod is,
// so `pod` cannot be placed by resources alone.
bool SomeoneRepels(const PodSpec& pod, const std::vector<const PodSpec*>& repellers) {
  for (const PodSpec* other : repellers) {
    for (const PodAffinityTerm& t : other->anti_affinity) {
      if (other->TermSelects(t, pod)) return true;
    }
  }
  return false;
}

}  // namespace

void PodClass::TakeMembers(int64_t count, std::vector<int>* into) {
  for (int64_t i = 0; i < count; ++i) into->push_back(members[next++]);
}

std::vector<PodClass> BuildClasses(const std::vector<const PodSpec*>& pending,
                                   ClusterSnapshot& snapshot) {
  std::vector<PodClass> classes;
  absl::flat_hash_map<absl::string_view, size_t> by_key;  // views of the pods' own keys
  for (size_t i = 0; i < pending.size(); ++i) {
    const PodSpec& pod = *pending[i];
    if (!pod.invalid.ok()) continue;
    auto [it, inserted] = by_key.try_emplace(EquivalenceKey(pod), classes.size());
    if (inserted) {
      PodClass c;
      c.pod = &pod;
      c.request = snapshot.PodRequest(pod);
      classes.push_back(std::move(c));
    }
    classes[it->second].members.push_back(static_cast<int>(i));
  }
  const std::vector<const PodSpec*> repellers = PodsWithAntiAffinity(snapshot, classes);
  for (PodClass& c : classes) {
    c.isolated = IsolatedFromOtherPods(*c.pod) && !SomeoneRepels(*c.pod, repellers);
  }
  return classes;
}

}  // namespace gpua
