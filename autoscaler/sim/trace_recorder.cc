#include "autoscaler/sim/trace_recorder.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autoscaler/sim/recorded_claims.h"
#include "estimator/gpu/gpu_resource.h"
#include "kubeobjects/api_time.h"
#include "kubeobjects/pod_groups.h"
#include "kubeobjects/pods.h"

namespace gpua::sim {
namespace {

const nlohmann::json& At(const nlohmann::json& j, std::initializer_list<const char*> path) {
  static const nlohmann::json kNull;
  const nlohmann::json* at = &j;
  for (const char* key : path) {
    if (!at->is_object()) return kNull;
    auto it = at->find(key);
    if (it == at->end()) return kNull;
    at = &*it;
  }
  return *at;
}

// An API timestamp, or InfinitePast when absent or unreadable.
absl::Time TimeOf(const nlohmann::json& field) {
  absl::Time t = absl::InfinitePast();
  if (field.is_string() && !ParseApiTime(field.get_ref<const std::string&>(), &t)) {
    return absl::InfinitePast();
  }
  return t;
}

bool Finite(absl::Time t) { return t != absl::InfinitePast() && t != absl::InfiniteFuture(); }

std::string StringAt(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json& v = At(j, path);
  return v.is_string() ? v.get<std::string>() : "";
}

bool Ended(const nlohmann::json& pod) {
  const std::string phase = StringAt(pod, {"status", "phase"});
  return IsFinishedPhase(phase);
}

// When the scheduler bound it: the PodScheduled=True condition, else the kubelet's start.
absl::Time BoundAt(const nlohmann::json& pod) {
  for (const nlohmann::json& c : At(pod, {"status", "conditions"})) {
    if (c.is_object() && c.value("type", "") == "PodScheduled" && c.value("status", "") == "True") {
      const absl::Time t = TimeOf(At(c, {"lastTransitionTime"}));
      if (Finite(t)) return t;
    }
  }
  return TimeOf(At(pod, {"status", "startTime"}));
}

// The last container's end, when every container has ended; InfinitePast otherwise.
absl::Time ContainersEndedAt(const nlohmann::json& pod) {
  const nlohmann::json& statuses = At(pod, {"status", "containerStatuses"});
  if (!statuses.is_array() || statuses.empty()) return absl::InfinitePast();
  absl::Time last = absl::InfinitePast();
  for (const nlohmann::json& s : statuses) {
    const absl::Time t = TimeOf(At(s, {"state", "terminated", "finishedAt"}));
    if (!Finite(t)) return absl::InfinitePast();
    last = std::max(last, t);
  }
  return last;
}

// Every time the pod states, for where a dump ends.
absl::Time LatestStated(const nlohmann::json& pod) {
  absl::Time latest = std::max(TimeOf(At(pod, {"metadata", "creationTimestamp"})),
                               TimeOf(At(pod, {"status", "startTime"})));
  for (const nlohmann::json& f : At(pod, {"metadata", "managedFields"})) {
    latest = std::max(latest, TimeOf(At(f, {"time"})));
  }
  for (const nlohmann::json& c : At(pod, {"status", "conditions"})) {
    latest = std::max(latest, TimeOf(At(c, {"lastTransitionTime"})));
  }
  for (const nlohmann::json& s : At(pod, {"status", "containerStatuses"})) {
    latest = std::max({latest, TimeOf(At(s, {"state", "running", "startedAt"})),
                       TimeOf(At(s, {"state", "terminated", "finishedAt"}))});
  }
  return latest;
}

// What the simulated scheduler reads of a pod, and what was dropped because it does not.
// nlohmann::json's moves are noexcept; clang-tidy 14 reads the implicit members as throwing.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct Fragment {
  nlohmann::json pod;
  bool pod_affinity = false;
  bool spread = false;
  bool host_ports = false;
};

bool KeptAnnotation(const std::string& key) {
  return absl::StartsWith(key, "gpu-autoscaler.io/") ||
         absl::StartsWith(key, "cluster-autoscaler.kubernetes.io/");
}

// Containers by position ("c0", "i1"): their names say nothing the scheduler reads.
nlohmann::json Containers(const nlohmann::json& list, const char* prefix, bool& host_ports) {
  nlohmann::json out = nlohmann::json::array();
  if (!list.is_array()) return out;
  for (const nlohmann::json& c : list) {
    nlohmann::json kept = {{"name", absl::StrCat(prefix, out.size())}};
    for (const char* part : {"requests", "limits"}) {
      const nlohmann::json& q = At(c, {"resources", part});
      if (q.is_object() && !q.empty()) kept["resources"][part] = q;
    }
    if (const nlohmann::json& claims = At(c, {"resources", "claims"});
        claims.is_array() && !claims.empty()) {
      kept["resources"]["claims"] = claims;
    }
    if (const nlohmann::json& restart = At(c, {"restartPolicy"}); restart.is_string()) {
      kept["restartPolicy"] = restart;  // an init container run as a sidecar
    }
    for (const nlohmann::json& port : At(c, {"ports"})) {
      if (port.is_object() && port.value("hostPort", 0) > 0) host_ports = true;
    }
    out.push_back(std::move(kept));
  }
  return out;
}

Fragment SchedulingFragment(const nlohmann::json& pod) {
  Fragment f;
  const nlohmann::json& spec = At(pod, {"spec"});
  nlohmann::json out_spec = {
      {"containers", Containers(At(spec, {"containers"}), "c", f.host_ports)}};
  const nlohmann::json init = Containers(At(spec, {"initContainers"}), "i", f.host_ports);
  if (!init.empty()) out_spec["initContainers"] = init;
  for (const char* key :
       {"nodeSelector", "tolerations", "priority", "overhead", "resourceClaims"}) {
    const nlohmann::json& v = At(spec, {key});
    if (!v.is_null() && !(v.is_object() && v.empty()) && !(v.is_array() && v.empty())) {
      out_spec[key] = v;
    }
  }
  if (const std::string s = StringAt(spec, {"schedulerName"});
      !s.empty() && s != "default-scheduler") {
    out_spec["schedulerName"] = s;
  }
  const nlohmann::json& affinity = At(spec, {"affinity"});
  if (const nlohmann::json& node = At(affinity, {"nodeAffinity"}); node.is_object()) {
    out_spec["affinity"]["nodeAffinity"] = node;
  }
  f.pod_affinity =
      !At(affinity, {"podAffinity"}).is_null() || !At(affinity, {"podAntiAffinity"}).is_null();
  const nlohmann::json& spread = At(spec, {"topologySpreadConstraints"});
  f.spread = spread.is_array() && !spread.empty();
  f.pod["spec"] = std::move(out_spec);
  for (const auto& [key, value] : At(pod, {"metadata", "annotations"}).items()) {
    if (KeptAnnotation(key)) f.pod["metadata"]["annotations"][key] = value;
  }
  return f;
}

// A pod the trace will hold.
struct Recorded {
  absl::Time created, bound, ended;  // ended: the window's end when still running
  absl::Time arrival;                // in the window
  absl::Duration run;                // in the window
  std::string ns, name;
  std::string gang;  // namespace/group, empty when none
  nlohmann::json pod;
  bool gpu = false;
  int32_t gang_size = 0;  // its min-member, as its pods or PodGroup say; 0: not said
};

// One line of the trace: a pod, or a gang's pods of one shape.
struct Line {
  absl::Duration at;
  std::string name, ns;
  int count = 1;
  bool gang = false;
  absl::Duration run;
  nlohmann::json pod;
};

std::string Utc(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

class Writer {
 public:
  Writer(const RecordWindow& window, absl::Time start, RecordSummary& summary)
      : window_(window), summary_(summary) {
    const absl::CivilDay day = absl::ToCivilDay(start, absl::UTCTimeZone());
    zero_ = absl::FromCivil(day, absl::UTCTimeZone());
  }
  absl::Time zero() const { return zero_; }

  // Pods in arrival order; gang members become their gang's lines at the first of them.
  std::vector<Line> Lines(std::vector<Recorded> pods) {
    std::sort(pods.begin(), pods.end(), [](const Recorded& a, const Recorded& b) {
      return std::tie(a.arrival, a.ns, a.name) < std::tie(b.arrival, b.ns, b.name);
    });
    std::map<std::string, std::vector<const Recorded*>> gangs;
    for (const Recorded& p : pods) {
      if (!p.gang.empty()) gangs[p.gang].push_back(&p);
    }
    std::vector<Line> lines;
    for (const Recorded& p : pods) {
      if (p.gang.empty()) {
        lines.push_back(Single(p));
      } else if (auto it = gangs.find(p.gang); it != gangs.end()) {
        AddGang(it->second, lines);
        gangs.erase(it);
      }
    }
    return lines;
  }

 private:
  std::string NameFor(const std::string& ns, const std::string& name, const char* kind) {
    ++named_;
    if (!window_.keep_names) return absl::StrCat(kind, "-", named_);
    // A name may come again (a StatefulSet's pod made anew); a line's name must not.
    const int seen = ++names_[absl::StrCat(ns, "/", name)];
    return seen == 1 ? name : absl::StrCat(name, "-", seen);
  }

  Line Single(const Recorded& p) {
    Line line{p.arrival - zero_, NameFor(p.ns, p.name, "pod"), p.ns, 1, false, p.run, p.pod};
    return line;
  }

  // A gang of one shape is one line with `gang: true`; a gang of several shapes (a launcher
  // and its workers) is a line per shape, joined by the pod-group annotations.
  // A gang of one shape whose size is its pods is one line with `gang: true`; a gang of
  // several shapes (a launcher and its workers), or one whose PodGroup starts it with fewer
  // members than it has, is a line per shape joined by the pod-group annotations.
  void AddGang(const std::vector<const Recorded*>& members, std::vector<Line>& lines) {
    ++summary_.gangs;
    const Recorded& first = *members.front();
    const std::string group = first.gang.substr(first.gang.find('/') + 1);
    const std::string name = NameFor(first.ns, group, "gang");
    int32_t size = 0;
    for (const Recorded* m : members) size = std::max(size, m->gang_size);
    if (size == 0) size = static_cast<int32_t>(members.size());
    std::map<std::string, std::vector<const Recorded*>> by_shape;
    for (const Recorded* m : members) by_shape[m->pod.dump()].push_back(m);
    const bool one_line = by_shape.size() == 1 && size == static_cast<int32_t>(members.size());
    int shape = 0;
    for (const auto& [key, same] : by_shape) {
      Line line{first.arrival - zero_,
                name,
                first.ns,
                static_cast<int>(same.size()),
                one_line,
                absl::ZeroDuration(),
                same.front()->pod};
      for (const Recorded* m : same) line.run = std::max(line.run, m->run);
      if (!one_line) {
        if (by_shape.size() > 1) line.name = absl::StrCat(name, "-", ++shape);
        nlohmann::json& annotations = line.pod["metadata"]["annotations"];
        annotations["scheduling.k8s.io/group-name"] = name;
        annotations["kueue.x-k8s.io/pod-group-total-count"] = absl::StrCat(size);
      }
      lines.push_back(std::move(line));
    }
  }

  const RecordWindow& window_;
  absl::Time zero_;
  RecordSummary& summary_;
  int named_ = 0;
  std::map<std::string, int> names_;
};

// Written by hand, not through an ordered document: a day's trace is 100,000 lines.
std::string LineText(const Line& line, bool keep_names) {
  std::string out = absl::StrCat(R"({"at":")", FormatTraceDuration(line.at), R"(","name":)",
                                 nlohmann::json(line.name).dump());
  if (keep_names) absl::StrAppend(&out, R"(,"namespace":)", nlohmann::json(line.ns).dump());
  if (line.count > 1) absl::StrAppend(&out, R"(,"count":)", line.count);
  if (line.gang) absl::StrAppend(&out, R"(,"gang":true)");
  absl::StrAppend(&out, R"(,"runFor":")", FormatTraceDuration(std::max(line.run, absl::Seconds(1))),
                  R"(","pod":)", line.pod.dump(), "}");
  return out;
}

