#include "kubeobjects/pods.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "estimator/gpu/cuda_compat.h"
#include "kubeobjects/api_time.h"
#include "kubeobjects/object_meta.h"
#include "kubeobjects/resource_claims.h"
#include "kubeobjects/selectors.h"

namespace gpua {
namespace {

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
  GPUA_ASSIGN_OR_RETURN(NodeSelector selector, DecodeNodeSelector(required));
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
  GPUA_ASSIGN_OR_RETURN(pod.claim_refs, DecodePodClaimRefs(obj));
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

// The drain facts of a pod; a malformed one is taken the cautious way (not safe to evict).
// The pod-scale-up-delay annotation; a bad value is kept as an error, not guessed at.
void DecodeScaleUpDelay(const JsonReader& annotations, PodObject& out) {
  const JsonReader delay = annotations.Field(kPodScaleUpDelayAnnotation);
  if (!delay.IsNull()) {
    const absl::string_view text = delay.StringView().value_or("");
    absl::Duration d;
    if (absl::ParseDuration(text, &d) && d >= absl::ZeroDuration()) {
      out.scale_up_delay = d;
    } else {
      out.scale_up_delay_error =
          absl::StrCat("Pod ", out.spec.Key(), ": ", delay.path(), ": \"", text,
                       "\" is not a duration such as 30s or 5m; the default delay applies");
    }
  }
}

void DecodeDrainFacts(const JsonReader& obj, PodObject& out) {
  const JsonReader meta = obj.Field("metadata");
  const absl::string_view created = meta.Field("creationTimestamp").StringView().value_or("");
  if (!ParseApiTime(created, &out.created)) out.created = absl::InfinitePast();
  const absl::string_view started =
      obj.Field("status").Field("startTime").StringView().value_or("");
  if (!ParseApiTime(started, &out.started)) out.started = absl::InfinitePast();
  out.terminating = !meta.Field("deletionTimestamp").IsNull();
  const JsonReader grace = obj.Field("spec").Field("terminationGracePeriodSeconds");
  if (!grace.IsNull()) {
    absl::StatusOr<int64_t> seconds = grace.Int();
    if (seconds.ok() && *seconds >= 0) out.termination_grace = absl::Seconds(*seconds);
  }
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
        // An emptyDir in memory is gone with the pod wherever it runs: not local storage.
        const JsonReader empty_dir = v.Field("emptyDir");
        const bool on_disk =
            !empty_dir.IsNull() && empty_dir.Field("medium").StringView().value_or("") != "Memory";
        if (!on_disk && v.Field("hostPath").IsNull()) return absl::OkStatus();
        const absl::string_view name = v.Field("name").StringView().value_or("");
        if (std::find(safe_volumes.begin(), safe_volumes.end(), name) == safe_volumes.end()) {
          out.local_storage = true;
        }
        return absl::OkStatus();
      });
}

}  // namespace

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

PodSpec DecodePod(const JsonReader& obj) {
  const JsonReader meta = obj.Field("metadata");
  return DecodePodAs(obj, meta.Field("namespace").String().value_or(""),
                     meta.Field("name").String().value_or(""));
}

PodSpec DecodePod(const nlohmann::json& object) { return DecodePod(JsonReader(object)); }

PodObject DecodePodObject(const JsonReader& obj) {
  PodObject out;
  out.spec = DecodePod(obj);
  if (!obj.IsObject()) return out;
  DecodeDrainFacts(obj, out);
  DecodeScaleUpDelay(obj.Field("metadata").Field("annotations"), out);
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

bool IsPodObject(const nlohmann::json& object) {
  if (!object.is_object()) return true;  // let decoding report it
  const auto kind = object.find("kind");
  return kind == object.end() || (kind->is_string() && kind->get<std::string>() == "Pod");
}

bool IsPending(const nlohmann::json& pod) {
  if (!pod.is_object()) return true;  // let decoding report it
  const auto spec = pod.find("spec");
  if (spec != pod.end() && spec->is_object() && spec->value("nodeName", "") != "") return false;
  const auto status = pod.find("status");
  if (status != pod.end() && status->is_object()) {
    const std::string phase = status->value("phase", "");
    if (IsFinishedPhase(phase)) return false;
  }
  return true;
}

}  // namespace gpua
