// For a pool whose MIG manager can apply several layouts, the layout each new node needs is
// chosen when it is planned (the estimator packs the pending MIG pods into the fewest GPUs).
// When the group's new nodes register, each gets one of the layouts asked for, as the label
// the GPU operator's MIG manager reads (nvidia.com/mig.config), and an annotation of ours
// that says it was given one, so a restart never relabels a node.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MIG_LAYOUTS_H_
#define GPUA_AUTOSCALER_CONTROLLER_MIG_LAYOUTS_H_

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "autoscaler/controller/cluster_state.h"
#include "autoscaler/controller/kube_writer.h"
#include "base/log.h"

namespace gpua {

inline constexpr char kMigLayoutAssignedAnnotation[] = "gpu-autoscaler.io/mig-layout-assigned";

class MigLayoutAssigner {
 public:
  MigLayoutAssigner(KubeWriter& writer, LogSink& log) : writer_(writer), log_(log) {}

  // Layouts for new nodes of `group`, one per node, as the plan chose them.
  void Expect(const std::string& group, const std::vector<std::string>& layouts);
  // Labels the group's registered nodes that have had no layout from us yet, and notes the
  // layout in the state for this loop's planning; returns how many it labelled.
  int Assign(ClusterState& state);
  // The layouts still expected for the group's next nodes, in order.
  std::vector<std::string> Expected(const std::string& group) const;

 private:
  KubeWriter& writer_;
  LogSink& log_;
  std::map<std::string, std::deque<std::string>> expected_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MIG_LAYOUTS_H_