std::string Header(const RecordedTrace& t, const RecordWindow& window) {
  const RecordSummary& s = t.summary;
  std::vector<std::string> out = {
      absl::StrCat("# gpu-autoscaler record: pods from ", window.source, ", ", Utc(t.start), " to ",
                   Utc(t.end), "."),
      absl::StrCat("# `at` counts from ", Utc(t.zero),
                   ", so times of day match the cluster's clock in UTC."),
      absl::StrCat("# ", s.pods, " pods (", s.gpu_pods, " asking for GPUs) in ", s.lines,
                   " lines, ", s.gangs, " gangs; ", s.still_running,
                   " still running at the end, cut there."),
      absl::StrCat("# Left out: ", s.never_bound, " never bound, ", s.ended_before,
                   " ended before the window, ", s.node_pods, " DaemonSet or static pods, ",
                   s.not_gpu, " without GPUs, ", s.unreadable, " unreadable, ", s.claims_unseen,
                   " naming a claim or claim template not seen."),
      absl::StrCat("# DRA: ", s.dra_objects,
                   " DeviceClasses, claim templates and claims the pods' claims use."),
      absl::StrCat("# Dropped, as simulate does not model them: pod affinity from ",
                   s.pod_affinity_dropped, " pods, topology spread from ", s.spread_dropped,
                   ", host ports from ", s.host_ports_dropped, "."),
  };
  return absl::StrCat(absl::StrJoin(out, "\n"), "\n");
}

}  // namespace

