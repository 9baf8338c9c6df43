// A workload trace for `gpu-autoscaler simulate`: JSON Lines, one arrival (or one cloud event)
// per line, in any order:
//
//   {"at": "2h30m", "name": "ft-7", "count": 1, "runFor": "4h", "pod": {"spec": {...}}}
//   {"at": "1d2h", "name": "nb", "count": 3, "runFor": "45m", "podTemplate": "pods/nb.yaml"}
//   {"at": "36h", "name": "pretrain", "count": 4, "gang": true, "runFor": "12h", "pod": {...}}
//   {"at": "3d", "stockout": "h100-spot", "for": "6h"}
//
// `at` is the time since the trace starts: seconds, or a duration ("90s", "2h30m", "1d12h").
// `pod` is a Pod (metadata: labels and annotations; spec) or `podTemplate` a YAML or JSON
// file holding one, relative to the trace. `count` pods named name-0, name-1, ... arrive
// together (one pod named `name` when count is 1); each runs `runFor` once bound. `gang`
// makes them one gang that starts only when every member is bound. Pods are owned by a Job
// of the line's name, so they may move when their node is drained. A malformed line is an
// error naming its line and field, before anything is simulated.
//
// Pods may ask for DRA devices (spec.resourceClaims, or an extended resource a DeviceClass
// serves). The DeviceClasses, ResourceClaimTemplates and ResourceClaims they use come from
// the same files as the pods (a podTemplate file may hold them beside its Pod, a v1 List may
// mix kinds), from an {"objects": "classes.yaml"} line, or inline, one {"object": {...}} a
// line. A claim or template no pod can find, or a class no claim can find, is an error
// naming the line.
#ifndef GPUA_AUTOSCALER_SIM_TRACE_H_
#define GPUA_AUTOSCALER_SIM_TRACE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "kubeobjects/dra_objects.h"
#include "kubeobjects/pods.h"

namespace gpua::sim {

struct TraceArrival {
  int line = 0;
  absl::Duration at;
  std::string name;
  int count = 1;
  absl::Duration run_for;
  // The pod every one of them is (named after `name`), owned by Job `name`; shared by the
  // line's pods, and by lines that use the same template or fragment.
  std::shared_ptr<const PodObject> shape;
  // Distinct for distinct pod shapes: the simulated scheduler tries one pod of a shape per
  // pass when the shape does not fit.
  int shape_id = 0;
  bool gang = false;
  bool gpu = false;  // asks for GPUs of any kind
  // A PodDisruptionBudget over the Job's pods with this minAvailable (the only form the
  // disruption controller computes for a Job, which has no scale).
  std::optional<int> min_available;
};

// The label the Job controller puts on its pods; a trace line's budget selects by it.
inline constexpr char kJobNameLabel[] = "batch.kubernetes.io/job-name";

// Gives the line's Job a PodDisruptionBudget (`min_available`), and its pods the Job's
// label for the budget to select them by.
void GiveDisruptionBudget(TraceArrival& arrival, int min_available);

// A cloud with no capacity for `group` from `at` for `duration`.
struct TraceStockout {
  int line = 0;
  absl::Duration at;
  std::string group;
  absl::Duration duration;
};

struct Trace {
  std::vector<TraceArrival> arrivals;  // by time, then line
  std::vector<TraceStockout> stockouts;
  // The DeviceClasses, ResourceClaimTemplates and ResourceClaims the pods' claims use; null
  // when the trace has none.
  std::shared_ptr<const DraObjects> dra;
  int shapes = 0;
  absl::Duration end;  // when the last pod would finish, started on arrival
  int64_t pods() const;
};

// `source` names the trace in errors ("week.jsonl"); `base_dir` is where podTemplate paths
// start.
absl::StatusOr<Trace> ParseTrace(absl::string_view text, absl::string_view source,
                                 const std::string& base_dir);
absl::StatusOr<Trace> ReadTraceFile(const std::string& path);

// The trace as far as `until`: pods arriving by then, each run cut at `until`. What a run cut
// short (simulate --until) is measured against.
Trace TraceUntil(const Trace& trace, absl::Duration until);

// "1d12h", "90s", "2h30m" (absl's durations and a leading count of days).
absl::StatusOr<absl::Duration> ParseTraceDuration(absl::string_view text);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_TRACE_H_
