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
    const auto admits = [&] { return !CheckNodeStatic(pod, *node.props, node.name).has_value(); };
    // The props remember their verdict from loop to loop, unless the node's name decides it
    // (props may be shared by nodes of one template).
    const bool admitted = SelectionReadsNodeName(pod)
                              ? admits()
                              : node.props->admits.Get(NodeSelectionKey(pod), admits);
    verdicts[n] = admitted ? Verdict::kAdmitted : Verdict::kRefused;
  }
  return verdicts[n] == Verdict::kAdmitted;
}

}  // namespace gpua
