// Pending pods the scheduler cannot tell apart (same controller, same scheduling-relevant
// spec), planned together so that 10,000 replicas cost about as much as one pod.
#ifndef GPUA_ESTIMATOR_POD_CLASS_H_
#define GPUA_ESTIMATOR_POD_CLASS_H_

#include <cstdint>
#include <vector>

#include "estimator/cluster_snapshot.h"
#include "estimator/pod.h"

namespace gpua {

struct PodClass {
  const PodSpec* pod = nullptr;  // the first member stands for all
  std::vector<int> members;      // indices into the pending pods, in input order
  size_t next = 0;               // members before this one are placed
  ResourceVector request;        // PodRequest of the members
  // Placeable by resources alone: no host ports, pod (anti-)affinity or spread of its own,
  // and no other pod's anti-affinity selects it.
  bool isolated = false;
  int64_t remaining() const { return static_cast<int64_t>(members.size() - next); }

  // Moves the next `count` members into `into` (their indices) and returns them placed.
  void TakeMembers(int64_t count, std::vector<int>* into);
};

// Groups the valid pending pods into classes, in order of first appearance.
std::vector<PodClass> BuildClasses(const std::vector<const PodSpec*>& pending,
                                   ClusterSnapshot& snapshot);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_POD_CLASS_H_
