#include "estimator/removal_simulator.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "estimator/predicates.h"

namespace gpua {

RemovalSimulator::RemovalSimulator(ClusterSnapshot& snapshot, GpuPolicy policy)
    : RemovalSimulator(snapshot, own_admissions_, policy) {}

RemovalSimulator::RemovalSimulator(ClusterSnapshot& snapshot, StaticAdmissions& admissions,
                                   GpuPolicy policy)
    : snapshot_(snapshot),
      policy_(policy),
      excluded_(snapshot.size(), false),
      avoided_(snapshot.size(), false),
      received_(snapshot.size()),
      admissions_(admissions) {
  admissions_.Begin(snapshot);
}

void RemovalSimulator::Exclude(size_t node) {
  if (node < excluded_.size()) excluded_[node] = true;
}

void RemovalSimulator::Avoid(size_t node, bool avoid) {
  if (node >= avoided_.size()) return;
  avoided_[node] = avoid;
  any_avoided_ = any_avoided_ || avoid;
}

void RemovalSimulator::SetNodePrices(std::vector<double> price_per_hour) {
  price_ = std::move(price_per_hour);
  price_.resize(price_.empty() ? 0 : snapshot_.size(), 0);
}

int RemovalSimulator::FirstHome(const PodSpec& pod, const ResourceVector& request, size_t leaving,
                                bool avoided) {
  // Pods of one selection are admitted or refused alike by a node's labels and taints, and
  // most nodes refuse most pods: only the admitting ones are looked at, the cheap test first.
  for (const uint32_t n : admissions_.Admitting(pod)) {
    if (n == leaving || excluded_[n] || avoided_[n] != avoided || Dearer(n, leaving)) continue;
    if (!Fits(request, snapshot_.node(n).free)) continue;
    if (!WhyNotOn(pod, request, n, true).has_value()) return static_cast<int>(n);
  }
  return -1;
}

int RemovalSimulator::FindHome(const PodSpec& pod, const ResourceVector& request, size_t leaving,
                               std::string* why_not) {
  int home = FirstHome(pod, request, leaving, false);
  if (home < 0 && any_avoided_) home = FirstHome(pod, request, leaving, true);
  if (home < 0) *why_not = ClosestMiss(pod, request, leaving);
  return home;
}

std::string RemovalSimulator::ClosestMiss(const PodSpec& pod, const ResourceVector& request,
                                          size_t leaving) {
  std::vector<StaticAdmissions::Verdict>& admits = admissions_.For(pod);
  for (size_t n = 0; n < snapshot_.size(); ++n) {
    if (n == leaving || excluded_[n] || !Fits(request, snapshot_.node(n).free)) continue;
    const bool admitted = admissions_.Admits(pod, admits, n);
    if (Dearer(n, leaving) && !WhyNotOn(pod, request, n, admitted).has_value()) {
      return absl::StrFormat("node %s costs $%.2f/h per unit, more than this node's $%.2f/h",
                             snapshot_.node(n).name, price_[n], price_[leaving]);
    }
    return absl::StrCat(WhyNotOn(pod, request, n, admitted).value_or(""), " on node ",
                        snapshot_.node(n).name);
  }
  return "";
}

std::optional<std::string> RemovalSimulator::WhyNotOn(const PodSpec& pod,
                                                      const ResourceVector& request, size_t n,
                                                      bool admitted) const {
  const SimNode& node = snapshot_.node(n);
  std::optional<std::string> reason;
  if (!admitted) reason = CheckNodeStatic(pod, *node.props, node.name);
  if (!reason) reason = CheckResources(snapshot_.catalog(), request, node.free);
  if (!reason) reason = CheckPodInteractions(pod, snapshot_, n);
  if (!reason && node.props->gpu) reason = CheckGpuFit(pod, *node.props->gpu, policy_);
  if (!reason) reason = snapshot_.CheckDevices(pod, n);
  return reason;
}

bool RemovalSimulator::TryRemove(size_t index, const std::vector<const PodSpec*>& own_pods,
                                 std::string* why_not) {
  std::vector<const PodSpec*> pods = own_pods;
  if (index < received_.size())
    pods.insert(pods.end(), received_[index].begin(), received_[index].end());
  std::vector<std::pair<size_t, const PodSpec*>> placed;
  snapshot_.Fork();
  for (const PodSpec* pod : pods) {
    const ResourceVector request = snapshot_.PodRequest(*pod);
    std::string closest;
    const int home = FindHome(*pod, request, index, &closest);
    if (home < 0) {
      snapshot_.Revert();
      last_unplaced_ = pod;
      *why_not = absl::StrCat("pod ", pod->Key(), " fits no other node",
                              closest.empty() ? "" : absl::StrCat(" (", closest, ")"));
      return false;
    }
    snapshot_.AddPods(static_cast<size_t>(home), pod, request);
    placed.emplace_back(static_cast<size_t>(home), pod);
  }
  snapshot_.Commit();
  for (const auto& [home, pod] : placed) received_[home].push_back(pod);
  if (index < received_.size()) received_[index].clear();
  Exclude(index);
  return true;
}

bool RemovalSimulator::Reserve(const PodSpec& pod) {
  const ResourceVector request = snapshot_.PodRequest(pod);
  const size_t none = snapshot_.size();  // no node is being left
  int home = FirstHome(pod, request, none, false);
  if (home < 0 && any_avoided_) home = FirstHome(pod, request, none, true);
  if (home < 0) return false;
  snapshot_.AddPods(static_cast<size_t>(home), &pod, request);
  received_[static_cast<size_t>(home)].push_back(&pod);
  return true;
}

}  // namespace gpua