std::string FormatTraceDuration(absl::Duration d) {
  return absl::FormatDuration(absl::Trunc(std::max(d, absl::ZeroDuration()), absl::Seconds(1)));
}

TraceRecorder::Life& TraceRecorder::LifeOf(const nlohmann::json& pod, absl::Time seen) {
  std::string key = StringAt(pod, {"metadata", "uid"});
  if (key.empty()) {
    key = absl::StrCat(StringAt(pod, {"metadata", "namespace"}), "/",
                       StringAt(pod, {"metadata", "name"}));
  }
  Life& life = lives_[key];
  if (Finite(seen) && !Finite(life.first_seen)) life.first_seen = seen;
  return life;
}

namespace {

// Moves the listed members of `from` (an object) into a new object.
nlohmann::json Keep(nlohmann::json& from, std::initializer_list<const char*> keys) {
  nlohmann::json out = nlohmann::json::object();
  if (!from.is_object()) return out;
  for (const char* key : keys) {
    if (auto it = from.find(key); it != from.end()) out[key] = std::move(*it);
  }
  return out;
}

// The annotations a pod's decoding reads (GPU needs, drain rules, gangs, mirror pods); others
// (kubectl's last-applied-configuration can be the whole object again) are left behind.
bool ReadAnnotation(const std::string& key) {
  for (absl::string_view prefix :
       {"gpu-autoscaler.io/", "cluster-autoscaler.kubernetes.io/", "scheduling.k8s.io/",
        "scheduling.volcano.sh/", "kueue.x-k8s.io/", "kubernetes.io/config.mirror"}) {
    if (absl::StartsWith(key, prefix)) return true;
  }
  return false;
}

}  // namespace

