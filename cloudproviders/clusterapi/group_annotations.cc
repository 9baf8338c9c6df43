#include "cloudproviders/clusterapi/group_annotations.h"

#include <limits>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "estimator/dra/template_slices.h"
#include "estimator/quantity.h"
#include "estimator/taints.h"

namespace gpua {
namespace {

// The annotations of one object, read with errors that name the annotation.
class Annotations {
 public:
  explicit Annotations(const CapiScalable& s) : s_(s) {}

  const std::string* Find(const std::string& key) const {
    auto it = s_.annotations.find(key);
    return it == s_.annotations.end() ? nullptr : &it->second;
  }
  absl::Status Bad(const std::string& key, absl::string_view why) const {
    return absl::InvalidArgumentError(
        absl::StrCat(CapiKindName(s_.kind), " ", s_.Key(), ": annotation ", key, ": ", why));
  }
  absl::StatusOr<int> Count(const std::string& key) const {
    const std::string* v = Find(key);
    int n = 0;
    if (v == nullptr) return Bad(key, "missing");
    if (!absl::SimpleAtoi(*v, &n) || n < 0) {
      return Bad(key, absl::StrCat("\"", *v, "\" is not a whole number of nodes"));
    }
    return n;
  }
  absl::StatusOr<std::optional<Quantity>> QuantityOf(const std::string& key) const {
    const std::string* v = Find(key);
    if (v == nullptr) return std::nullopt;
    absl::StatusOr<Quantity> q = Quantity::Parse(*v);
    if (!q.ok()) return Bad(key, q.status().message());
    if (q->Sign() < 0) return Bad(key, absl::StrCat("\"", *v, "\" is negative"));
    return *q;
  }

