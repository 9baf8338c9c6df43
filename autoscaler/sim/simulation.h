// One run of `gpu-autoscaler simulate`: a discrete-event simulation on a virtual clock of the
// real Controller (every decision is its own: scale-up, scale-down, drains, spot handling)
// over the simulated cloud and the simulated cluster, with the simulated scheduler binding
// pods. Time jumps from one event to the next (an arrival, a pod ending, a machine changing,
// a controller loop as the binary's loop schedule runs it), so a week takes seconds. The
// result has what the report prints: cost, GPU-hours billed, used and idle, pending times,
// scale-ups, scale-downs and preemptions, per group and in all, the lower bound, and nodes
// and idle GPUs over time. Deterministic for a seed.
#ifndef GPUA_AUTOSCALER_SIM_SIMULATION_H_
#define GPUA_AUTOSCALER_SIM_SIMULATION_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/scaledown/idle_cause.h"
#include "autoscaler/sim/fault_profile.h"
#include "autoscaler/sim/fault_soak.h"
#include "autoscaler/sim/sim_scheduler.h"
#include "autoscaler/sim/trace.h"
#include "cloudproviders/node_group_file.h"

namespace gpua::sim {

struct SimulationOptions {
  ControllerOptions controller;
  std::vector<NodeGroupConfig> groups;
  uint64_t seed = 1;
  Scoring scoring = Scoring::kLeastAllocated;
  // How long to simulate from the trace's start; zero: until its last pod would finish,
  // plus two hours for the cluster to wind down.
  absl::Duration until = absl::ZeroDuration();
  absl::Duration sample_every = absl::Minutes(10);
  // When set, the controller's log lines, each prefixed with the virtual time ("[+26h3m] I
  // ..."), info lines up to `verbosity`; called from the run's thread.
  std::function<void(absl::string_view)> log;
  int verbosity = 0;
  // Called now and then with the share of the run done (0 to 1).
  std::function<void(double)> progress;
  // Times since the trace's start at which the controller process dies and a new one starts
  // with no memory of the old (what it kept in memory is lost; the cluster keeps the rest).
  std::vector<absl::Duration> restart_controller_at;
  // Run the trace with no GPU shared (whole_gpus.h): what sharing saves is the difference.
  bool whole_gpus = false;
  // A fault soak (fault_soak.h): faults injected as the profile says, invariants checked.
  std::optional<FaultProfile> faults;
};

struct Percentiles {
  double p50 = 0, p95 = 0, p99 = 0, max = 0;
  int64_t count = 0;
};
Percentiles PercentilesOf(std::vector<float> seconds);

// The figures of a group, or of all groups together.
struct Figures {
  double node_hours = 0;
  double cost_usd = 0;
  double gpu_hours_billed = 0;
  double gpu_hours_used = 0;
  double gpu_hours_idle = 0;
  double idle_cost_usd = 0;
  // In a shared pool: node-hours of nodes running GPU shares beyond the fewest nodes those
  // shares would fill (share_spread.h).
  double share_spread_node_hours = 0;
  // The idle GPU-hours by what kept them (idle_cause.h), as each controller loop filed its
  // nodes' idle GPUs until the next; they sum to gpu_hours_idle, `starting` taking what no
  // loop saw (nodes booting before they register, and the moments between loops).
  IdleGpuCount idle_by_cause;
  double lower_bound_cost_usd = 0;    // the share bound: lower_bound.h
  double packing_bound_cost_usd = 0;  // whole nodes: packing_bound.h
  int scale_ups = 0;                  // nodes asked for
  int repeat_scale_ups = 0;           // increases whose pods were all promised nodes on their way
  int replacements = 0;  // of the nodes asked for, those to replace others (consolidation)
  int scale_downs = 0;   // nodes removed as unneeded (preempted ones are not counted here)
  int preemptions = 0;   // reclaim notices the cloud gave
  // GPU failures (gpuFailuresPerNodeHour, or the fault soak's gpu_failure): how many struck,
  // how many repairs the controller began, and what the broken nodes cost from their failure
  // until they went (the node-hours billed for nothing).
  int gpu_failures = 0;
  int repairs = 0;
  double broken_node_hours = 0;
  double broken_cost_usd = 0;
  Percentiles pending;      // pods bound to the group's nodes (all groups: every pod)
  Percentiles gpu_pending;  // the same, GPU pods only
};

struct GroupFigures {
  std::string id;
  Figures figures;
};

// One sample of the cluster: per group, registered nodes and physical GPUs billed but unused.
struct Sample {
  absl::Duration at;  // since the trace's start
  std::map<std::string, int> nodes;
  std::map<std::string, double> idle_gpus;
};

struct SimulationResult {
  Figures total;
  std::vector<GroupFigures> groups;
  absl::Time start;  // the virtual clock's time at the trace's start
  std::vector<Sample> samples;
  absl::Duration simulated;
  int64_t pods = 0;           // in the trace
  int64_t pods_arrived = 0;   // before the run ended (--until may end it early)
  int64_t pods_finished = 0;  // ran to the end of their time
  int64_t pods_restarted = 0;
  int64_t pods_without_group = 0;  // no group's nodes can hold them
  // From a node's GPU failure to its node gone, over the broken nodes that went; those still
  // there at the end; pods placed on a node after its GPUs had failed.
  Percentiles time_to_repair;
  int64_t broken_at_end = 0;
  int64_t pods_placed_on_broken = 0;
  int64_t loops = 0;  // controller loops run
  int64_t controller_warnings = 0;
  std::vector<std::string> first_warnings;  // the first few, to say what went wrong
  std::optional<FaultSoakResult> soak;      // with faults: what was injected, what broke
};

absl::StatusOr<SimulationResult> Simulate(const Trace& trace, const SimulationOptions& options);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_SIMULATION_H_
