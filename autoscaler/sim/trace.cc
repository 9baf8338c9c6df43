#include "autoscaler/sim/trace.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/file.h"
#include "base/status_macros.h"
#include "estimator/gpu/gpu_resource.h"
#include "kubeobjects/documents.h"
#include "kubeobjects/json_reader.h"
#include "kubeobjects/json_text.h"

namespace gpua::sim {
namespace {

constexpr int kMaxCount = 1'000'000;

// The pods of one line: what the simulated scheduler places by node fit alone. Rules between
// pods are not simulated, and a trace that relies on them is refused rather than misread.
absl::Status CheckSimulatable(const PodSpec& pod, const JsonReader& where) {
  if (!pod.invalid.ok()) return where.Error(pod.invalid.message());
  if (!pod.affinity.empty() || !pod.anti_affinity.empty()) {
    return where.Error("pod affinity and anti-affinity are not simulated");
  }
  if (!pod.spread.empty()) return where.Error("topology spread constraints are not simulated");
  if (!pod.host_ports.empty()) return where.Error("host ports are not simulated");
  return absl::OkStatus();
}

// The kinds a trace may carry beside its pods.
bool IsTraceDraKind(absl::string_view kind) {
  return kind == "DeviceClass" || kind == "ResourceClaim" || kind == "ResourceClaimTemplate";
}

// Reads and caches the pods of lines; equal fragments and templates make one shape. The DRA
// objects of the files it reads go to `dra`.
class ShapeReader {
 public:
  ShapeReader(std::string base_dir, DraObjects& dra) : base_dir_(std::move(base_dir)), dra_(dra) {}

  absl::StatusOr<nlohmann::json> Template(const JsonReader& field) {
    GPUA_ASSIGN_OR_RETURN(std::string full, Path(field));
    auto cached = templates_.find(full);
    if (cached != templates_.end()) return cached->second;
    GPUA_ASSIGN_OR_RETURN(std::vector<nlohmann::json> objects, Objects(full, field));
    std::vector<nlohmann::json> pods;
    for (nlohmann::json& o : objects) {
      if (!o.is_object() || !o.contains("kind") || o["kind"] == "Pod") {
        pods.push_back(std::move(o));
      } else {
        GPUA_RETURN_IF_ERROR(AddObject(o, field, full));
      }
    }
    if (pods.size() != 1)
      return field.Error(absl::StrCat(full, " holds ", pods.size(), " Pods, not one"));
    return templates_[full] = std::move(pods[0]);
  }

  // An {"objects": path} line: every object of the file is a DRA object.
  absl::Status ObjectsFile(const JsonReader& field) {
    GPUA_ASSIGN_OR_RETURN(std::string full, Path(field));
    if (!object_files_.insert(full).second) return absl::OkStatus();
    GPUA_ASSIGN_OR_RETURN(std::vector<nlohmann::json> objects, Objects(full, field));
    for (const nlohmann::json& o : objects) GPUA_RETURN_IF_ERROR(AddObject(o, field, full));
    return absl::OkStatus();
  }

  absl::Status AddObject(const nlohmann::json& object, const JsonReader& where,
                         absl::string_view file) {
    const std::string in = file.empty() ? "" : absl::StrCat(file, ": ");
    std::string name;
    if (object.is_object()) {
      auto kind = object.find("kind");  // a const object's [] must not be asked for what is absent
      if (kind != object.end() && kind->is_string()) name = kind->get<std::string>();
    }
    if (!IsTraceDraKind(name)) {
      return where.Error(
          absl::StrCat(in, name.empty() ? "an object without a kind" : absl::StrCat("a ", name),
                       " is not what a trace carries beside its pods (DeviceClass, ResourceClaim, "
                       "ResourceClaimTemplate)"));
    }
    if (absl::Status s = AddDraObject(object, dra_); !s.ok()) {
      return where.Error(absl::StrCat(in, s.message()));
    }
    return absl::OkStatus();
  }