 private:
  const CapiScalable& s_;
};

absl::Status ReadLabels(const Annotations& a, const std::string& key, Labels& labels) {
  const std::string* v = a.Find(key);
  if (v == nullptr) return absl::OkStatus();
  for (absl::string_view pair : absl::StrSplit(*v, ',', absl::SkipWhitespace())) {
    std::vector<absl::string_view> kv = absl::StrSplit(pair, absl::MaxSplits('=', 1));
    const absl::string_view k = absl::StripAsciiWhitespace(kv[0]);
    if (kv.size() != 2 || k.empty()) {
      return a.Bad(key, absl::StrCat("\"", pair, "\" is not key=value"));
    }
    // The scalable resource's own labels win, as upstream merges them.
    if (!labels.contains(k))
      labels[std::string(k)] = std::string(absl::StripAsciiWhitespace(kv[1]));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Taint>> ReadTaints(const Annotations& a, const std::string& key) {
  std::vector<Taint> taints;
  const std::string* v = a.Find(key);
  if (v == nullptr) return taints;
  for (absl::string_view item : absl::StrSplit(*v, ',', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    const size_t colon = item.rfind(':');
    if (colon == absl::string_view::npos) {
      return a.Bad(key, absl::StrCat("\"", item, "\" is not key=value:Effect"));
    }
    absl::StatusOr<TaintEffect> effect = ParseTaintEffect(item.substr(colon + 1));
    if (!effect.ok())
      return a.Bad(key, absl::StrCat("\"", item, "\": ", effect.status().message()));
    std::vector<absl::string_view> kv =
        absl::StrSplit(item.substr(0, colon), absl::MaxSplits('=', 1));
    if (kv[0].empty()) return a.Bad(key, absl::StrCat("\"", item, "\" has no key"));
    taints.push_back({std::string(kv[0]), kv.size() == 2 ? std::string(kv[1]) : "", *effect});
  }
  return taints;
}

// The node a group at zero would make, when the capacity annotations, or the infrastructure
// template's capacity under them, say.
absl::StatusOr<std::optional<NodeTemplate>> ReadTemplate(const CapiScalable& s,
                                                         const Annotations& a,
                                                         const ResourceList* infra) {
  const auto key = [](absl::string_view name) { return absl::StrCat(kCapacityPrefix, name); };
  const auto from_infra = [&](absl::string_view resource) -> std::optional<Quantity> {
    if (infra == nullptr || !infra->Has(resource)) return std::nullopt;
    return infra->Get(resource);
  };
  GPUA_ASSIGN_OR_RETURN(std::optional<Quantity> cpu, a.QuantityOf(key("cpu")));
  GPUA_ASSIGN_OR_RETURN(std::optional<Quantity> memory, a.QuantityOf(key("memory")));
  if (!cpu.has_value()) cpu = from_infra(kResourceCpu);
  if (!memory.has_value()) memory = from_infra(kResourceMemory);
  if (!cpu.has_value() && !memory.has_value()) return std::nullopt;
  if (!cpu.has_value()) return a.Bad(key("cpu"), "missing, and memory is given");
  if (!memory.has_value()) return a.Bad(key("memory"), "missing, and cpu is given");
  NodeTemplate t;
  t.name = s.name;
  // The infrastructure's capacity first (its GPUs among it); the annotations override it.
  if (infra != nullptr) t.allocatable = *infra;
  t.allocatable.Set(kResourceCpu, *cpu);
  t.allocatable.Set(kResourceMemory, *memory);
  GPUA_ASSIGN_OR_RETURN(std::optional<Quantity> disk, a.QuantityOf(key("ephemeral-disk")));
  if (disk.has_value()) t.allocatable.Set(kResourceEphemeralStorage, *disk);
  GPUA_ASSIGN_OR_RETURN(std::optional<Quantity> pods, a.QuantityOf(key("maxPods")));
  if (pods.has_value() || !t.allocatable.Has(kResourcePods)) {
    t.allocatable.Set(kResourcePods, pods.value_or(Quantity::FromUnits(110)));
  }
  const std::string* gpu_type = a.Find(key("gpu-type"));
  const std::string* gpu_count = a.Find(key("gpu-count"));
  if (gpu_count != nullptr) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(*gpu_count, &n) || n < 0) {
      return a.Bad(key("gpu-count"), absl::StrCat("\"", *gpu_count, "\" is not a whole number"));
    }
    t.allocatable.Set(gpu_type != nullptr ? *gpu_type : std::string(kResourceNvidiaGpu),
                      Quantity::FromUnits(n));
  } else if (gpu_type != nullptr) {
    return a.Bad(key("gpu-count"), "missing, and gpu-type is given");
  }
  t.labels = s.template_labels;
  GPUA_RETURN_IF_ERROR(ReadLabels(a, key("labels"), t.labels));
  // What every Linux node carries; upstream assumes the same (CAPI_SCALE_ZERO_DEFAULT_ARCH).
  if (!t.labels.contains("kubernetes.io/os")) t.labels["kubernetes.io/os"] = "linux";
  if (!t.labels.contains("kubernetes.io/arch")) t.labels["kubernetes.io/arch"] = "amd64";
  GPUA_ASSIGN_OR_RETURN(t.taints, ReadTaints(a, key("taints")));
  for (const auto& [k, v] : s.annotations) {
    if (absl::StartsWith(k, "gpu-autoscaler.io/")) t.annotations[k] = v;
  }
  // cluster-autoscaler's: the GPUs of gpu-count are devices of this DRA driver.
  if (const std::string* driver = a.Find(key("dra-driver"))) {
    t.annotations[std::string(dra::kDraDriverAnnotation)] = *driver;
    if (absl::Status st = dra::DeriveTemplateSlices(t, s.name); !st.ok()) {
      return a.Bad(key("dra-driver"), st.message());
    }
  }
  return t;
}

absl::Status ReadOptions(const Annotations& a, CapiGroupOptions& o) {
  const auto key = [](absl::string_view name) { return absl::StrCat(kOptionsPrefix, name); };
  for (auto [name, into] :
       {std::pair{"scaledownutilizationthreshold", &o.scale_down_utilization_threshold},
        std::pair{"scaledowngpuutilizationthreshold", &o.scale_down_gpu_utilization_threshold}}) {
    const std::string* v = a.Find(key(name));
    double d = 0;
    if (v == nullptr) continue;
    if (!absl::SimpleAtod(*v, &d) || d < 0 || d > 1) {
      return a.Bad(key(name), absl::StrCat("\"", *v, "\" is not a fraction from 0 to 1"));
    }
    *into = d;
  }
  for (auto [name, into] : {std::pair{"scaledownunneededtime", &o.scale_down_unneeded_time},
                            std::pair{"scaledownunreadytime", &o.scale_down_unready_time},
                            std::pair{"maxnodeprovisiontime", &o.max_node_provision_time}}) {
    const std::string* v = a.Find(key(name));
    absl::Duration d;
    if (v == nullptr) continue;
    if (!absl::ParseDuration(*v, &d) || d < absl::ZeroDuration()) {
      return a.Bad(key(name), absl::StrCat("\"", *v, "\" is not a duration such as 10m0s"));
    }
    *into = d;
  }
  return absl::OkStatus();
}

}  // namespace

AutoscalingOptions CapiGroupOptions::Over(const AutoscalingOptions& defaults) const {
  AutoscalingOptions o = defaults;
  o.scale_down_utilization_threshold =
      scale_down_utilization_threshold.value_or(o.scale_down_utilization_threshold);
  o.scale_down_gpu_utilization_threshold =
      scale_down_gpu_utilization_threshold.value_or(o.scale_down_gpu_utilization_threshold);
  o.scale_down_unneeded_time = scale_down_unneeded_time.value_or(o.scale_down_unneeded_time);
  o.scale_down_unready_time = scale_down_unready_time.value_or(o.scale_down_unready_time);
  o.max_node_provision_time = max_node_provision_time.value_or(o.max_node_provision_time);
  return o;
}

bool IsAutoscaled(const CapiScalable& scalable, const CapiNames& names) {
  return scalable.annotations.contains(names.MinSize()) ||
         scalable.annotations.contains(names.MaxSize());
}

absl::StatusOr<CapiGroupConfig> ReadGroupConfig(const CapiScalable& scalable,
                                                const CapiNames& names,
                                                const ResourceList* infrastructure_capacity) {
  const Annotations a(scalable);
  CapiGroupConfig c;
  GPUA_ASSIGN_OR_RETURN(c.min_size, a.Count(names.MinSize()));
  GPUA_ASSIGN_OR_RETURN(c.max_size, a.Count(names.MaxSize()));
  if (c.min_size > c.max_size) {
    return a.Bad(names.MinSize(), absl::StrCat(c.min_size, " is over the maximum size ", c.max_size,
                                               " (", names.MaxSize(), ")"));
  }
  GPUA_RETURN_IF_ERROR(ReadOptions(a, c.options));
  GPUA_ASSIGN_OR_RETURN(c.scale_from_zero, ReadTemplate(scalable, a, infrastructure_capacity));
  return c;
}

}  // namespace gpua
