// Node time that spread GPU shares kept. In a pool whose GPUs are shared (time-slicing, MPS,
// MIG, AMD partitions), every node running at least one share stays; packed, the same shares
// would fill ceil(physical GPUs they use / GPUs per node) nodes. The nodes beyond that, over
// time, are what spreading cost: the figure `simulate` shows per pool so a person sees whether
// sharing saved nodes or only spread work over more of them. (A lower estimate of the nodes
// the shares need: MIG slices of different layouts may need more.)
#ifndef GPUA_AUTOSCALER_SIM_SHARE_SPREAD_H_
#define GPUA_AUTOSCALER_SIM_SHARE_SPREAD_H_

#include <map>
#include <string>

#include "absl/time/time.h"

namespace gpua::sim {

class ShareSpreadTally {
 public:
  // A pool whose GPUs are shared, with `gpus_per_node` physical GPUs a node; pools not added
  // are not counted.
  void AddPool(const std::string& pool, int gpus_per_node);
  // A node of `pool` whose share pods used `before` physical GPUs now use `after`.
  void NodeUse(const std::string& pool, double before, double after, absl::Time now);
  // The node time spread shares kept in `pool` until `now`.
  absl::Duration Kept(const std::string& pool, absl::Time now) const;

 private:
  struct Pool {
    int gpus_per_node = 1;
    int nodes_with_shares = 0;
    double gpus_used = 0;
    absl::Time since = absl::InfinitePast();
    absl::Duration kept;
    int Excess() const;
  };
  std::map<std::string, Pool> pools_;
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_SHARE_SPREAD_H_
