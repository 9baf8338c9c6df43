// A fault soak around one simulation run (`simulate --faults`): the controller reads the
// cluster through a cache that goes stale, writes to it through an API server that fails,
// reaches the cloud through a plugin that fails; the cloud runs out of capacity, loses
// instances to spot reclaims in bursts, and launches instances that never register or never
// get their GPUs; the controller process dies between loops and in the middle of its work,
// and two replicas share a Lease whose leader now and then cannot renew it. The invariants
// (invariant_checker.h) are checked on every loop and every change. Deterministic for a seed.
#ifndef GPUA_AUTOSCALER_SIM_FAULT_SOAK_H_
#define GPUA_AUTOSCALER_SIM_FAULT_SOAK_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "autoscaler/sim/fault_injector.h"
#include "autoscaler/sim/faulty_cloud.h"
#include "autoscaler/sim/faulty_kube_writer.h"
#include "autoscaler/sim/invariant_checker.h"
#include "autoscaler/sim/sim_cluster.h"
#include "autoscaler/sim/sim_lease.h"
#include "autoscaler/sim/stale_cluster_source.h"
#include "cloudproviders/simulated/simulated_cloud.h"

namespace gpua::sim {

struct FaultSoakResult {
  std::map<std::string, int64_t> faults;      // injected, by kind (every kind listed)
  std::map<std::string, int64_t> invariants;  // violations, by invariant (every one listed)
  std::vector<Violation> first_violations;    // the first of each kind, in time order
  // Where the restarts in the middle of a loop hit: "scale-up", "taint", "evict", ...
  std::map<std::string, int64_t> restarts_mid;
  int64_t leader_transitions = 0;
  // Evictions the simulated API server refused because a PodDisruptionBudget allowed none.
  int64_t evictions_refused_by_budget = 0;
  int64_t violations() const;
};

// What a soak injects and checks against.
struct FaultSoakSettings {
  const FaultProfile& profile;
  uint64_t seed = 0;
  const ControllerOptions& options;  // the controller's, whose promises are checked
  const std::vector<NodeGroupConfig>& groups;
  std::set<std::string> steady_stockouts;  // groups the trace itself stocks out, left to it
};

class FaultSoak {
 public:
  FaultSoak(FaultSoakSettings settings, SimCluster& cluster, SimulatedCloud& cloud,
            const Clock& clock);
  ~FaultSoak();
  FaultSoak(const FaultSoak&) = delete;
  FaultSoak& operator=(const FaultSoak&) = delete;

  // What the controller reads, writes through and scales through.
  ClusterSource& source() { return source_; }
  KubeWriter& writer() { return writer_; }
  CloudProvider& cloud() { return faulty_cloud_; }
  int replicas() const { return replicas_; }

  absl::Time NextEvent() const;
  // The faults in time due by now; true when the cloud's machines changed.
  bool ApplyDue(absl::Time now);
  // The machines as the kubelets report them: some never register, some never get GPUs.
  std::vector<Machine> Filter(std::vector<Machine> machines);

  struct Turn {
    int replica;
    bool new_process;  // its controller must start afresh first
  };
  // The replicas that act in the loop at `now`.
  std::vector<Turn> Turns(absl::Time now);
  // After a replica's loop; true when its process died in it (the next turn starts anew).
  bool AfterLoop(const LoopReport& report, int64_t arrived);

  FaultSoakResult Result() const;

 private:
  void Inject(FaultKind kind, absl::Time now);
  void StockOut(absl::Time now);
  void SpotBurst();

  FaultInjector faults_;
  SimCluster& cluster_;
  SimulatedCloud& cloud_;
  const std::vector<NodeGroupConfig>& groups_;
  std::set<std::string> steady_stockouts_;
  InvariantChecker checker_;
  StaleClusterSource source_;
  FaultyKubeWriter writer_;
  FaultyCloud faulty_cloud_;
  const int replicas_;
  SimLease lease_;
  std::vector<int64_t> terms_seen_;
  std::vector<absl::Time> failing_until_;        // by replica: its Lease calls fail until then
  std::map<FaultKind, absl::Time> next_;         // faults in time, when each comes next
  std::map<std::string, absl::Time> out_until_;  // groups our stockouts hold
  std::set<std::string> seen_machines_, hidden_, without_gpus_;
  bool restart_pending_ = false;
  std::map<std::string, int64_t> restarts_mid_;
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_FAULT_SOAK_H_
