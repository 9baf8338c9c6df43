#include "autoscaler/cli/record_command.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "autoscaler/cli/cluster_connection_flags.h"
#include "autoscaler/kube/api_client.h"
#include "autoscaler/kube/informer.h"
#include "autoscaler/kube/reflector.h"
#include "autoscaler/sim/trace.h"
#include "autoscaler/sim/trace_recorder.h"
#include "base/file.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "kubeobjects/documents.h"
#include "kubeobjects/pod_groups.h"

namespace gpua {
namespace {

constexpr absl::string_view kCommand = "gpu-autoscaler record";
constexpr absl::string_view kUsage =
    "Usage: gpu-autoscaler record --for DURATION [--out FILE] [flags]\n"
    "       gpu-autoscaler record --from kubectl-json FILE [--for DURATION] [--out FILE]\n\n"
    "Writes a workload trace for `gpu-autoscaler simulate`: the pods that came and went in a\n"
    "cluster while it watched (or in a kubectl dump), without their names unless asked.";

struct RecordFlags {
  ClusterConnectionFlags cluster;
  std::string namespace_name;  // all namespaces when empty
  std::string from;
  absl::Duration window = absl::ZeroDuration();
  std::string out = "-";
  bool keep_names = false;
  bool gpu_only = false;
  absl::Duration sync_timeout = absl::Seconds(60);
  absl::Duration checkpoint_every = absl::Minutes(1);
};

// A pod as the informer lends it, kept as the recorder keeps it (slimmed, as text): the
// recorder needs more of it than a decoded PodObject holds.
struct SeenPod {
  std::string text;
  std::string uid;
  std::string resource_version;
  nlohmann::json object() const { return nlohmann::json::parse(text); }
};

absl::StatusOr<SeenPod> Keep(const JsonReader& o) {
  SeenPod pod{sim::SlimPod(o.ToJson()).dump(), "", ""};
  const JsonReader meta = o.Field("metadata");
  GPUA_ASSIGN_OR_RETURN(pod.uid, meta.Field("uid").String());
  GPUA_ASSIGN_OR_RETURN(pod.resource_version, meta.Field("resourceVersion").String());
  return pod;
}

// What the trace holds, and every pod left out, by why.
void PrintSummary(const sim::RecordedTrace& trace, const CommandIo& io) {
  const sim::RecordSummary& s = trace.summary;
  io.err << kCommand << ": " << s.pods << " pods (" << s.gpu_pods << " asking for GPUs) in "
         << s.lines << " lines from "
         << absl::FormatTime(absl::RFC3339_sec, trace.start, absl::UTCTimeZone()) << " to "
         << absl::FormatTime(absl::RFC3339_sec, trace.end, absl::UTCTimeZone()) << "; "
         << s.still_running << " still running, cut at the end\n";
  const std::pair<int64_t, const char*> left_out[] = {
      {s.never_bound, "never bound in the window"},
      {s.ended_before, "ended before the window"},
      {s.after_end, "with times after the record's end (a clock ahead?)"},
      {s.node_pods, "DaemonSet or static pods (they come with their nodes)"},
      {s.not_gpu, "asking for no GPU (--gpu-only)"},
      {s.other_namespace, "in other namespaces than --namespace"},
      {s.unreadable, "unreadable (named above)"},
  };
  for (const auto& [count, why] : left_out) {
    if (count > 0) io.err << kCommand << ": left out " << count << " pods " << why << "\n";
  }
}

// Checks the trace reads back as `simulate` reads it, writes it, and says what it holds.
int Finish(const sim::RecordedTrace& trace, const RecordFlags& f, const CommandIo& io) {
  const sim::RecordSummary& s = trace.summary;
  for (const std::string& problem : s.problems) {
    io.err << kCommand << ": left out " << problem << "\n";
  }
  const absl::Status readable =
      s.pods == 0 ? absl::FailedPreconditionError("no pod ran in the window: nothing to simulate")
                  : sim::ParseTrace(trace.text, "the recorded trace", ".").status();
  if (!readable.ok()) {
    // Nothing is written: a trace simulate would refuse is no record of anything.
    io.err << kCommand << ": " << (s.pods == 0 ? "" : "the trace does not read back: ")
           << readable.message() << "; no trace written\n";
    PrintSummary(trace, io);
    return kExitFailure;
  }
  if (f.out == "-") {
    io.out << trace.text;
  } else if (absl::Status written = WriteFileAtomically(f.out, trace.text); !written.ok()) {
    io.err << kCommand << ": " << written.message() << "\n";
    return kExitFailure;
  }
  PrintSummary(trace, io);
  return kExitOk;
}

std::string NamespaceOf(const nlohmann::json& pod) {
  const auto meta = pod.find("metadata");
  if (meta == pod.end() || !meta->is_object()) return "default";
  const auto ns = meta->find("namespace");
  return ns != meta->end() && ns->is_string() ? ns->get<std::string>() : "default";
}

int RecordDumpFile(const std::string& path, const RecordFlags& f, const CommandIo& io) {
  // A kubectl dump of a large cluster's pods, with their status: allowed up to a gigabyte.
  constexpr int64_t kMaxDumpBytes = int64_t{1} << 30;
  absl::StatusOr<std::string> text = ReadFile(path, kMaxDumpBytes);
  absl::StatusOr<std::vector<nlohmann::json>> objects =
      text.ok() ? ParseObjects(*text, path) : text.status();
  if (!objects.ok()) {
    io.err << kCommand << ": " << objects.status().message() << "\n";
    return kExitUsage;
  }
  sim::TraceRecorder recorder;
  int64_t other_namespace = 0;
  if (!f.namespace_name.empty()) {
    std::erase_if(*objects, [&](const nlohmann::json& o) {
      const nlohmann::json& pod = o.is_object() && o.contains("object") ? o["object"] : o;
      const bool other = IsPodObject(pod) && NamespaceOf(pod) != f.namespace_name;
      other_namespace += other;
      return other;
    });
  }
  if (const int64_t others = sim::RecordDump(*objects, recorder); others > 0) {
    io.err << kCommand << ": " << path << ": " << others << " objects are not pods; left out\n";
  }
  if (recorder.size() == 0) {
    io.err << kCommand << ": " << path << " holds no pods\n";
    return kExitUsage;
  }
  sim::RecordWindow window;
  // A dump is of the past: a time after now is a clock that ran ahead, not the record's end.
  window.end = std::min(recorder.Latest(), io.clock.Now());
  if (f.window > absl::ZeroDuration()) window.start = window.end - f.window;
  window.keep_names = f.keep_names;
  window.gpu_only = f.gpu_only;
  window.source = std::filesystem::path(path).filename().string();
  sim::RecordedTrace trace = recorder.Write(window);
  trace.summary.other_namespace = other_namespace;
  return Finish(trace, f, io);
}

// A PodGroup or DRA object as the informer lends it: kept whole (it is small), with the kind
// and version its collection says, which list items may leave out.
struct SeenObject {
  nlohmann::json object;
  std::string resource_version;
};

// A collection of objects kept whole, and where to look when the server does not serve it.
struct ObjectCollection {
  const char* kind;
  const char* resource;
  bool namespaced;
  std::vector<const char*> api_versions;  // the first served is read
};

// The PodGroup collections gangs' sizes come from; either may be missing (no CRD, no RBAC).
struct GroupCollection {
  const char* api_version;
  const char* fallback_version;
};
constexpr GroupCollection kPodGroupCollections[] = {
    {"scheduling.volcano.sh/v1beta1", "scheduling.volcano.sh/v1alpha1"},
    {"scheduling.x-k8s.io/v1alpha1", "scheduling.x-k8s.io/v1beta1"},
};

// What the pods' DRA claims use (resource.k8s.io: v1 from 1.34, the betas before); absent or
// forbidden reads as none, and the pods that name them are left out with the reason.
std::vector<ObjectCollection> DraCollections() {
  const std::vector<const char*> versions = {"resource.k8s.io/v1", "resource.k8s.io/v1beta2",
                                             "resource.k8s.io/v1beta1"};
  return {{"DeviceClass", "deviceclasses", false, versions},
          {"ResourceClaimTemplate", "resourceclaimtemplates", true, versions},
          {"ResourceClaim", "resourceclaims", true, versions}};
}

// The pods (and PodGroups) of a cluster, listed and watched into a recorder.
class LiveRecording {
 public:
  LiveRecording(kube::ApiClient& client, const RecordFlags& f, const CommandIo& io)
      : io_(io), log_(io.err, absl::StrCat(kCommand, ": ")), pods_(Keep, PodHandlers(), log_) {
    kube::ReflectorOptions options;
    options.log = &log_;
    reflectors_.push_back(std::make_unique<kube::Reflector>(
        client, Collection("/api/v1", "pods", f.namespace_name), pods_, io.clock, options));
    options.optional = true;
    for (const GroupCollection& c : kPodGroupCollections) {
      auto& informer = groups_.emplace_back(std::make_unique<kube::Informer<SeenObject>>(
          [api = std::string(c.api_version)](const JsonReader& o) -> absl::StatusOr<SeenObject> {
            SeenObject g{o.ToJson(), ""};
            if (!g.object.contains("apiVersion")) g.object["apiVersion"] = api;
            g.object["kind"] = "PodGroup";
            GPUA_ASSIGN_OR_RETURN(g.resource_version,
                                  o.Field("metadata").Field("resourceVersion").String());
            return g;
          },
          kube::Informer<SeenObject>::Handlers{}, log_));
      options.fallback_paths = {
          Collection(absl::StrCat("/apis/", c.fallback_version), "podgroups", f.namespace_name)};
      reflectors_.push_back(std::make_unique<kube::Reflector>(
          client, Collection(absl::StrCat("/apis/", c.api_version), "podgroups", f.namespace_name),
          *informer, io.clock, options));
    }
    for (const ObjectCollection& c : DraCollections()) AddWhole(client, c, f, options);
  }
  ~LiveRecording() { Stop(); }