  // The line's pod, owned by Job `name`; id says which shape it is.
  absl::StatusOr<std::pair<std::shared_ptr<const PodObject>, int>> Shape(const nlohmann::json& pod,
                                                                         const std::string& ns,
                                                                         const std::string& name,
                                                                         const JsonReader& where) {
    nlohmann::json object = pod;
    if (!object.is_object()) return where.Error("expected a Pod object");
    object["kind"] = "Pod";
    nlohmann::json& meta = object["metadata"];
    if (!meta.is_object()) meta = nlohmann::json::object();
    meta["name"] = name;
    meta["namespace"] = ns;
    meta["uid"] = absl::StrCat("uid-", name);
    meta["ownerReferences"] = {{{"apiVersion", "batch/v1"},
                                {"kind", "Job"},
                                {"name", name},
                                {"uid", absl::StrCat("job-", ns, "-", name)},
                                {"controller", true}}};
    object["status"] = {{"phase", "Pending"}};
    // The same pod under another name is the same shape to the scheduler.
    nlohmann::json key = object;
    key["metadata"].erase("name");
    key["metadata"].erase("uid");
    key["metadata"].erase("ownerReferences");
    const std::string text = key.dump();
    auto [it, added] = ids_.try_emplace(text, static_cast<int>(ids_.size()));
    auto decoded = std::make_shared<PodObject>(DecodePodObject(object));
    GPUA_RETURN_IF_ERROR(CheckSimulatable(decoded->spec, where));
    return std::make_pair(std::shared_ptr<const PodObject>(std::move(decoded)), it->second);
  }

  int shapes() const { return static_cast<int>(ids_.size()); }

 private:
  absl::StatusOr<std::string> Path(const JsonReader& field) const {
    GPUA_ASSIGN_OR_RETURN(std::string path, field.String());
    if (path.empty()) return field.Error("empty path");
    return std::filesystem::path(path).is_absolute()
               ? path
               : (std::filesystem::path(base_dir_) / path).string();
  }

  static absl::StatusOr<std::vector<nlohmann::json>> Objects(const std::string& full,
                                                             const JsonReader& field) {
    absl::StatusOr<std::string> text = ReadFile(full, kMaxConfigFileBytes);
    if (!text.ok()) return field.Error(text.status().message());
    absl::StatusOr<std::vector<nlohmann::json>> objects = ParseObjects(*text, full);
    if (!objects.ok()) return field.Error(objects.status().message());
    return *std::move(objects);
  }

