// The trace's Jobs while they have pods, and each one's PodDisruptionBudget as the disruption
// controller would count it from the Job's pods: those bound and not terminating are healthy,
// and the budget allows what they have beyond minAvailable. SimCluster tells it when pods come,
// bind and go; the view reads the Jobs and budgets that changed since it was last patched.
#ifndef GPUA_AUTOSCALER_SIM_SIM_JOBS_H_
#define GPUA_AUTOSCALER_SIM_SIM_JOBS_H_

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "kubeobjects/pods.h"

namespace gpua::sim {

class SimJobs {
 public:
  // A pod of the Job came (pending): the Job is made with its first pod, with `replicas` and
  // its budget's minAvailable, if it has one.
  void PodCreated(const PodSpec& pod, int replicas, std::optional<int> min_available);
  // A pod of the Job went; `was_healthy` when it was bound and not terminating. A Job with no
  // pod left is gone (a lost pod's Job makes it again at once): the view lists the Jobs there
  // are, not every one the trace ever had.
  void PodGone(const PodSpec& pod, bool was_healthy);
  // A pod of the Job became healthy (+1, bound) or stopped being (-1, evicted).
  void CountHealthy(const PodSpec& pod, int delta);
  // The budget over the pod's Job as it stands now; null when the Job has none.
  std::shared_ptr<const PdbObject> BudgetOf(const PodSpec& pod) const;
  // Brings the view's workloads and budgets up to now. Const, as handing out a view is: what
  // changed since is the view's to take.
  void PatchView(ClusterView& view) const;

 private:
  struct Job {
    std::shared_ptr<const WorkloadObject> workload;
    int alive = 0;
    std::optional<int> min_available;
    int healthy = 0;
    mutable std::shared_ptr<const PdbObject> budget;  // made again when healthy changes
  };
  // The budget's object, made when it changed.
  static std::shared_ptr<const PdbObject> Budget(const std::string& job_key, const Job& job);

  std::map<std::string, Job> jobs_;  // by namespace/name
  // Since the last PatchView: Jobs that came or went, by key -> their workload ref; whether a
  // budget came, went or changed.
  mutable absl::flat_hash_map<std::string, std::string> changed_jobs_;
  mutable bool budgets_changed_ = false;
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_SIM_JOBS_H_