nlohmann::json SlimPod(nlohmann::json pod) {
  if (!pod.is_object()) return pod;
  nlohmann::json slim = Keep(pod, {"kind", "metadata", "spec", "status"});
  if (auto& meta = slim["metadata"]; meta.is_object()) {
    meta = Keep(meta, {"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp",
                       "labels", "annotations", "ownerReferences"});
    if (auto it = meta.find("annotations"); it != meta.end() && it->is_object()) {
      nlohmann::json kept = nlohmann::json::object();
      for (auto& [key, value] : it->items()) {
        if (ReadAnnotation(key)) kept[key] = std::move(value);
      }
      *it = std::move(kept);
    }
  }
  if (auto& spec = slim["spec"]; spec.is_object()) {
    spec = Keep(spec, {"nodeName", "nodeSelector", "affinity", "tolerations", "priority",
                       "overhead", "schedulerName", "topologySpreadConstraints", "containers",
                       "initContainers", "resourceClaims"});
    for (const char* list : {"containers", "initContainers"}) {
      auto containers = spec.find(list);
      if (containers == spec.end() || !containers->is_array()) continue;
      for (nlohmann::json& c : *containers) {
        if (c.is_object()) c = Keep(c, {"name", "resources", "ports", "restartPolicy"});
      }
    }
  }
  if (auto& status = slim["status"]; status.is_object()) {
    status = Keep(status, {"phase", "startTime", "conditions", "containerStatuses"});
    if (auto it = status.find("containerStatuses"); it != status.end() && it->is_array()) {
      for (nlohmann::json& c : *it) {
        if (c.is_object()) c = Keep(c, {"name", "state"});
      }
    }
  }
  for (const char* part : {"metadata", "spec", "status"}) {
    if (slim[part].is_null()) slim.erase(part);
  }
  return slim;
}

void TraceRecorder::Saw(nlohmann::json pod, absl::Time seen) {
  Record(std::move(pod), seen, /*gone=*/false);
}

void TraceRecorder::Gone(const nlohmann::json& pod, absl::Time seen) {
  Record(pod, seen, /*gone=*/true);
}

