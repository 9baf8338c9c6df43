// Which nodes are broken, by which signal, since when, and when their toleration ends: the
// repair policies (model/repair_policy.h) read against each node of a group. A node still
// starting is judged by the startup rules (cluster_state.h) instead, and a node being removed
// not at all. A condition counts from its lastTransitionTime; a taint, GPUs gone missing or a
// condition without a time, from when this process first saw it, so a restart delays a
// repair and never causes one.
#ifndef GPUA_AUTOSCALER_CONTROLLER_REPAIR_NODE_HEALTH_H_
#define GPUA_AUTOSCALER_CONTROLLER_REPAIR_NODE_HEALTH_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/repair_policy.h"

namespace gpua {

struct UnhealthyNode {
  int node = -1;        // index into ClusterState::nodes
  RepairPolicy policy;  // of the signals it shows, the one whose toleration ends first
  absl::Time since;     // when the signal began
  std::string detail;   // the condition's reason and message, when it gives them
  absl::Time due() const { return since + policy.toleration; }
  bool Due(absl::Time now) const { return now >= due(); }
  // "AcceleratedHardwareReady=False for 12m (NvidiaXID79Error: GPU has fallen off the bus)".
  std::string Describe(absl::Time now) const;
};

class NodeHealthJudge {
 public:
  explicit NodeHealthJudge(const RepairPolicies& policies) : policies_(policies) {}

  // Every node of a group showing a signal now, due or not, in state order.
  std::vector<UnhealthyNode> Judge(const ClusterState& state, absl::Time now);

 private:
  // The node's signal for `p`, if it shows it; `seen` collects what the memory must keep.
  std::optional<UnhealthyNode> Signal(const NodeStatus& s, const RepairPolicy& p, absl::Time now,
                                      absl::flat_hash_map<std::string, absl::Time>& seen) const;

  const RepairPolicies& policies_;
  // "node\x1fpolicy key" -> when first seen, for signals the cluster gives no time for.
  absl::flat_hash_map<std::string, absl::Time> first_seen_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_REPAIR_NODE_HEALTH_H_