  void Start() {
    for (auto& r : reflectors_) threads_.emplace_back([this, r = r.get()] { r->Run(stop_); });
  }
  bool Synced() const {
    bool synced = pods_.synced();
    for (const auto& g : groups_) synced = synced && g->synced();
    for (const auto& d : dra_) synced = synced && d->synced();
    return synced;
  }
  void Stop() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }
  sim::RecordedTrace Write(const sim::RecordWindow& window) {
    std::vector<nlohmann::json> groups;
    for (const auto& g : groups_) {
      for (const auto& seen : g->List()) groups.push_back(seen->object);
    }
    std::vector<nlohmann::json> dra;
    for (const auto& d : dra_) {
      for (const auto& seen : d->List()) dra.push_back(seen->object);
    }
    absl::MutexLock lock(&mu_);
    recorder_.SetGangSizes(PodGroupMinMembers(groups));
    recorder_.SetDraObjects(std::move(dra));
    return recorder_.Write(window);
  }
  LogSink& log() { return log_; }

 private:
  static std::string Collection(const std::string& prefix, const char* resource,
                                const std::string& ns) {
    return ns.empty() ? absl::StrCat(prefix, "/", resource)
                      : absl::StrCat(prefix, "/namespaces/", ns, "/", resource);
  }

  // An informer keeping the collection's objects whole, each marked with its kind.
  void AddWhole(kube::ApiClient& client, const ObjectCollection& c, const RecordFlags& f,
                kube::ReflectorOptions options) {
    auto& informer = dra_.emplace_back(std::make_unique<kube::Informer<SeenObject>>(
        [kind = std::string(c.kind)](const JsonReader& o) -> absl::StatusOr<SeenObject> {
          SeenObject seen{o.ToJson(), ""};
          seen.object["kind"] = kind;
          GPUA_ASSIGN_OR_RETURN(seen.resource_version,
                                o.Field("metadata").Field("resourceVersion").String());
          return seen;
        },
        kube::Informer<SeenObject>::Handlers{}, log_));
    const std::string ns = c.namespaced ? f.namespace_name : "";
    options.fallback_paths.clear();
    for (size_t v = 1; v < c.api_versions.size(); ++v) {
      options.fallback_paths.push_back(
          Collection(absl::StrCat("/apis/", c.api_versions[v]), c.resource, ns));
    }
    reflectors_.push_back(std::make_unique<kube::Reflector>(
        client, Collection(absl::StrCat("/apis/", c.api_versions[0]), c.resource, ns), *informer,
        io_.clock, options));
  }