void TraceRecorder::Record(nlohmann::json pod, absl::Time seen, bool gone) {
  Life& life = LifeOf(pod, seen);
  life.stated = std::max(life.stated, LatestStated(pod));
  // What the latest version states, where it states it.
  for (auto [field, time] :
       {std::pair{&life.created, TimeOf(At(pod, {"metadata", "creationTimestamp"}))},
        std::pair{&life.bound, BoundAt(pod)},
        std::pair{&life.containers_ended, ContainersEndedAt(pod)},
        std::pair{&life.deleting, TimeOf(At(pod, {"metadata", "deletionTimestamp"}))}}) {
    if (Finite(time)) *field = time;
  }
  life.ended = life.ended || Ended(pod);
  if (Finite(seen)) {
    if (!StringAt(pod, {"spec", "nodeName"}).empty()) {
      life.bound_seen = std::min(life.bound_seen, seen);
    }
    if (Ended(pod)) life.ended_seen = std::min(life.ended_seen, seen);
    if (gone) life.gone = std::min(life.gone, seen);
  }
  life.deleted = life.deleted || gone;
  // Its times are read: what is written of it is the rest of its metadata, and its spec.
  nlohmann::json slim = SlimPod(std::move(pod));
  slim.erase("status");
  if (auto meta = slim.find("metadata"); meta != slim.end() && meta->is_object()) {
    meta->erase("creationTimestamp");
    meta->erase("deletionTimestamp");
  }
  life.last = slim.dump();
  life.last.shrink_to_fit();  // dump() grows its string by doubling: half of it was spare
}

absl::Time TraceRecorder::Latest() const {
  absl::Time latest = absl::InfinitePast();
  for (const auto& [key, life] : lives_) {
    latest = std::max(latest, life.stated);
    for (absl::Time seen : {life.first_seen, life.bound_seen, life.ended_seen, life.gone}) {
      if (Finite(seen)) latest = std::max(latest, seen);
    }
  }
  return latest;
}

namespace {

struct Times {
  absl::Time created, bound, ended;  // bound and ended InfiniteFuture when not (yet)
};

// What the watch saw had happened by the time it saw it. A time the pod states within a
// minute past that is a clock a little ahead of ours, and kept for its precision; further past
// it is a broken clock (a node's, for containers' ends) or object, and the seen time is kept.
absl::Time NoLaterThanSeen(absl::Time stated, absl::Time seen) {
  constexpr absl::Duration kClockSkewAllowance = absl::Minutes(1);
  return stated - seen > kClockSkewAllowance ? seen : stated;
}

Times TimesOf(const TraceRecorder::Life& life) {
  Times t;
  t.created = Finite(life.created) ? life.created : life.first_seen;
  t.bound = Finite(life.bound) ? NoLaterThanSeen(life.bound, life.bound_seen) : life.bound_seen;
  if (!Finite(t.bound)) t.bound = absl::InfiniteFuture();
  // A pod exists before it is bound; a skewed clock or a broken object may state otherwise.
  t.created = std::min(t.created, t.bound);
  t.ended = absl::InfiniteFuture();
  if (life.ended || life.deleted) {
    for (absl::Time candidate :
         {life.containers_ended, life.ended_seen, life.gone, life.deleting}) {
      if (Finite(candidate)) {
        t.ended = NoLaterThanSeen(candidate, std::min(life.ended_seen, life.gone));
        break;
      }
    }
  }
  return t;
}

// The pods that ran before the window's end, and why the others are left out.
std::vector<Recorded> Candidates(const std::map<std::string, TraceRecorder::Life>& lives,
                                 const absl::flat_hash_map<std::string, int32_t>& gang_sizes,
                                 const RecordedClaims& claims, const RecordWindow& window,
                                 RecordSummary& s) {
  std::vector<Recorded> pods;
  for (const auto& [key, life] : lives) {
    const nlohmann::json pod = nlohmann::json::parse(life.last);
    const PodSpec spec = DecodePod(pod);
    if (!spec.invalid.ok()) {
      ++s.unreadable;
      s.problems.push_back(std::string(spec.invalid.message()));
      continue;
    }
    const bool mirror =
        At(pod, {"metadata", "annotations"}).contains("kubernetes.io/config.mirror");
    if (mirror || (spec.owner.has_value() && spec.owner->kind == "DaemonSet")) {
      ++s.node_pods;
      continue;
    }
    const bool gpu = AsksForGpus(spec.requests) || !spec.claim_refs.empty();
    if (window.gpu_only && !gpu) {
      ++s.not_gpu;
      continue;
    }
    const Times t = TimesOf(life);
    if (Finite(t.created) && t.created > window.end) {
      ++s.after_end;
      s.problems.push_back(
          absl::StrCat("Pod ", spec.namespace_name, "/", spec.name, ": made at ",
                       absl::FormatTime(absl::RFC3339_sec, t.created, absl::UTCTimeZone()),
                       ", after the record's end"));
      continue;
    }
    if (!Finite(t.created) || t.bound > window.end || t.bound >= t.ended) {
      ++s.never_bound;
      continue;
    }
    if (const std::string unseen = claims.Unseen(spec.namespace_name, pod); !unseen.empty()) {
      ++s.claims_unseen;
      s.problems.push_back(
          absl::StrCat("Pod ", spec.namespace_name, "/", spec.name, ": ", unseen, " was not seen"));
      continue;
    }
    if (t.ended > window.end) ++s.still_running;
    Fragment f = SchedulingFragment(pod);
    s.pod_affinity_dropped += f.pod_affinity;
    s.spread_dropped += f.spread;
    s.host_ports_dropped += f.host_ports;
    Recorded r{t.created,
               t.bound,
               std::min(t.ended, window.end),
               t.created,
               absl::ZeroDuration(),
               spec.namespace_name,
               spec.name,
               spec.gang.has_value() ? spec.gang->name : "",
               std::move(f.pod),
               gpu};
    if (spec.gang.has_value()) {
      r.gang_size = spec.gang->min_member;
      if (auto it = gang_sizes.find(spec.gang->name); r.gang_size == 0 && it != gang_sizes.end()) {
        r.gang_size = it->second;
      }
    }
    pods.push_back(std::move(r));
  }
  return pods;
}

}  // namespace

