#include "estimator/static_admissions.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "estimator/predicates.h"

namespace gpua {

std::vector<int32_t> StaticAdmissions::CarriedIndex(const ClusterSnapshot& snapshot) const {
  std::vector<int32_t> carried(snapshot.size(), -1);
  // Passes mostly list the nodes of the last one in its order, a few come or go: each node is
  // looked for first where the last match leaves off (or one further), then by its props.
  absl::flat_hash_map<const NodeProps*, int32_t> old_index;  // built when first needed
  size_t next = 0;
  for (size_t n = 0; n < snapshot.size(); ++n) {
    const SimNode& node = snapshot.node(n);
    const auto same_at = [&](size_t old) {
      return old < props_.size() && props_[old] == node.props && names_[old] == node.name;
    };
    const size_t at = same_at(next) ? next : next + 1;  // in place, or past one node gone
    if (same_at(at)) {
      carried[n] = static_cast<int32_t>(at);
      next = at + 1;
      continue;
    }
    if (old_index.empty()) {
      old_index.reserve(props_.size());
      for (size_t i = 0; i < props_.size(); ++i) {
        old_index.try_emplace(props_[i].get(), static_cast<int32_t>(i));
      }
    }
    auto it = old_index.find(node.props.get());
    // Nodes may share props (a template's): the name tells them apart.
    if (it != old_index.end() && names_[it->second] == node.name) {
      carried[n] = it->second;
      next = static_cast<size_t>(it->second) + 1;
    }
  }
  return carried;
}

bool StaticAdmissions::SameNodes(const ClusterSnapshot& snapshot) const {
  if (snapshot.size() != props_.size()) return false;
  for (size_t n = 0; n < props_.size(); ++n) {
    const SimNode& node = snapshot.node(n);
    if (node.props != props_[n] || node.name != names_[n]) return false;
  }
  return true;
}

void StaticAdmissions::Begin(const ClusterSnapshot& snapshot) {
  ++pass_;
  absl::erase_if(by_selection_, [&](const auto& entry) {
    return pass_ - entry.second.asked_in_pass > kKeptPasses;
  });
  snapshot_ = &snapshot;
  if (SameNodes(snapshot)) {
    // Most passes find the nodes of the last one, in its order: every verdict stands, bar
    // those on nodes the last pass added.
    const size_t size = props_.size();
    for (auto& [key, s] : by_selection_) {
      if (s.verdicts.size() > size) s.verdicts.resize(size);
      while (!s.admitting.empty() && s.admitting.back() >= size) s.admitting.pop_back();
      s.admitting_upto = std::min(s.admitting_upto, size);
    }
    return;
  }
  const std::vector<int32_t> carried = CarriedIndex(snapshot);
  for (auto& [key, s] : by_selection_) {
    std::vector<Verdict> verdicts(snapshot.size(), Verdict::kUnknown);
    for (size_t n = 0; n < carried.size(); ++n) {
      const int32_t old = carried[n];
      if (old >= 0 && static_cast<size_t>(old) < s.verdicts.size()) verdicts[n] = s.verdicts[old];
    }
    s = Selection{std::move(verdicts), {}, 0, s.asked_in_pass};
  }
  props_.resize(snapshot.size());
  names_.resize(snapshot.size());
  for (size_t n = 0; n < snapshot.size(); ++n) {  // most are as they were: no count to touch
    const SimNode& node = snapshot.node(n);
    if (props_[n] != node.props) props_[n] = node.props;
    if (names_[n] != node.name) names_[n] = node.name;
  }
}

StaticAdmissions::Selection& StaticAdmissions::SelectionOf(const PodSpec& pod) {
  Selection& s = by_selection_[NodeSelectionKey(pod)];
  s.asked_in_pass = pass_;
  if (s.verdicts.size() < snapshot_->size())
    s.verdicts.resize(snapshot_->size(), Verdict::kUnknown);
  return s;
}

std::vector<StaticAdmissions::Verdict>& StaticAdmissions::For(const PodSpec& pod) {
  return SelectionOf(pod).verdicts;
}

bool StaticAdmissions::Admits(const PodSpec& pod, std::vector<Verdict>& verdicts, size_t n) const {
  if (verdicts[n] == Verdict::kUnknown) {
    const SimNode& node = snapshot_->node(n);
    verdicts[n] =
        AdmitsStatically(pod, *node.props, node.name) ? Verdict::kAdmitted : Verdict::kRefused;
  }
  return verdicts[n] == Verdict::kAdmitted;
}

const std::vector<uint32_t>& StaticAdmissions::Admitting(const PodSpec& pod) {
  Selection& s = SelectionOf(pod);
  for (; s.admitting_upto < snapshot_->size(); ++s.admitting_upto) {
    if (Admits(pod, s.verdicts, s.admitting_upto)) {
      s.admitting.push_back(static_cast<uint32_t>(s.admitting_upto));
    }
  }
  return s.admitting;
}

}  // namespace gpua
