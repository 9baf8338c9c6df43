#include "estimator/static_admissions.h"

#include "estimator/predicates.h"

namespace gpua {

std::vector<StaticAdmissions::Verdict>& StaticAdmissions::For(const PodSpec& pod) {
  std::vector<Verdict>& verdicts = by_selection_[NodeSelectionKey(pod)];
  verdicts.resize(snapshot_.size(), Verdict::kUnknown);
  return verdicts;
}

bool StaticAdmissions::Admits(const PodSpec& pod, std::vector<Verdict>& verdicts, size_t n) const {
  if (verdicts[n] == Verdict::kUnknown) {
    const SimNode& node = snapshot_.node(n);
    verdicts[n] =
        !AdmitsStatically(pod, *node.props, node.name) ? Verdict::kRefused : Verdict::kAdmitted;
  }
  return verdicts[n] == Verdict::kAdmitted;
}

}  // namespace gpua
