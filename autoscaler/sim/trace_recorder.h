// What `gpu-autoscaler record` keeps of the pods it sees come and go, and the trace it writes
// of them for `simulate`: when each arrived (creationTimestamp), how long it ran once bound
// (from PodScheduled=True to its containers' end, its deletion, or the end of the recording),
// what the scheduler reads of it (requests, selectors, node affinity, tolerations, priority,
// the annotations this project reads, its DRA claims), and the gangs its PodGroup makes, with
// the DeviceClasses, ResourceClaimTemplates and ResourceClaims its claims use
// (recorded_claims.h). Names and namespaces of pods are left out unless asked for; labels
// always are.
#ifndef GPUA_AUTOSCALER_SIM_TRACE_RECORDER_H_
#define GPUA_AUTOSCALER_SIM_TRACE_RECORDER_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"

namespace gpua::sim {

struct RecordWindow {
  // Pods from before `start` are there at it; pods that ended before it are left out.
  absl::Time start = absl::InfinitePast();  // InfinitePast: from the first pod's arrival
  absl::Time end;                           // pods still running are cut here
  bool keep_names = false;
  bool gpu_only = false;  // only pods that ask for GPUs of some kind
  std::string source;     // named in the trace's header ("https://10.0.0.1:6443", "pods.json")
};

// What was left out or changed, so the person reading the trace knows what it holds.
struct RecordSummary {
  int64_t pods = 0;  // in the trace
  int64_t gpu_pods = 0;
  int64_t lines = 0;
  int64_t gangs = 0;
  int64_t still_running = 0;    // cut at the end of the window
  int64_t never_bound = 0;      // left out: no run time to give them
  int64_t after_end = 0;        // left out: made after the window's end (each is in `problems`)
  int64_t other_namespace = 0;  // left out: not in the namespace asked for
  int64_t ended_before = 0;     // left out: ended before the window
  int64_t node_pods = 0;        // left out: DaemonSet and static pods come with their nodes
  int64_t not_gpu = 0;          // left out with gpu_only
  int64_t unreadable = 0;       // left out; each is in `problems`
  // Left out: they name a claim or claim template the record did not see (each is in
  // `problems`); simulate could not resolve them.
  int64_t claims_unseen = 0;
  int64_t dra_objects = 0;  // DeviceClasses, claim templates and claims the trace carries
  // Dropped from pods that had them: `simulate` does not model rules between pods.
  int64_t pod_affinity_dropped = 0;
  int64_t spread_dropped = 0;
  int64_t host_ports_dropped = 0;
  std::vector<std::string> problems;  // "Pod ns/name: field: what"
};

struct RecordedTrace {
  std::string text;  // the trace: a header of `#` comments, then one arrival per line
  absl::Time zero;   // what `at` counts from: 00:00 UTC of the window's first day
  absl::Time start, end;
  RecordSummary summary;
};

class TraceRecorder {
 public:
  // A pod as listed or watched at `seen` (InfinitePast when not known, as in a dump).
  void Saw(nlohmann::json pod, absl::Time seen);
  // A pod deleted, or gone from a relist, at `seen` (InfinitePast when not known).
  void Gone(const nlohmann::json& pod, absl::Time seen);

  // Gang sizes from PodGroup objects (namespace/name -> spec.minMember, as
  // PodGroupMinMembers reads them), for gangs whose pods do not say their size.
  void SetGangSizes(absl::flat_hash_map<std::string, int32_t> min_members) {
    gang_sizes_ = std::move(min_members);
  }
  // The cluster's DeviceClasses, ResourceClaimTemplates and ResourceClaims, as listed (each
  // with its kind), for the pods' claims.
  void SetDraObjects(std::vector<nlohmann::json> objects) { dra_objects_ = std::move(objects); }

  // The latest time any pod says something happened (created, bound, ended, deleted): where
  // a dump ends.
  absl::Time Latest() const;
  size_t size() const { return lives_.size(); }

  RecordedTrace Write(const RecordWindow& window) const;

  // What is known of one pod: the times it states (from its latest version) and those the
  // watch saw, and the pod itself slimmed (SlimPod, without its status) and kept as text.
  struct Life {
    std::string last;
    absl::Time created = absl::InfinitePast();           // metadata.creationTimestamp
    absl::Time bound = absl::InfinitePast();             // PodScheduled=True, else status.startTime
    absl::Time containers_ended = absl::InfinitePast();  // every container terminated
    absl::Time deleting = absl::InfinitePast();          // metadata.deletionTimestamp
    bool ended = false;                                  // Succeeded or Failed
    absl::Time first_seen = absl::InfinitePast();
    absl::Time bound_seen = absl::InfiniteFuture();  // first seen with a node
    absl::Time ended_seen = absl::InfiniteFuture();  // first seen Succeeded or Failed
    absl::Time gone = absl::InfiniteFuture();
    bool deleted = false;
    absl::Time stated = absl::InfinitePast();  // the latest time any version of it stated
  };

 private:
  Life& LifeOf(const nlohmann::json& pod, absl::Time seen);
  // Saw, telling whether it was a deletion.
  void Record(nlohmann::json pod, absl::Time seen, bool gone);

  std::map<std::string, Life> lives_;  // by uid (namespace/name when it has none)
  absl::flat_hash_map<std::string, int32_t> gang_sizes_;
  std::vector<nlohmann::json> dra_objects_;
};

// Feeds the objects of a kubectl dump to `recorder`: `kubectl get pods -o json` (a List),
// with `--watch` (one Pod after another) or `--output-watch-events` ({"type", "object"}, where
// DELETED says the pod went). Times come from the pods themselves. PodGroups in it
// (`kubectl get pods,podgroups`) give their gangs' sizes, and DeviceClasses,
// ResourceClaimTemplates and ResourceClaims in it the pods' claims. Returns how many objects
// were none of these (left out).
int64_t RecordDump(const std::vector<nlohmann::json>& objects, TraceRecorder& recorder);

// What the recorder keeps of a pod: what its decoding reads (the scheduling fields, the
// containers' resources and ports, owners, labels, the annotations this project reads) and the
// status it times it by. managedFields, volumes, images, commands, environment and other
// annotations (kubectl's last-applied-configuration is the whole object again) stay behind:
// most of a pod's bytes, none of them needed to replay it.
nlohmann::json SlimPod(nlohmann::json pod);

// A trace duration at second precision, as the trace reader reads it ("26h3m10s", "0").
std::string FormatTraceDuration(absl::Duration d);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_TRACE_RECORDER_H_
