// Whether the pods of a node can go elsewhere, as kube-scheduler would place them, before
// the node is removed. Removals the caller keeps are kept in the snapshot: the moved pods
// stay where they were placed and the removed node takes no more, so two removals never
// count on the same room; and a node that took pods moves them on again if it goes too.
// Given node prices (per unit of capacity, so that nodes of different sizes compare), pods
// never move onto a node dearer than the one they leave: that would keep the dearer node
// alive so that a cheaper one can go.
#ifndef GPUA_ESTIMATOR_REMOVAL_SIMULATOR_H_
#define GPUA_ESTIMATOR_REMOVAL_SIMULATOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "estimator/cluster_snapshot.h"
#include "estimator/gpu/gpu_predicates.h"
#include "estimator/static_admissions.h"

namespace gpua {

class RemovalSimulator {
 public:
  explicit RemovalSimulator(ClusterSnapshot& snapshot, GpuPolicy policy = {});
  // With node admissions kept by the caller from one pass to the next; begins a pass on them.
  RemovalSimulator(ClusterSnapshot& snapshot, StaticAdmissions& admissions, GpuPolicy policy = {});

  // A node that takes no pods: one being removed, cordoned, or not ready.
  void Exclude(size_t node);
  // A node pods go to only when no other holds them: a deletion candidate, which
  // kube-scheduler also avoids (its PreferNoSchedule taint), and which may go itself later.
  void Avoid(size_t node, bool avoid = true);
  // Each snapshot node's price per hour of a unit of its capacity (a GPU node's per GPU, say;
  // 0 where unknown): pods may move only onto nodes that cost no more than the node they
  // leave. Unset: every node is a destination.
  void SetNodePrices(std::vector<double> price_per_hour);

  // Moves `pods` (and whatever earlier removals placed there) off node `index` onto the
  // other nodes. When all fit, keeps the placements, excludes the node and returns true;
  // otherwise changes nothing and says in `why_not` which pod fits nowhere and why not on
  // the first other node with room for it.
  bool TryRemove(size_t index, const std::vector<const PodSpec*>& own_pods, std::string* why_not);
  // Room that must stay free (a placeholder of warm capacity): `pod` goes to the first node
  // that takes it, nodes not avoided first, and moves on with it like a pod moved there when
  // that node goes. False: it fits nowhere, and nothing changed. The pod must outlive this.
  bool Reserve(const PodSpec& pod);
  // Whether earlier removals kept have moved pods onto node `index`.
  bool Received(size_t index) const {
    return index < received_.size() && !received_[index].empty();
  }
  // The pod TryRemove last found no home for.
  const PodSpec* last_unplaced() const { return last_unplaced_; }

 private:
  // The first node that takes `pod` (one not avoided if any), or -1.
  int FindHome(const PodSpec& pod, const ResourceVector& request, size_t leaving,
               std::string* why_not);
  // The first node that takes `pod`, among those avoided or not.
  int FirstHome(const PodSpec& pod, const ResourceVector& request, size_t leaving, bool avoided);
  // Why `pod` fits nowhere, told of the first other node with room for its requests.
  std::string ClosestMiss(const PodSpec& pod, const ResourceVector& request, size_t leaving);
  // Why node `n` does not take `pod` (its labels and taints left out when `admitted`).
  std::optional<std::string> WhyNotOn(const PodSpec& pod, const ResourceVector& request, size_t n,
                                      bool admitted) const;
  bool Dearer(size_t n, size_t than) const {
    return than < price_.size() && price_[n] > price_[than];
  }

  ClusterSnapshot& snapshot_;
  const GpuPolicy policy_;
  std::vector<bool> excluded_;
  std::vector<bool> avoided_;
  bool any_avoided_ = false;
  std::vector<double> price_;                          // by node; empty: prices play no part
  std::vector<std::vector<const PodSpec*>> received_;  // by node: pods moved there
  const PodSpec* last_unplaced_ = nullptr;
  StaticAdmissions own_admissions_;  // when the caller keeps none
  StaticAdmissions& admissions_;
};

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_REMOVAL_SIMULATOR_H_
