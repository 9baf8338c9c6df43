#include "cloudproviders/kube_objects.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <regex>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cloudproviders/api_time.h"
#include "estimator/gpu/cuda_compat.h"
#include "estimator/status_macros.h"

namespace gpua {
namespace {

// ---- YAML ---------------------------------------------------------------------------

nlohmann::json PlainScalar(const std::string& s) {
  static const std::regex kInt("[-+]?[0-9]+");
  static const std::regex kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (std::regex_match(s, kInt)) {
    int64_t v;
    if (absl::SimpleAtoi(s, &v)) return v;
  }
  if (std::regex_match(s, kFloat)) {
    double d;
    if (absl::SimpleAtod(s, &d)) return d;
  }
  return s;
}

nlohmann::json ToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json obj = nlohmann::json::object();
      for (const auto& kv : node) obj[kv.first.Scalar()] = ToJson(kv.second);
      return obj;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& item : node) arr.push_back(ToJson(item));
      return arr;
    }
    case YAML::NodeType::Scalar:
      // A quoted scalar has the non-specific tag "!": always a string.
      return node.Tag() == "!" ? nlohmann::json(node.Scalar()) : PlainScalar(node.Scalar());
    default:
      return nullptr;
  }
}

absl::StatusOr<std::vector<nlohmann::json>> YamlDocuments(absl::string_view text,
                                                          absl::string_view source) {
  try {
    std::vector<nlohmann::json> docs;
    for (const YAML::Node& doc : YAML::LoadAll(std::string(text))) {
      if (!doc.IsNull()) docs.push_back(ToJson(doc));
    }
    return docs;
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": line ", e.mark.line + 1, ", column ",
                                                   e.mark.column + 1, ": ", e.msg));
  }
}

void Flatten(nlohmann::json object, std::vector<nlohmann::json>* out) {
  if (object.is_object() && object.contains("items") && object["items"].is_array() &&
      object.value("kind", "").ends_with("List")) {
    for (auto& item : object["items"]) Flatten(std::move(item), out);
    return;
  }
  out->push_back(std::move(object));
}

// ---- Pods ---------------------------------------------------------------------------

absl::StatusOr<Requirement> DecodeRequirement(const JsonReader& r, bool node_selector) {
  Requirement req;
  GPUA_RETURN_IF_ERROR(r.RejectUnknown({"key", "operator", "values"}));
  GPUA_ASSIGN_OR_RETURN(req.key, r.Field("key").String());
  GPUA_ASSIGN_OR_RETURN(std::string op, r.Field("operator").String());
  absl::StatusOr<SelectorOp> parsed = ParseSelectorOp(op, node_selector);
  if (!parsed.ok()) return r.Field("operator").Error(parsed.status().message());
  req.op = *parsed;
  GPUA_ASSIGN_OR_RETURN(req.values, r.Field("values").Strings());
  if (absl::Status s = req.Validate(); !s.ok()) return r.Error(s.message());
  return req;
}

absl::StatusOr<std::vector<Requirement>> DecodeRequirements(const JsonReader& r,
                                                            bool node_selector) {
  std::vector<Requirement> out;
  GPUA_RETURN_IF_ERROR(r.ForEach([&](const JsonReader& item) -> absl::Status {
    GPUA_ASSIGN_OR_RETURN(Requirement req, DecodeRequirement(item, node_selector));
    out.push_back(std::move(req));
    return absl::OkStatus();
  }));
  return out;
}

// A null selector stays absent (matches nothing); {} matches everything.
absl::StatusOr<std::optional<LabelSelector>> DecodeLabelSelector(const JsonReader& r) {
  if (r.IsNull()) return std::optional<LabelSelector>();
  if (!r.IsObject()) return r.Error("expected a label selector object");
  LabelSelector sel;
  GPUA_ASSIGN_OR_RETURN(Labels match_labels, r.Field("matchLabels").StringMap());
  for (const auto& [k, v] : match_labels) sel.requirements.push_back({k, SelectorOp::kIn, {v}});
  GPUA_ASSIGN_OR_RETURN(std::vector<Requirement> exprs,
                        DecodeRequirements(r.Field("matchExpressions"), false));
  sel.requirements.insert(sel.requirements.end(), exprs.begin(), exprs.end());
  return std::optional<LabelSelector>(std::move(sel));
}

