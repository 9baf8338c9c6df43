// A request for new nodes of one group: what scale-up plans for pending pods, and what
// consolidation asks for to replace several nodes with one. Both go through ScaleUpActuator.
#ifndef GPUA_AUTOSCALER_CONTROLLER_INCREASE_SCALE_UP_REQUEST_H_
#define GPUA_AUTOSCALER_CONTROLLER_INCREASE_SCALE_UP_REQUEST_H_

#include <string>
#include <vector>

#include "autoscaler/controller/model/cluster_view.h"

namespace gpua {

struct ScaleUpRequest {
  std::string group;
  int delta = 0;
  std::vector<PodPtr> pods;                    // the pending pods its new nodes are for
  std::vector<std::vector<PodPtr>> node_pods;  // the same, new node by new node
  std::vector<std::string> mig_layouts;        // per new node, for a reconfigurable MIG pool
  // For a consolidation's replacement (no pods): the nodes it replaces and why, in words. Its
  // failure backs no group off: the replacement is given up and its own cooldown runs.
  std::string replaces;
  // Who asks for a replacement, as its log lines and events begin: "Consolidation", "Repair".
  std::string asked_by = "Consolidation";
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_INCREASE_SCALE_UP_REQUEST_H_
