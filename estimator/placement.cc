#include "estimator/placement.h"

#include <utility>

#include "estimator/predicates.h"

namespace gpua {

int64_t PlaceOnNode(const PodClass& c, ClusterSnapshot& snapshot, size_t index, int64_t* checks,
                    std::optional<std::string>* why_not) {
  const SimNode& node = snapshot.node(index);
  if (c.isolated) {
    ++*checks;
    const int64_t copies = CopiesThatFit(c.request, node.free, c.remaining());
    if (copies == 0) {
      *why_not = CheckResources(snapshot.catalog(), c.request, node.free);
      return 0;
    }
    snapshot.AddPods(index, c.pod, c.request, copies);
    return copies;
  }
  int64_t placed = 0;
  while (placed < c.remaining()) {
    ++*checks;
    std::optional<std::string> reason = CheckResources(snapshot.catalog(), c.request, node.free);
    if (!reason) reason = CheckPodInteractions(*c.pod, snapshot, index);
    if (!reason) reason = snapshot.CheckDevices(*c.pod, index);
    if (reason) {
      *why_not = std::move(reason);
      break;
    }
    snapshot.AddPods(index, c.pod, c.request);
    ++placed;
  }
  return placed;
}

}  // namespace gpua