absl::StatusOr<std::vector<PodAffinityTerm>> DecodeAffinityTerms(const JsonReader& r) {
  std::vector<PodAffinityTerm> out;
  GPUA_RETURN_IF_ERROR(r.ForEach([&](const JsonReader& t) -> absl::Status {
    PodAffinityTerm term;
    GPUA_ASSIGN_OR_RETURN(term.selector, DecodeLabelSelector(t.Field("labelSelector")));
    GPUA_ASSIGN_OR_RETURN(term.namespaces, t.Field("namespaces").Strings());
    GPUA_ASSIGN_OR_RETURN(term.topology_key, t.Field("topologyKey").String());
    if (term.topology_key.empty()) return t.Field("topologyKey").Error("must not be empty");
    const JsonReader ns_selector = t.Field("namespaceSelector");
    if (!ns_selector.IsNull()) {
      if (!ns_selector.IsObject() || ns_selector.Size() != 0) {
        // Matching namespaces by their labels needs the Namespace objects, which the
        // estimator does not see; refuse rather than guess.
        return ns_selector.Error("namespace selectors other than {} are not supported");
      }
      term.all_namespaces = true;
    }
    out.push_back(std::move(term));
    return absl::OkStatus();
  }));
  return out;
}

absl::Status DecodeContainers(const JsonReader& r, bool init, std::vector<Container>* out,
                              std::vector<HostPort>* ports) {
  return r.ForEach([&](const JsonReader& c) -> absl::Status {
    Container container;
    GPUA_ASSIGN_OR_RETURN(container.name, c.Field("name").String());
    const JsonReader resources = c.Field("resources");
    GPUA_ASSIGN_OR_RETURN(container.requests, resources.Field("requests").Resources());
    // The API server defaults a missing request to its limit (extended resources such as
    // nvidia.com/gpu are often given as limits only).
    GPUA_ASSIGN_OR_RETURN(ResourceList limits, resources.Field("limits").Resources());
    for (const auto& [name, q] : limits) {
      if (!container.requests.Has(name)) container.requests.Set(name, q);
    }
    if (init) {
      GPUA_ASSIGN_OR_RETURN(std::string policy, c.Field("restartPolicy").String());
      container.restart_always = policy == "Always";
    }
    GPUA_RETURN_IF_ERROR(c.Field("ports").ForEach([&](const JsonReader& p) -> absl::Status {
      GPUA_ASSIGN_OR_RETURN(int64_t host_port, p.Field("hostPort").Int());
      if (host_port == 0) return absl::OkStatus();
      if (host_port < 0 || host_port > 65535) return p.Field("hostPort").Error("out of range");
      HostPort hp;
      hp.port = static_cast<int32_t>(host_port);
      GPUA_ASSIGN_OR_RETURN(hp.protocol, p.Field("protocol").String("TCP"));
      GPUA_ASSIGN_OR_RETURN(hp.host_ip, p.Field("hostIP").String());
      ports->push_back(std::move(hp));
      return absl::OkStatus();
    }));
    out->push_back(std::move(container));
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<Toleration>> DecodeTolerations(const JsonReader& r) {
  std::vector<Toleration> out;
  GPUA_RETURN_IF_ERROR(r.ForEach([&](const JsonReader& t) -> absl::Status {
    Toleration tol;
    GPUA_ASSIGN_OR_RETURN(tol.key, t.Field("key").String());
    GPUA_ASSIGN_OR_RETURN(std::string op, t.Field("operator").String("Equal"));
    if (op == "Exists") {
      tol.op = Toleration::Op::kExists;
    } else if (op != "Equal") {
      return t.Field("operator")
          .Error(absl::StrCat("unknown operator \"", op, "\" (expected Equal or Exists)"));
    }
    if (tol.key.empty() && tol.op != Toleration::Op::kExists) {
      return t.Field("key").Error("an empty key needs operator Exists");
    }
    GPUA_ASSIGN_OR_RETURN(tol.value, t.Field("value").String());
    GPUA_ASSIGN_OR_RETURN(std::string effect, t.Field("effect").String());
    if (!effect.empty()) {
      absl::StatusOr<TaintEffect> e = ParseTaintEffect(effect);
      if (!e.ok()) return t.Field("effect").Error(e.status().message());
      tol.effect = *e;
    }
    out.push_back(std::move(tol));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<TopologySpreadConstraint>> DecodeSpread(const JsonReader& r) {
  std::vector<TopologySpreadConstraint> out;
  GPUA_RETURN_IF_ERROR(r.ForEach([&](const JsonReader& c) -> absl::Status {
    GPUA_ASSIGN_OR_RETURN(std::string when, c.Field("whenUnsatisfiable").String());
    if (when == "ScheduleAnyway") return absl::OkStatus();  // a preference, never a filter
    if (when != "DoNotSchedule") {
      return c.Field("whenUnsatisfiable")
          .Error(absl::StrCat("unknown value \"", when,
                              "\" (expected DoNotSchedule or ScheduleAnyway)"));
    }
    TopologySpreadConstraint tsc;
    GPUA_ASSIGN_OR_RETURN(int64_t skew, c.Field("maxSkew").Int(1));
    if (skew < 1) return c.Field("maxSkew").Error("must be at least 1");
    tsc.max_skew = static_cast<int32_t>(skew);
    GPUA_ASSIGN_OR_RETURN(tsc.topology_key, c.Field("topologyKey").String());
    if (tsc.topology_key.empty()) return c.Field("topologyKey").Error("must not be empty");
    GPUA_ASSIGN_OR_RETURN(tsc.selector, DecodeLabelSelector(c.Field("labelSelector")));
    GPUA_ASSIGN_OR_RETURN(int64_t min_domains, c.Field("minDomains").Int(1));
    if (min_domains < 1) return c.Field("minDomains").Error("must be at least 1");
    tsc.min_domains = static_cast<int32_t>(min_domains);
    out.push_back(std::move(tsc));
    return absl::OkStatus();
  }));
  return out;
}

absl::Status DecodeNodeAffinity(const JsonReader& affinity, PodSpec& pod) {
  const JsonReader required =
      affinity.Field("nodeAffinity").Field("requiredDuringSchedulingIgnoredDuringExecution");
  if (required.IsNull()) return absl::OkStatus();
  NodeSelector selector;
  GPUA_RETURN_IF_ERROR(
      required.Field("nodeSelectorTerms").ForEach([&](const JsonReader& t) -> absl::Status {
        NodeSelectorTerm term;
        GPUA_ASSIGN_OR_RETURN(term.match_expressions,
                              DecodeRequirements(t.Field("matchExpressions"), true));
        GPUA_ASSIGN_OR_RETURN(term.match_fields, DecodeRequirements(t.Field("matchFields"), true));
        for (const Requirement& f : term.match_fields) {
          if (f.key != "metadata.name") {
            return t.Field("matchFields")
                .Error(absl::StrCat("unsupported field \"", f.key, "\" (only metadata.name)"));
          }
        }
        selector.terms.push_back(std::move(term));
        return absl::OkStatus();
      }));
  pod.required_node_affinity = std::move(selector);
  return absl::OkStatus();
}

// Our pod annotations: gpu-autoscaler.io/gpu-memory (a quantity, e.g. 10Gi) and
// gpu-autoscaler.io/cuda-version (e.g. 12.4).
absl::Status DecodeGpuAnnotations(const JsonReader& annotations, PodSpec& pod) {
  const JsonReader memory = annotations.Field("gpu-autoscaler.io/gpu-memory");
  if (!memory.IsNull()) {
    GPUA_ASSIGN_OR_RETURN(std::string text, memory.String());
    absl::StatusOr<Quantity> q = Quantity::Parse(text);
    if (!q.ok() || q->Sign() <= 0) {
      return memory.Error(absl::StrCat("\"", text, "\" is not a positive quantity (e.g. 10Gi)"));
    }
    pod.gpu_memory_mib = (q->Value() + (1 << 20) - 1) >> 20;
  }
  const JsonReader cuda = annotations.Field(kAnnotationCudaVersion);
  GPUA_ASSIGN_OR_RETURN(pod.cuda_version, cuda.String());
  if (!pod.cuda_version.empty()) {
    absl::StatusOr<int> parsed = CompareVersions(pod.cuda_version, "0");
    if (!parsed.ok()) return cuda.Error(parsed.status().message());
  }
  return absl::OkStatus();
}

// Gang membership: Volcano's group-name annotations, coscheduling's and Kueue's pod-group
// labels; Kueue says the group's size on the pod, the others in their PodGroup objects.
absl::Status DecodeGang(const JsonReader& meta, PodSpec& pod) {
  const JsonReader labels = meta.Field("labels");
  const JsonReader annotations = meta.Field("annotations");
  const auto first =
      [](const JsonReader& from,
         std::initializer_list<absl::string_view> keys) -> absl::StatusOr<std::string> {
    for (absl::string_view k : keys) {
      GPUA_ASSIGN_OR_RETURN(absl::string_view v, from.Field(k).StringView());
      if (!v.empty()) return std::string(v);
    }
    return std::string();
  };
  GPUA_ASSIGN_OR_RETURN(
      std::string group,
      first(annotations, {"scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name"}));
  if (group.empty()) {
    GPUA_ASSIGN_OR_RETURN(
        group, first(labels, {"scheduling.x-k8s.io/pod-group", "kueue.x-k8s.io/pod-group-name"}));
  }
  if (group.empty()) return absl::OkStatus();
  GangRef gang;
  gang.name = absl::StrCat(pod.namespace_name, "/", group);
  const JsonReader total = annotations.Field("kueue.x-k8s.io/pod-group-total-count");
  if (!total.IsNull()) {
    GPUA_ASSIGN_OR_RETURN(absl::string_view text, total.StringView());
    if (!absl::SimpleAtoi(text, &gang.min_member) || gang.min_member < 1) {
      return total.Error(absl::StrCat("\"", text, "\" is not a positive count"));
    }
  }
  GPUA_ASSIGN_OR_RETURN(gang.required_label,
                        first(annotations, {"gpu-autoscaler.io/gang-topology-label"}));
  pod.gang = std::move(gang);
  return absl::OkStatus();
}

absl::Status DecodePodInto(const JsonReader& obj, PodSpec& pod) {
  const JsonReader meta = obj.Field("metadata");
  GPUA_ASSIGN_OR_RETURN(pod.labels, meta.Field("labels").StringMap());
  GPUA_ASSIGN_OR_RETURN(pod.uid, meta.Field("uid").String());
  GPUA_ASSIGN_OR_RETURN(pod.owner, DecodeControllerRef(meta));

  const JsonReader spec = obj.Field("spec");
  if (!spec.IsObject()) return spec.Error("missing or not an object");
  GPUA_ASSIGN_OR_RETURN(int64_t priority, spec.Field("priority").Int());
  pod.priority = static_cast<int32_t>(priority);
  GPUA_ASSIGN_OR_RETURN(pod.scheduler_name,
                        spec.Field("schedulerName").String("default-scheduler"));
  GPUA_ASSIGN_OR_RETURN(pod.node_name, spec.Field("nodeName").String());
  GPUA_ASSIGN_OR_RETURN(pod.node_selector, spec.Field("nodeSelector").StringMap());
  GPUA_ASSIGN_OR_RETURN(pod.tolerations, DecodeTolerations(spec.Field("tolerations")));

  std::vector<Container> containers, init_containers;
  GPUA_RETURN_IF_ERROR(
      DecodeContainers(spec.Field("containers"), false, &containers, &pod.host_ports));
  if (containers.empty()) return spec.Field("containers").Error("a pod needs a container");
  GPUA_RETURN_IF_ERROR(
      DecodeContainers(spec.Field("initContainers"), true, &init_containers, &pod.host_ports));
  GPUA_ASSIGN_OR_RETURN(ResourceList overhead, spec.Field("overhead").Resources());
  pod.requests = EffectiveRequests(containers, init_containers, overhead);
  for (const std::vector<Container>* list : {&containers, &init_containers}) {
    for (const Container& c : *list) {
      for (const auto& [name, q] : c.requests) {
        if (IsExtendedResource(name) && pod.largest_container_request.Get(name) < q) {
          pod.largest_container_request.Set(name, q);
        }
      }
    }
  }
  GPUA_RETURN_IF_ERROR(DecodeGpuAnnotations(meta.Field("annotations"), pod));
  GPUA_RETURN_IF_ERROR(DecodeGang(meta, pod));
  for (const auto& [name, q] : pod.requests) {
    if (q.Sign() < 0) {
      return spec.Error(absl::StrCat("negative request for ", name, " (", q.ToString(), ")"));
    }
  }

  const JsonReader affinity = spec.Field("affinity");
  GPUA_RETURN_IF_ERROR(DecodeNodeAffinity(affinity, pod));
  GPUA_ASSIGN_OR_RETURN(
      pod.affinity,
      DecodeAffinityTerms(
          affinity.Field("podAffinity").Field("requiredDuringSchedulingIgnoredDuringExecution")));
  GPUA_ASSIGN_OR_RETURN(
      pod.anti_affinity,
      DecodeAffinityTerms(affinity.Field("podAntiAffinity")
                              .Field("requiredDuringSchedulingIgnoredDuringExecution")));
  GPUA_ASSIGN_OR_RETURN(pod.spread, DecodeSpread(spec.Field("topologySpreadConstraints")));
  return absl::OkStatus();
}

// ---- Nodes --------------------------------------------------------------------------

absl::StatusOr<std::vector<Taint>> DecodeTaints(const JsonReader& r) {
  std::vector<Taint> out;
  GPUA_RETURN_IF_ERROR(r.ForEach([&](const JsonReader& t) -> absl::Status {
    Taint taint;
    GPUA_ASSIGN_OR_RETURN(taint.key, t.Field("key").String());
    if (taint.key.empty()) return t.Field("key").Error("must not be empty");
    GPUA_ASSIGN_OR_RETURN(taint.value, t.Field("value").String());
    GPUA_ASSIGN_OR_RETURN(std::string effect, t.Field("effect").String());
    absl::StatusOr<TaintEffect> e = ParseTaintEffect(effect);
    if (!e.ok()) return t.Field("effect").Error(e.status().message());
    taint.effect = *e;
    out.push_back(std::move(taint));
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace

absl::StatusOr<std::optional<OwnerReference>> DecodeControllerRef(const JsonReader& meta) {
  std::optional<OwnerReference> found;
  GPUA_RETURN_IF_ERROR(
      meta.Field("ownerReferences").ForEach([&](const JsonReader& o) -> absl::Status {
        GPUA_ASSIGN_OR_RETURN(bool controller, o.Field("controller").Bool());
        if (!controller) return absl::OkStatus();
        OwnerReference owner{"", "", "", true};
        GPUA_ASSIGN_OR_RETURN(owner.kind, o.Field("kind").String());
        GPUA_ASSIGN_OR_RETURN(owner.name, o.Field("name").String());
        GPUA_ASSIGN_OR_RETURN(owner.uid, o.Field("uid").String());
        found = std::move(owner);
        return absl::OkStatus();
      }));
  return found;
}

absl::StatusOr<nlohmann::json> YamlToJson(absl::string_view text, absl::string_view source) {
  GPUA_ASSIGN_OR_RETURN(std::vector<nlohmann::json> docs, YamlDocuments(text, source));
  if (docs.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": expected one YAML document, found ", docs.size()));
  }
  return std::move(docs.front());
}

absl::StatusOr<std::vector<nlohmann::json>> ParseObjects(absl::string_view text,
                                                         absl::string_view source) {
  std::vector<nlohmann::json> docs;
  const absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(text);
  if (absl::StartsWith(trimmed, "{") || absl::StartsWith(trimmed, "[")) {
    nlohmann::json parsed = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    if (parsed.is_discarded()) {
      // Parse again with exceptions on, only to learn where it broke.
      try {
        const nlohmann::json unused = nlohmann::json::parse(text.begin(), text.end());
      } catch (const nlohmann::json::parse_error& e) {
        return absl::InvalidArgumentError(absl::StrCat(source, ": invalid JSON: ", e.what()));
      }
      return absl::InvalidArgumentError(absl::StrCat(source, ": invalid JSON"));
    }
    if (parsed.is_array()) {
      for (auto& item : parsed) docs.push_back(std::move(item));
    } else {
      docs.push_back(std::move(parsed));
    }
  } else {
    GPUA_ASSIGN_OR_RETURN(docs, YamlDocuments(text, source));
  }
  std::vector<nlohmann::json> objects;
  for (auto& d : docs) Flatten(std::move(d), &objects);
  return objects;
}

namespace {

// A pod whose name and namespace are given (a DaemonSet's template has none of its own).
PodSpec DecodePodAs(const JsonReader& obj, std::string namespace_name, std::string name) {
  PodSpec pod;
  pod.name = std::move(name);
  pod.namespace_name = namespace_name.empty() ? "default" : std::move(namespace_name);
  const auto invalid = [&](absl::string_view what) {
    pod.invalid = absl::InvalidArgumentError(absl::StrCat("Pod ", pod.Key(), ": ", what));
  };
  if (!obj.IsObject()) {
    invalid("not an object");
    return pod;
  }
  absl::StatusOr<absl::string_view> kind = obj.Field("kind").StringView("Pod");
  if (!kind.ok()) {
    invalid(kind.status().message());
  } else if (*kind != "Pod") {
    invalid(absl::StrCat("kind is \"", *kind, "\", expected Pod"));
  } else if (absl::Status s = pod.name.empty()
                                  ? obj.Field("metadata").Field("name").Error("missing")
                                  : DecodePodInto(obj, pod);
             !s.ok()) {
    invalid(s.message());
  }
  return pod;
}

}  // namespace

PodSpec DecodePod(const JsonReader& obj) {
  const JsonReader meta = obj.Field("metadata");
  return DecodePodAs(obj, meta.Field("namespace").String().value_or(""),
                     meta.Field("name").String().value_or(""));
}

PodSpec DecodePod(const nlohmann::json& object) { return DecodePod(JsonReader(object)); }

namespace {

// The drain facts of a pod; a malformed one is taken the cautious way (not safe to evict).
void DecodeDrainFacts(const JsonReader& obj, PodObject& out) {
  const JsonReader meta = obj.Field("metadata");
  const absl::string_view created = meta.Field("creationTimestamp").StringView().value_or("");
  if (!ParseApiTime(created, &out.created)) out.created = absl::InfinitePast();
  out.terminating = !meta.Field("deletionTimestamp").IsNull();
  const JsonReader annotations = meta.Field("annotations");
  out.mirror = !annotations.Field("kubernetes.io/config.mirror").IsNull();
  const absl::string_view safe =
      annotations.Field("cluster-autoscaler.kubernetes.io/safe-to-evict").StringView().value_or("");
  if (safe == "true") out.safe_to_evict = true;
  if (safe == "false") out.safe_to_evict = false;
  const std::vector<std::string> safe_volumes = absl::StrSplit(
      annotations.Field("cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes")
          .StringView()
          .value_or(""),
      ',', absl::SkipWhitespace());
  const absl::Status unused =
      obj.Field("spec").Field("volumes").ForEach([&](const JsonReader& v) -> absl::Status {
        if (v.Field("emptyDir").IsNull() && v.Field("hostPath").IsNull()) return absl::OkStatus();
        const absl::string_view name = v.Field("name").StringView().value_or("");
        if (std::find(safe_volumes.begin(), safe_volumes.end(), name) == safe_volumes.end()) {
          out.local_storage = true;
        }
        return absl::OkStatus();
      });
}

}  // namespace

PodObject DecodePodObject(const JsonReader& obj) {
  PodObject out;
  out.spec = DecodePod(obj);
  if (!obj.IsObject()) return out;
  DecodeDrainFacts(obj, out);
  out.resource_version = obj.Field("metadata").Field("resourceVersion").String().value_or("");
  const JsonReader status = obj.Field("status");
  out.phase = status.Field("phase").String().value_or("");
  out.nominated_node = status.Field("nominatedNodeName").String().value_or("");
  const absl::Status unused =
      status.Field("conditions").ForEach([&](const JsonReader& c) -> absl::Status {
        if (c.Field("type").StringView().value_or("") == "PodScheduled" &&
            c.Field("status").StringView().value_or("") == "False" &&
            c.Field("reason").StringView().value_or("") == "Unschedulable") {
          out.unschedulable = true;
        }
        return absl::OkStatus();
      });
  return out;
}

PodObject DecodePodObject(const nlohmann::json& object) {
  return DecodePodObject(JsonReader(object));
}

absl::StatusOr<NodeObject> DecodeNode(const nlohmann::json& object) {
  return DecodeNode(JsonReader(object));
}

absl::StatusOr<NodeObject> DecodeNode(const JsonReader& obj) {
  NodeObject out;
  const JsonReader meta = obj.Field("metadata");
  const auto fail = [&](const absl::Status& s) {
    return absl::InvalidArgumentError(absl::StrCat("Node ", out.node.name, ": ", s.message()));
  };
  out.node.name = meta.Field("name").String().value_or("");
  if (!obj.IsObject() || out.node.name.empty()) {
    return fail(meta.Field("name").Error("missing"));
  }
  const auto read = [&]() -> absl::Status {
    GPUA_ASSIGN_OR_RETURN(out.node.labels, meta.Field("labels").StringMap());
    GPUA_ASSIGN_OR_RETURN(out.annotations, meta.Field("annotations").StringMap());
    GPUA_ASSIGN_OR_RETURN(out.created, meta.Field("creationTimestamp").String());
    GPUA_ASSIGN_OR_RETURN(out.resource_version, meta.Field("resourceVersion").String());
    const JsonReader spec = obj.Field("spec");
    GPUA_ASSIGN_OR_RETURN(out.node.taints, DecodeTaints(spec.Field("taints")));
    GPUA_ASSIGN_OR_RETURN(out.node.unschedulable, spec.Field("unschedulable").Bool());
    GPUA_ASSIGN_OR_RETURN(out.provider_id, spec.Field("providerID").String());
    const JsonReader status = obj.Field("status");
    GPUA_ASSIGN_OR_RETURN(out.node.allocatable, status.Field("allocatable").Resources());
    GPUA_ASSIGN_OR_RETURN(out.capacity, status.Field("capacity").Resources());
    return status.Field("conditions").ForEach([&](const JsonReader& c) -> absl::Status {
      GPUA_ASSIGN_OR_RETURN(std::string type, c.Field("type").String());
      GPUA_ASSIGN_OR_RETURN(std::string value, c.Field("status").String());
      if (type == "Ready") out.ready = value == "True";
      return absl::OkStatus();
    });
  };
  if (absl::Status s = read(); !s.ok()) return fail(s);
  return out;
}

bool PdbObject::Covers(const PodSpec& pod) const {
  return selector.has_value() && pod.namespace_name == namespace_name &&
         selector->Matches(pod.labels);
}

absl::StatusOr<PdbObject> DecodePdb(const nlohmann::json& object) {
  return DecodePdb(JsonReader(object));
}

absl::StatusOr<PdbObject> DecodePdb(const JsonReader& obj) {
  PdbObject out;
  const JsonReader meta = obj.Field("metadata");
  out.name = meta.Field("name").String().value_or("");
  out.namespace_name = meta.Field("namespace").String("default").value_or("default");
  const auto read = [&]() -> absl::Status {
    if (!obj.IsObject() || out.name.empty()) return meta.Field("name").Error("missing");
    GPUA_ASSIGN_OR_RETURN(out.selector, DecodeLabelSelector(obj.Field("spec").Field("selector")));
    GPUA_ASSIGN_OR_RETURN(out.resource_version, meta.Field("resourceVersion").String());
    GPUA_ASSIGN_OR_RETURN(int64_t allowed, obj.Field("status").Field("disruptionsAllowed").Int());
    out.disruptions_allowed = static_cast<int32_t>(allowed);
    return absl::OkStatus();
  };
  if (absl::Status s = read(); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("PodDisruptionBudget ", out.namespace_name, "/", out.name, ": ", s.message()));
  }
  return out;
}

absl::StatusOr<DaemonSetObject> DecodeDaemonSet(const nlohmann::json& object) {
  return DecodeDaemonSet(JsonReader(object));
}

absl::StatusOr<DaemonSetObject> DecodeDaemonSet(const JsonReader& obj) {
  DaemonSetObject out;
  const JsonReader meta = obj.Field("metadata");
  out.name = meta.Field("name").String().value_or("");
  out.namespace_name = meta.Field("namespace").String("default").value_or("default");
  const std::string what = absl::StrCat("DaemonSet ", out.namespace_name, "/", out.name);
  const JsonReader tmpl = obj.Field("spec").Field("template");
  if (!obj.IsObject() || out.name.empty() || !tmpl.IsObject()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": spec.template: missing"));
  }
  out.resource_version = meta.Field("resourceVersion").String().value_or("");
  // The template's pod has no name of its own: it runs as the DaemonSet's.
  out.pod = DecodePodAs(tmpl, out.namespace_name, out.name);
  if (!out.pod.invalid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": spec.template: ", out.pod.invalid.message()));
  }
  return out;
}

bool IsPodObject(const nlohmann::json& object) {
  if (!object.is_object()) return true;  // let decoding report it
  const auto kind = object.find("kind");
  return kind == object.end() || (kind->is_string() && kind->get<std::string>() == "Pod");
}

absl::flat_hash_map<std::string, int32_t> PodGroupMinMembers(
    const std::vector<nlohmann::json>& objects) {
  absl::flat_hash_map<std::string, int32_t> min_members;
  for (const nlohmann::json& o : objects) {
    if (!o.is_object() || o.value("kind", "") != "PodGroup") continue;
    const std::string api = o.value("apiVersion", "");
    if (!absl::StartsWith(api, "scheduling.volcano.sh/") &&
        !absl::StartsWith(api, "scheduling.x-k8s.io/")) {
      continue;
    }
    const JsonReader r(o, "PodGroup");
    const std::string ns = r.Field("metadata").Field("namespace").String("default").value_or("");
    const std::string name = r.Field("metadata").Field("name").String().value_or("");
    absl::StatusOr<int64_t> min = r.Field("spec").Field("minMember").Int();
    if (!name.empty() && min.ok() && *min > 0) {
      min_members[absl::StrCat(ns.empty() ? "default" : ns, "/", name)] =
          static_cast<int32_t>(*min);
    }
  }
  return min_members;
}

void ApplyPodGroups(const absl::flat_hash_map<std::string, int32_t>& min_members,
                    std::vector<PodSpec>& pods) {
  for (PodSpec& pod : pods) {
    if (!pod.gang.has_value() || pod.gang->min_member > 0) continue;
    if (auto it = min_members.find(pod.gang->name); it != min_members.end()) {
      pod.gang->min_member = it->second;
    }
  }
}

bool IsPending(const nlohmann::json& pod) {
  if (!pod.is_object()) return true;  // let decoding report it
  const auto spec = pod.find("spec");
  if (spec != pod.end() && spec->is_object() && spec->value("nodeName", "") != "") return false;
  const auto status = pod.find("status");
  if (status != pod.end() && status->is_object()) {
    const std::string phase = status->value("phase", "");
    if (phase == "Succeeded" || phase == "Failed") return false;
  }
  return true;
}

absl::StatusOr<NodeTemplate> DecodeNodeTemplate(const JsonReader& node) {
  NodeTemplate t;
  const JsonReader meta = node.Field("metadata");
  GPUA_ASSIGN_OR_RETURN(t.name, meta.Field("name").String());
  GPUA_ASSIGN_OR_RETURN(t.labels, meta.Field("labels").StringMap());
  GPUA_ASSIGN_OR_RETURN(t.annotations, meta.Field("annotations").StringMap());
  const JsonReader spec = node.Field("spec");
  GPUA_ASSIGN_OR_RETURN(t.taints, DecodeTaints(spec.Field("taints")));
  const JsonReader status = node.Field("status");
  GPUA_ASSIGN_OR_RETURN(t.allocatable, status.Field("allocatable").Resources());
  if (t.allocatable.empty()) {
    // The kubelet reports capacity too; without either nothing can be planned.
    GPUA_ASSIGN_OR_RETURN(t.allocatable, status.Field("capacity").Resources());
  }
  if (t.allocatable.empty()) return status.Field("allocatable").Error("missing");
  for (const auto& [name, q] : t.allocatable) {
    if (q.Sign() < 0) {
      return status.Field("allocatable").Error(absl::StrCat("negative ", name));
    }
  }
  return t;
}

}  // namespace gpua
