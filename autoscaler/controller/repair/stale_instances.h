// Instances that will never become nodes: those whose creation failed (out of capacity, a
// quota) and those that did not register within the group's provision time. Each is
// deleted through its group, which lowers the target, with cluster-autoscaler's events. The
// cluster state has already backed the group off, so the plan of the same loop goes
// elsewhere.
#ifndef GPUA_AUTOSCALER_CONTROLLER_REPAIR_STALE_INSTANCES_H_
#define GPUA_AUTOSCALER_CONTROLLER_REPAIR_STALE_INSTANCES_H_

#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/group_resizer.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "base/log.h"

namespace gpua {

struct StaleInstanceReport {
  int failed_deleted = 0;
  int unregistered_deleted = 0;
  int delete_errors = 0;
};

class StaleInstanceCleaner {
 public:
  StaleInstanceCleaner(KubeWriter& writer, LogSink& log, const StatusOptions& status)
      : writer_(writer), log_(log), status_(status) {}

  // Says why, and deletes them through `groups`.
  StaleInstanceReport Clean(const ClusterState& state, GroupResizer& groups);

 private:
  bool Delete(const GroupState& g, const std::vector<Instance>& instances, absl::string_view why,
              GroupResizer& groups);

  KubeWriter& writer_;
  LogSink& log_;
  const StatusOptions& status_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_REPAIR_STALE_INSTANCES_H_