  kube::Informer<SeenPod>::Handlers PodHandlers() {
    using Ptr = kube::Informer<SeenPod>::Ptr;
    kube::Informer<SeenPod>::Handlers h;
    h.on_add = [this](const Ptr& p) {
      absl::MutexLock lock(&mu_);
      recorder_.Saw(p->object(), io_.clock.Now());
    };
    h.on_update = [this](const Ptr& before, const Ptr& after) {
      absl::MutexLock lock(&mu_);
      // A relist can show a pod made anew under the same name: the old one went.
      if (before->uid != after->uid) recorder_.Gone(before->object(), io_.clock.Now());
      recorder_.Saw(after->object(), io_.clock.Now());
    };
    h.on_delete = [this](const Ptr& p) {
      absl::MutexLock lock(&mu_);
      recorder_.Gone(p->object(), io_.clock.Now());
    };
    return h;
  }

  const CommandIo& io_;
  StreamLogSink log_;
  absl::Mutex mu_;
  sim::TraceRecorder recorder_ ABSL_GUARDED_BY(mu_);
  kube::Informer<SeenPod> pods_;
  std::vector<std::unique_ptr<kube::Informer<SeenObject>>> groups_;
  std::vector<std::unique_ptr<kube::Informer<SeenObject>>> dra_;
  std::vector<std::unique_ptr<kube::Reflector>> reflectors_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
};

// Lists and watches pods for `f.window` (or until `stop`), then writes what came and went.
int RecordLive(const RecordFlags& f, const CommandIo& io, const std::atomic<bool>& stop) {
  std::string server;
  StreamLogSink connect_log(io.err, absl::StrCat(kCommand, ": "));
  absl::StatusOr<std::unique_ptr<kube::ApiClient>> client =
      f.cluster.Connect(io.clock, &server, connect_log);
  if (!client.ok()) {
    io.err << kCommand << ": " << client.status().message() << "\n";
    return ExitStatusForInput(client.status());
  }
  LiveRecording recording(**client, f, io);
  const absl::Time start = io.clock.Now();
  recording.Start();
  const absl::Time sync_deadline = start + f.sync_timeout;
  while (!recording.Synced() && !stop && io.clock.Now() < sync_deadline) {
    io.clock.SleepFor(absl::Milliseconds(50));
  }
  if (!recording.Synced()) {
    (*client)->Cancel();  // --sync-timeout bounds the connect, whatever a list waits on
    recording.Stop();
    io.err << kCommand << ": could not list pods from " << server << " within "
           << absl::FormatDuration(f.sync_timeout) << "\n";
    return kExitFailure;
  }
  const auto window_until = [&](absl::Time end) {
    sim::RecordWindow window;
    window.start = start;
    window.end = end;
    window.keep_names = f.keep_names;
    window.gpu_only = f.gpu_only;
    window.source = server;
    return window;
  };
  // A long recording is written out as it goes, so a process killed on the way leaves what
  // it had seen up to the last checkpoint.
  const absl::Time until = start + f.window;
  while (io.clock.Now() < until && !stop) {
    const bool checkpoint = f.out != "-" && f.checkpoint_every > absl::ZeroDuration();
    const absl::Duration step =
        checkpoint ? std::min(f.checkpoint_every, until - io.clock.Now()) : until - io.clock.Now();
    if (!io.clock.SleepUnlessStopped(step, stop) || !checkpoint || io.clock.Now() >= until) break;
    const sim::RecordedTrace partial = recording.Write(window_until(io.clock.Now()));
    if (absl::Status written = WriteFileAtomically(f.out, partial.text); !written.ok()) {
      recording.log().Warning(absl::StrCat("checkpoint: ", written.message()));
    }
  }
  const absl::Time end = io.clock.Now();
  recording.Stop();
  return Finish(recording.Write(window_until(end)), f, io);
}

// Whether --out can be written as the trace will be: a file beside it renamed over it.
absl::Status CheckWritable(const std::string& out) {
  if (out == "-") return absl::OkStatus();
  std::error_code ec;
  if (std::filesystem::is_directory(out, ec)) {
    return absl::InvalidArgumentError(absl::StrCat("--out ", out, ": is a directory"));
  }
  const std::filesystem::path dir = std::filesystem::path(out).parent_path();
  const std::string folder = dir.empty() ? "." : dir.string();
  if (access(folder.c_str(), W_OK) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--out ", out, ": cannot write in ", folder, ": ", std::strerror(errno)));
  }
  if (access(out.c_str(), F_OK) == 0 && access(out.c_str(), W_OK) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--out ", out, ": cannot write: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

std::atomic<bool> signalled{false};
void OnSignal(int) { signalled = true; }

}  // namespace

int RunRecordCommandUntil(const CommandArgs& args, const CommandIo& io,
                          const std::atomic<bool>& stop) {
  RecordFlags f;
  FlagSet flags{std::string(kCommand)};
  f.cluster.AddTo(flags);
  flags.AddString("namespace", &f.namespace_name, "record one namespace (default: all)");
  flags.AddDuration("for", &f.window,
                    "how long to record (required); with --from, keep the last this long of the "
                    "dump (0: all of it)");
  flags.AddString("from", &f.from, "kubectl-json: read the dump FILE instead of a cluster");
  flags.AddString("out", &f.out, "where the trace goes (- for stdout)");
  flags.AddBool("keep-names", &f.keep_names, "keep pod names and namespaces in the trace");
  flags.AddBool("gpu-only", &f.gpu_only, "only pods that ask for GPUs");
  flags.AddDuration("sync-timeout", &f.sync_timeout, "how long the first list may take");
  flags.AddDuration("checkpoint-every", &f.checkpoint_every,
                    "write the trace so far to --out this often while recording (0: only at "
                    "the end)");
  std::vector<std::string> files;
  if (auto exit = ParseFlagsOrExit(flags, args, kUsage, io, &files)) return *exit;
  const auto usage_error = [&](absl::string_view what) {
    io.err << kCommand << ": " << what << "\n";
    return kExitUsage;
  };
  if (f.window < absl::ZeroDuration()) return usage_error("--for must not be negative");
  if (f.checkpoint_every < absl::ZeroDuration()) {
    return usage_error("--checkpoint-every must not be negative");
  }
  // Said before recording starts, not after an hour of it.
  if (absl::Status s = CheckWritable(f.out); !s.ok()) return usage_error(s.message());
  if (!f.from.empty()) {
    if (f.from != "kubectl-json") return usage_error("--from must be kubectl-json");
    if (files.size() != 1) return usage_error("--from kubectl-json takes one FILE");
    return RecordDumpFile(files.front(), f, io);
  }
  if (!files.empty()) {
    return usage_error(absl::StrCat("unexpected argument \"", files.front(), "\""));
  }
  if (f.window <= absl::ZeroDuration())
    return usage_error("--for is required (how long to record)");
  return RecordLive(f, io, stop);
}

int RunRecordCommand(const CommandArgs& args, const CommandIo& io) {
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  return RunRecordCommandUntil(args, io, signalled);
}

}  // namespace gpua