  std::string base_dir_;
  DraObjects& dra_;
  std::set<std::string> object_files_;
  std::map<std::string, nlohmann::json> templates_;
  std::map<std::string, int> ids_;
};

absl::StatusOr<absl::Duration> ReadTime(const JsonReader& field, bool required) {
  if (field.IsNull()) {
    if (required) return field.Error("missing");
    return absl::ZeroDuration();
  }
  if (field.type() == JsonReader::Type::kInteger || field.type() == JsonReader::Type::kFloat) {
    GPUA_ASSIGN_OR_RETURN(double seconds, field.Double());
    if (seconds < 0) return field.Error("must not be negative");
    return absl::Seconds(seconds);
  }
  GPUA_ASSIGN_OR_RETURN(absl::string_view text, field.StringView());
  absl::StatusOr<absl::Duration> d = ParseTraceDuration(text);
  if (!d.ok()) return field.Error(d.status().message());
  return *d;
}

absl::Status ReadStockout(const JsonReader& r, int line, Trace& trace) {
  GPUA_RETURN_IF_ERROR(r.RejectUnknown({"at", "stockout", "for"}));
  TraceStockout s;
  s.line = line;
  GPUA_ASSIGN_OR_RETURN(s.at, ReadTime(r.Field("at"), true));
  GPUA_ASSIGN_OR_RETURN(s.group, r.Field("stockout").String());
  if (s.group.empty()) return r.Field("stockout").Error("names no node group");
  GPUA_ASSIGN_OR_RETURN(s.duration, ReadTime(r.Field("for"), true));
  trace.stockouts.push_back(std::move(s));
  return absl::OkStatus();
}

// {"minAvailable": N}. A Job has no scale, so the disruption controller cannot count
// maxUnavailable or a percentage for its pods (it marks such a budget in error); refused
// here rather than simulated as something a cluster would not do.
absl::StatusOr<int> ReadMinAvailable(const JsonReader& budget) {
  if (budget.Has("maxUnavailable")) {
    return budget.Field("maxUnavailable")
        .Error("a Job's pods have no scale to count it against; give minAvailable");
  }
  GPUA_RETURN_IF_ERROR(budget.RejectUnknown({"minAvailable"}));
  const JsonReader field = budget.Field("minAvailable");
  if (field.IsNull()) return field.Error("missing");
  if (field.type() != JsonReader::Type::kInteger) {
    return field.Error("must be a number of pods (a percentage needs a scale a Job has not)");
  }
  GPUA_ASSIGN_OR_RETURN(int64_t n, field.Int());
  if (n < 0 || n > kMaxCount) return field.Error(absl::StrCat("must be from 0 to ", kMaxCount));
  return static_cast<int>(n);
}

absl::Status ReadArrival(const JsonReader& r, const nlohmann::json& json, int line,
                         ShapeReader& shapes, Trace& trace) {
  GPUA_RETURN_IF_ERROR(r.RejectUnknown({"at", "name", "namespace", "count", "runFor", "pod",
                                        "podTemplate", "gang", "disruptionBudget"}));
  TraceArrival a;
  a.line = line;
  GPUA_ASSIGN_OR_RETURN(a.at, ReadTime(r.Field("at"), true));
  GPUA_ASSIGN_OR_RETURN(a.name, r.Field("name").String(absl::StrCat("line-", line)));
  GPUA_ASSIGN_OR_RETURN(std::string ns, r.Field("namespace").String("default"));
  GPUA_ASSIGN_OR_RETURN(int64_t count, r.Field("count").Int(1));
  if (count < 1 || count > kMaxCount) {
    return r.Field("count").Error(absl::StrCat("must be from 1 to ", kMaxCount));
  }
  a.count = static_cast<int>(count);
  GPUA_ASSIGN_OR_RETURN(a.run_for, ReadTime(r.Field("runFor"), true));
  if (a.run_for <= absl::ZeroDuration()) return r.Field("runFor").Error("must be positive");
  GPUA_ASSIGN_OR_RETURN(a.gang, r.Field("gang").Bool(false));
  if (r.Has("pod") == r.Has("podTemplate")) {
    return r.Error("give exactly one of pod and podTemplate");
  }
  nlohmann::json pod;
  if (r.Has("pod")) {
    pod = json["pod"];
  } else {
    GPUA_ASSIGN_OR_RETURN(pod, shapes.Template(r.Field("podTemplate")));
  }
  const JsonReader where = r.Has("pod") ? r.Field("pod") : r.Field("podTemplate");
  GPUA_ASSIGN_OR_RETURN(auto shape, shapes.Shape(pod, ns, a.name, where));
  a.shape = std::move(shape.first);
  a.shape_id = shape.second;
  // A pod with claims is counted with the GPU pods: its claims are for GPUs as a rule.
  a.gpu = AsksForGpus(a.shape->spec.requests) || !a.shape->spec.claim_refs.empty();
  if (a.gang && a.shape->spec.gang.has_value()) {
    return r.Field("gang").Error("the pod names a pod group already");
  }
  if (a.gang) {
    auto member = std::make_shared<PodObject>(*a.shape);
    member->spec.gang = GangRef{absl::StrCat(ns, "/", a.name), a.count, ""};
    a.shape = std::move(member);
  }
  if (r.Has("disruptionBudget")) {
    GPUA_ASSIGN_OR_RETURN(int min_available, ReadMinAvailable(r.Field("disruptionBudget")));
    GiveDisruptionBudget(a, min_available);
  }
  trace.arrivals.push_back(std::move(a));
  return absl::OkStatus();
}

absl::Status SameName(absl::string_view source, const TraceArrival& later,
                      const TraceArrival& earlier, absl::string_view pod) {
  return absl::InvalidArgumentError(absl::StrCat(
      source, " line ", later.line, ": pod ", later.shape->spec.namespace_name, "/", pod,
      " is named on line ", earlier.line,
      " too; give each line a name of its own (a pod that comes again after it ended is a "
      "new line with a new name)"));
}

// A pod's name is its identity in the simulated cluster (and a line's name its Job's), so a
// name given twice would run one pod where the trace means two, or none.
absl::Status CheckPodNames(const std::vector<TraceArrival>& arrivals, absl::string_view source) {
  absl::flat_hash_map<std::string, const TraceArrival*> lines;  // namespace/name
  for (const TraceArrival& a : arrivals) {
    auto [it, added] =
        lines.try_emplace(absl::StrCat(a.shape->spec.namespace_name, "/", a.name), &a);
    if (!added) return SameName(source, a, *it->second, a.name);
  }
  // A line of one pod named as another line's n-th pod: "train-3" beside "train" of count 8.
  for (const TraceArrival& a : arrivals) {
    const size_t dash = a.name.rfind('-');
    if (a.count != 1 || dash == std::string::npos) continue;
    const absl::string_view suffix = absl::string_view(a.name).substr(dash + 1);
    int64_t index = 0;
    if (!absl::SimpleAtoi(suffix, &index) || index < 0 || absl::StrCat(index) != suffix) continue;
    const auto it =
        lines.find(absl::StrCat(a.shape->spec.namespace_name, "/", a.name.substr(0, dash)));
    if (it != lines.end() && it->second->count > 1 && index < it->second->count) {
      const TraceArrival& other = *it->second;
      return other.line > a.line ? SameName(source, other, a, a.name)
                                 : SameName(source, a, other, a.name);
    }
  }
  return absl::OkStatus();
}

absl::Status ReadObjects(const JsonReader& r, const nlohmann::json& json, ShapeReader& shapes) {
  GPUA_RETURN_IF_ERROR(r.RejectUnknown({"objects", "object"}));
  if (r.Has("objects") == r.Has("object")) return r.Error("give one of objects and object");
  if (r.Has("objects")) return shapes.ObjectsFile(r.Field("objects"));
  return shapes.AddObject(json.at("object"), r.Field("object"), "");
}

// Every claim a pod names, and every class a claim asks for, is in the trace: the
// simulation would otherwise leave the pod pending for a typo.
absl::Status CheckClaims(const std::vector<TraceArrival>& arrivals, const DraObjects& dra,
                         absl::string_view source) {
  std::set<int> checked;
  for (const TraceArrival& a : arrivals) {
    const PodSpec& pod = a.shape->spec;
    if (pod.claim_refs.empty() || !checked.insert(a.shape_id).second) continue;
    const std::string where = absl::StrCat(source, " line ", a.line, ": pod ", a.name, ": ");
    for (const dra::PodClaim& c :
         dra::ResolvePodClaims(pod.namespace_name, pod.claim_refs, dra.catalog)) {
      if (!c.unresolved.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(where, c.unresolved.message()));
      }
      for (const dra::DeviceRequest& request : c.spec->requests) {
        for (const dra::ExactRequest& exact : request.alternatives) {
          if (dra.classes->contains(exact.device_class_name)) continue;
          return absl::InvalidArgumentError(
              absl::StrCat(where, "claim ", c.name, ", request ", request.name, ": DeviceClass ",
                           exact.device_class_name, " is not in the trace"));
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

void GiveDisruptionBudget(TraceArrival& arrival, int min_available) {
  arrival.min_available = min_available;
  auto labelled = std::make_shared<PodObject>(*arrival.shape);
  labelled->spec.labels.insert_or_assign(kJobNameLabel, arrival.shape->spec.owner->name);
  arrival.shape = std::move(labelled);
}

int64_t Trace::pods() const {
  int64_t n = 0;
  for (const TraceArrival& a : arrivals) n += a.count;
  return n;
}

absl::StatusOr<absl::Duration> ParseTraceDuration(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  const absl::Status invalid = absl::InvalidArgumentError(absl::StrCat(
      "invalid duration \"", text, "\" (expected e.g. 90s, 2h30m, 1d12h, at most 100 years)"));
  // A simulated clock has to reach the time: "inf" or a million years is a typo, not a trace.
  constexpr absl::Duration kLongest = absl::Hours(24 * 365 * 100);
  absl::Duration days;
  if (const size_t d = text.find('d'); d != absl::string_view::npos) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(text.substr(0, d), &n) || n < 0 || n > int64_t{365} * 100) return invalid;
    days = absl::Hours(24 * n);
    text = text.substr(d + 1);
    if (text.empty()) return days;
  }
  absl::Duration rest;
  if (!absl::ParseDuration(text, &rest) || rest < absl::ZeroDuration() || rest > kLongest ||
      days + rest > kLongest) {
    return invalid;
  }
  return days + rest;
}

absl::StatusOr<Trace> ParseTrace(absl::string_view text, absl::string_view source,
                                 const std::string& base_dir) {
  Trace trace;
  auto dra = std::make_shared<DraObjects>();
  ShapeReader shapes(base_dir, *dra);
  int line = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line;
    const absl::string_view content = absl::StripAsciiWhitespace(raw);
    if (content.empty() || content.front() == '#') continue;
    const std::string where = absl::StrCat(source, " line ", line, ": ");
    absl::StatusOr<nlohmann::json> parsed =
        ParseJson(content, absl::StrCat(source, " line ", line));
    if (!parsed.ok()) return parsed.status();
    const nlohmann::json& json = *parsed;
    if (!json.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(where, "not a JSON object"));
    }
    const JsonReader r(json, where);
    if (r.Has("objects") || r.Has("object")) {
      GPUA_RETURN_IF_ERROR(ReadObjects(r, json, shapes));
      continue;
    }
    GPUA_RETURN_IF_ERROR(r.Has("stockout") ? ReadStockout(r, line, trace)
                                           : ReadArrival(r, json, line, shapes, trace));
  }
  GPUA_RETURN_IF_ERROR(CheckClaims(trace.arrivals, *dra, source));
  if (!dra->classes->empty() || !dra->catalog.claims.empty() || !dra->catalog.templates.empty()) {
    trace.dra = std::move(dra);
  }
  if (trace.arrivals.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": no pod arrives"));
  }
  GPUA_RETURN_IF_ERROR(CheckPodNames(trace.arrivals, source));
  std::stable_sort(trace.arrivals.begin(), trace.arrivals.end(),
                   [](const TraceArrival& a, const TraceArrival& b) { return a.at < b.at; });
  std::stable_sort(trace.stockouts.begin(), trace.stockouts.end(),
                   [](const TraceStockout& a, const TraceStockout& b) { return a.at < b.at; });
  for (const TraceArrival& a : trace.arrivals) trace.end = std::max(trace.end, a.at + a.run_for);
  trace.shapes = shapes.shapes();
  return trace;
}

Trace TraceUntil(const Trace& trace, absl::Duration until) {
  Trace out;
  out.shapes = trace.shapes;
  out.dra = trace.dra;
  for (const TraceArrival& a : trace.arrivals) {
    if (a.at >= until) continue;
    TraceArrival cut = a;
    cut.run_for = std::min(a.run_for, until - a.at);
    out.end = std::max(out.end, cut.at + cut.run_for);
    out.arrivals.push_back(std::move(cut));
  }
  for (const TraceStockout& s : trace.stockouts) {
    if (s.at < until) out.stockouts.push_back(s);
  }
  return out;
}

absl::StatusOr<Trace> ReadTraceFile(const std::string& path) {
  // A trace is read whole; a week of a million pods is a few hundred megabytes.
  constexpr int64_t kMaxTraceBytes = int64_t{1} << 30;
  GPUA_ASSIGN_OR_RETURN(std::string text, ReadFile(path, kMaxTraceBytes));
  const std::filesystem::path p(path);
  return ParseTrace(text, p.filename().string(), p.parent_path().string());
}

}  // namespace gpua::sim
