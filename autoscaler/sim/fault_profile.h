// What a fault soak injects (`simulate --faults FILE`, or the built-in `default`): for each
// kind of fault, how often. Faults on calls (an API write, a plugin call) happen to a share
// of calls; faults in time (a watch cut, a stockout, a spot burst, a restart, a leader
// change) come at random with a mean interval, and some last a while. The file:
//
//   faults:
//     api_error_evict: {probability: 0.02}
//     watch_cut: {every: 3h, duration: 40s}
//     gpu_failure: {gpuFailuresPerNodeHour: 0.01}
//   workload:
//     disruption_budgets: {share: 0.3}
//     not_safe_to_evict: {share: 0.05}
//
// Kinds not named do not happen; every kind is listed in fault_kind.h's order. `workload`
// is what the soak adds to the trace's Jobs (soak_workload.h): the PodDisruptionBudgets and
// drain rules a production cluster holds the controller to.
#ifndef GPUA_AUTOSCALER_SIM_FAULT_PROFILE_H_
#define GPUA_AUTOSCALER_SIM_FAULT_PROFILE_H_

#include <array>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace gpua::sim {

enum class FaultKind {
  // Kubernetes API errors (5xx, 429 with Retry-After, timeouts that may have applied) on
  // each kind of write.
  kApiErrorTaint,     // taints and cordons
  kApiErrorAnnotate,  // annotations and labels
  kApiErrorEvict,
  kApiErrorDelete,  // the Node object
  kApiErrorStatus,  // nominations, Events, the status ConfigMap
  // The informers' view stops following the cluster for a while: a cut watch, then a
  // relist after 410 Gone.
  kWatchCut,
  kRelistGone,
  // The provider plugin: past its deadline (a change may still have been made), Unavailable,
  // Internal, answers that make no sense.
  kPluginSlow,
  kPluginUnavailable,
  kPluginInternal,
  kPluginGarbage,
  // The cloud.
  kStockout,
  kNeverRegisters,        // an instance whose kubelet never registers
  kRegistersWithoutGpus,  // registers, but its device plugin never advertises GPUs
  kSpotBurst,             // reclaim notices for several spot instances at once
  // A machine gone, its Node object stays a while (NotReady, unreachable), as when the
  // cloud's node lifecycle controller is slow or absent: the autoscaler deletes the object.
  kNodeObjectLingers,
  // A running GPU node's GPUs fail (XID 79): its Node says AcceleratedHardwareReady=False and
  // the controller's repair must replace it. A rate per node-hour (gpuFailuresPerNodeHour).
  kGpuFailure,
  // The controller process.
  kRestartBetweenLoops,
  kRestartMidAction,  // dies at a random write or provider change within a loop
  kLeaderChange,      // the leader cannot renew its Lease; the other replica takes over
};
inline constexpr size_t kFaultKindCount = 20;

absl::string_view FaultKindName(FaultKind kind);
std::optional<FaultKind> FaultKindNamed(absl::string_view name);
// Faults that happen to calls (a probability), as against faults in time (an interval).
bool IsCallFault(FaultKind kind);
// Faults that strike each node at a rate per node-hour.
bool IsNodeFault(FaultKind kind);

struct FaultRate {
  double probability = 0;                           // per call, for call faults
  absl::Duration every = absl::InfiniteDuration();  // mean interval, for faults in time
  absl::Duration duration = absl::ZeroDuration();   // how long one lasts, where it lasts
  double per_node_hour = 0;                         // for faults that strike each node
  bool Active() const {
    return probability > 0 || every < absl::InfiniteDuration() || per_node_hour > 0;
  }
};

// Shares of the trace's Jobs, drawn for the seed.
struct SoakWorkload {
  double disruption_budgets = 0;  // given a PodDisruptionBudget
  double not_safe_to_evict = 0;   // whose pods say safe-to-evict: "false"
  bool Any() const { return disruption_budgets > 0 || not_safe_to_evict > 0; }
};

struct FaultProfile {
  std::array<FaultRate, kFaultKindCount> rates;
  SoakWorkload workload;
  const FaultRate& rate(FaultKind k) const { return rates[static_cast<size_t>(k)]; }
  FaultRate& rate(FaultKind k) { return rates[static_cast<size_t>(k)]; }
  bool Any() const;
};

// Every kind, often enough that a day sees most of them and a 10,000 node-hour soak sees
// each a hundred times.
FaultProfile DefaultFaultProfile();
// `source` names the input in errors, which name the fault kind and field.
absl::StatusOr<FaultProfile> ParseFaultProfile(absl::string_view text, absl::string_view source);
// "default", or a file.
absl::StatusOr<FaultProfile> LoadFaultProfile(const std::string& spec);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_FAULT_PROFILE_H_