RecordedTrace TraceRecorder::Write(const RecordWindow& window) const {
  RecordedTrace out;
  RecordSummary& s = out.summary;
  RecordedClaims claims(dra_objects_, window.keep_names);
  std::vector<Recorded> pods = Candidates(lives_, gang_sizes_, claims, window, s);
  absl::Time start = window.start;
  if (!Finite(start)) {
    start = window.end;
    for (const Recorded& r : pods) start = std::min(start, r.created);
  }
  std::vector<Recorded> kept;
  for (Recorded& r : pods) {
    if (r.ended < start) {
      ++s.ended_before;
      continue;
    }
    // A pod from before the window is there at its start, with what is left of its run.
    r.arrival = std::max(r.created, start);
    r.run = r.ended - std::max(r.bound, start);
    ++s.pods;
    s.gpu_pods += r.gpu;
    kept.push_back(std::move(r));
  }
  Writer writer(window, start, s);
  std::vector<Line> lines = writer.Lines(std::move(kept));
  s.lines = static_cast<int64_t>(lines.size());
  out.zero = writer.zero();
  out.start = start;
  out.end = window.end;
  for (Line& line : lines) claims.Use(line.ns, line.pod);
  std::string body;
  const std::vector<std::string> objects = claims.Lines();
  s.dra_objects = static_cast<int64_t>(objects.size());
  for (const std::string& object : objects) absl::StrAppend(&body, object, "\n");
  for (const Line& line : lines) absl::StrAppend(&body, LineText(line, window.keep_names), "\n");
  out.text = Header(out, window) + body;
  return out;
}

int64_t RecordDump(const std::vector<nlohmann::json>& objects, TraceRecorder& recorder) {
  int64_t not_pods = 0;
  std::vector<nlohmann::json> groups;
  std::vector<nlohmann::json> dra;
  for (const nlohmann::json& o : objects) {
    const bool event = o.is_object() && o.contains("type") && o.contains("object");
    const nlohmann::json& pod = event ? o["object"] : o;
    const std::string kind = pod.is_object() ? pod.value("kind", "") : "";
    if (kind == "PodGroup") {
      groups.push_back(pod);
    } else if (kind == "DeviceClass" || kind == "ResourceClaimTemplate" ||
               kind == "ResourceClaim") {
      dra.push_back(pod);
    } else if (!IsPodObject(pod) || !pod.contains("spec")) {
      ++not_pods;
    } else if (event && o["type"] == "DELETED") {
      recorder.Gone(pod, absl::InfinitePast());
    } else {
      recorder.Saw(pod, absl::InfinitePast());
    }
  }
  recorder.SetGangSizes(PodGroupMinMembers(groups));
  recorder.SetDraObjects(std::move(dra));
  return not_pods;
}

}  // namespace gpua::sim
