// The packing bound: at each instant, the cheapest set of whole nodes of the node groups that
// holds every pod the trace has running then (each started on arrival, none waiting), summed
// over time. Where the share bound (lower_bound.h) lets a pod pay only its share of a node,
// this one pays for whole nodes: three pods that each need 60% of a node need three nodes.
//
// Finding the cheapest set exactly is bin packing, so the bound solves a relaxation that is
// never above it: pods may be split across nodes (only the totals must fit), and a pod that
// several groups hold must fit, with the others that can only go there, in the nodes of the
// groups it may use (Hall's condition, for every set of groups and every resource: the pods
// that fit only inside the set ask for no more than the set's nodes have), and no node holds
// two pods that each want more than half of one of its resources. Node counts stay whole.
// Every real packing of the pods meets those conditions, so the cheapest node counts that
// meet them cost no more than any real packing. Resources are the nodes' allocatable
// (cpu, memory, GPUs as advertised, a pod slot each) and their physical GPUs, so a MIG
// pool's devices of different profiles share the GPUs' memory slices.
//
// Time is taken in windows (the trace's span over at most `max_windows`, never shorter than
// what the events need): a window pays for the pods running throughout it, which at every
// instant in it are no more than those running then, so the sum stays a lower bound on every
// schedule that starts each pod when it arrives. A schedule that makes pods wait can line
// them up more tightly in time, so it is not bound by this figure; the share bound is.
#ifndef GPUA_AUTOSCALER_SIM_PACKING_BOUND_H_
#define GPUA_AUTOSCALER_SIM_PACKING_BOUND_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "autoscaler/sim/group_shape.h"
#include "autoscaler/sim/trace.h"
#include "cloudproviders/node_group_file.h"
#include "estimator/gpu/gpu_predicates.h"

namespace gpua::sim {

struct PackingBound {
  double cost_usd = 0;
  std::map<std::string, double> cost_by_group;
  int64_t pods_without_group = 0;  // fit no group's nodes: left out, as by the share bound
  int64_t windows = 0;             // instants solved
};

PackingBound ComputePackingBound(const Trace& trace, const std::vector<NodeGroupConfig>& groups,
                                 const GpuPolicy& policy = {}, int64_t max_windows = 20000);

// The relaxation at one instant: pods by class, the groups they fit, the cheapest whole
// nodes. Exposed so tests can hold it against an exhaustive search.
class PackingModel {
 public:
  // Keeps its own copy of the groups: its shapes point into it.
  PackingModel(std::vector<NodeGroupConfig> groups, const GpuPolicy& policy);
  PackingModel(const PackingModel&) = delete;
  PackingModel& operator=(const PackingModel&) = delete;

  // The class of pods like `pod`; nullopt when no group's nodes can hold it.
  std::optional<int> AddClass(const PodSpec& pod);

  struct Packing {
    double cost_per_hour = 0;
    std::vector<double> cost_by_group;  // per hour, by group in the order given
  };
  // The cheapest node counts meeting the relaxation for `count[k]` pods of class k at once.
  Packing Cheapest(const std::vector<int64_t>& count) const;

  const std::vector<GroupShape>& groups() const { return shapes_; }

 private:
  struct PodClass {
    std::vector<int> groups;  // the groups whose nodes hold it
    std::vector<double> use;  // by resource; physical GPUs: the least on any of its groups
  };
  // Resources: each name any group's node kinds allocate, a pod slot and physical GPUs;
  // then, for each of those but the pod slot, "more than half of it", of which a node has
  // one. Capacity per group: the most any of its node kinds has (0: none).
  size_t Resource(const std::string& name);
  void SolveComponent(const std::vector<int>& members, const std::vector<int>& classes,
                      const std::vector<int64_t>& count, Packing& out) const;

  const std::vector<NodeGroupConfig> configs_;
  std::vector<GroupShape> shapes_;
  GpuPolicy policy_;
  std::vector<std::string> resources_;
  std::vector<std::vector<double>> capacity_;  // by group, by resource
  std::vector<PodClass> classes_;
  size_t pod_slot_ = 0;
  size_t physical_gpus_ = 0;
  size_t real_resources_ = 0;  // the first ones; each has its half after them
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_PACKING_BOUND_H_
