// Where the controller reads the cluster from: the informers of a real cluster
// (kube::ClusterWatch) or, for `gpu-autoscaler simulate`, a simulated one. The controller is
// written against this alone, so the same decisions are made in both.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_CLUSTER_SOURCE_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_CLUSTER_SOURCE_H_

#include <memory>

#include "autoscaler/controller/model/cluster_view.h"

namespace gpua {

class ClusterSource {
 public:
  virtual ~ClusterSource() = default;
  // The cluster as one controller loop sees it; cheap enough to take every loop. Shared, so a
  // source may keep its view from one loop to the next and patch it, never changing a view
  // someone still holds.
  virtual std::shared_ptr<const ClusterView> View() const = 0;
  // False until every kind has been listed once: nothing is decided on a partial cluster.
  virtual bool Synced() const = 0;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_CLUSTER_SOURCE_H_
