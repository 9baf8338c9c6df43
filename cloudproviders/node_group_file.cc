#include "cloudproviders/node_group_file.h"

#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/file.h"
#include "base/status_macros.h"
#include "cloudproviders/clusterapi/group_annotations.h"
#include "estimator/dra/template_slices.h"
#include "kubeobjects/documents.h"
#include "kubeobjects/json_reader.h"
#include "kubeobjects/json_text.h"
#include "kubeobjects/nodes.h"
#include "kubeobjects/resource_slices.h"

namespace gpua {
namespace {

absl::StatusOr<std::optional<double>> ReadFraction(const JsonReader& r) {
  if (r.IsNull()) return std::optional<double>();
  GPUA_ASSIGN_OR_RETURN(double v, r.Double());
  if (v < 0 || v > 1) return r.Error("must be between 0 and 1");
  return std::optional<double>(v);
}

absl::StatusOr<NodeGroupOptions> ReadOptions(const JsonReader& r) {
  NodeGroupOptions o;
  GPUA_RETURN_IF_ERROR(
      r.RejectUnknown({"scaleDownUtilizationThreshold", "scaleDownGpuUtilizationThreshold",
                       "scaleDownUnneededTime", "scaleDownUnreadyTime", "maxNodeProvisionTime",
                       "zeroOrMaxNodeScaling", "ignoreDaemonSetsUtilization"}));
  GPUA_ASSIGN_OR_RETURN(o.scale_down_utilization_threshold,
                        ReadFraction(r.Field("scaleDownUtilizationThreshold")));
  GPUA_ASSIGN_OR_RETURN(o.scale_down_gpu_utilization_threshold,
                        ReadFraction(r.Field("scaleDownGpuUtilizationThreshold")));
  GPUA_ASSIGN_OR_RETURN(o.scale_down_unneeded_time, r.Field("scaleDownUnneededTime").Duration());
  GPUA_ASSIGN_OR_RETURN(o.scale_down_unready_time, r.Field("scaleDownUnreadyTime").Duration());
  GPUA_ASSIGN_OR_RETURN(o.max_node_provision_time, r.Field("maxNodeProvisionTime").Duration());
  for (auto [key, target] :
       {std::pair{"zeroOrMaxNodeScaling", &o.zero_or_max_node_scaling},
        std::pair{"ignoreDaemonSetsUtilization", &o.ignore_daemonsets_utilization}}) {
    if (r.Has(key)) {
      GPUA_ASSIGN_OR_RETURN(bool v, r.Field(key).Bool());
      *target = v;
    }
  }
  return o;
}

absl::StatusOr<DelayDistribution> ReadDelay(const JsonReader& r) {
  DelayDistribution d;
  if (r.IsNull()) return d;
  GPUA_RETURN_IF_ERROR(r.RejectUnknown({"p50", "p95"}));
  GPUA_ASSIGN_OR_RETURN(std::optional<absl::Duration> p50, r.Field("p50").Duration());
  GPUA_ASSIGN_OR_RETURN(std::optional<absl::Duration> p95, r.Field("p95").Duration());
  d.p50 = p50.value_or(absl::ZeroDuration());
  d.p95 = p95.value_or(d.p50);
  if (d.p95 < d.p50) return r.Error("p95 is below p50");
  return d;
}

absl::StatusOr<SimulationSettings> ReadSimulation(const JsonReader& r) {
  SimulationSettings s;
  GPUA_RETURN_IF_ERROR(r.RejectUnknown({"provisioningDelay", "gpuReadyDelay",
                                        "spotInterruptionsPerHour", "gpuFailuresPerNodeHour"}));
  GPUA_ASSIGN_OR_RETURN(s.provisioning_delay, ReadDelay(r.Field("provisioningDelay")));
  GPUA_ASSIGN_OR_RETURN(s.gpu_ready_delay, ReadDelay(r.Field("gpuReadyDelay")));
  GPUA_ASSIGN_OR_RETURN(s.spot_interruptions_per_hour,
                        r.Field("spotInterruptionsPerHour").Double());
  GPUA_ASSIGN_OR_RETURN(s.gpu_failures_per_node_hour, r.Field("gpuFailuresPerNodeHour").Double());
  if (!(s.gpu_failures_per_node_hour >= 0 && s.gpu_failures_per_node_hour <= 1000)) {
    return r.Field("gpuFailuresPerNodeHour").Error("must be from 0 to 1000");
  }
  if (s.spot_interruptions_per_hour < 0) {
    return r.Field("spotInterruptionsPerHour").Error("must not be negative");
  }
  return s;
}

absl::StatusOr<int> ReadSize(const JsonReader& r, int fallback) {
  GPUA_ASSIGN_OR_RETURN(int64_t v, r.Int(fallback));
  if (v < 0 || v > 1'000'000) return r.Error("must be between 0 and 1000000");
  return static_cast<int>(v);
}

absl::StatusOr<WarmSettings> ReadWarm(const JsonReader& r, int max_size) {
  WarmSettings w;
  if (r.IsNull()) return w;
  GPUA_RETURN_IF_ERROR(r.RejectUnknown({"nodes", "schedule"}));
  GPUA_ASSIGN_OR_RETURN(w.nodes, ReadSize(r.Field("nodes"), 0));
  if (const JsonReader s = r.Field("schedule"); !s.IsNull()) {
    GPUA_ASSIGN_OR_RETURN(absl::string_view text, s.StringView());
    absl::StatusOr<ReplicaSchedule> schedule = ReplicaSchedule::Parse(text);
    if (!schedule.ok()) return s.Error(schedule.status().message());
    w.schedule = *std::move(schedule);
  }
  int most = w.nodes;
  if (w.schedule) {
    for (const ReplicaSchedule::Window& win : w.schedule->windows()) {
      most = std::max(most, static_cast<int>(win.replicas));
    }
  }
  if (most > max_size) {
    return r.Error(absl::StrCat("asks for ", most, " warm nodes, more than maxSize ", max_size));
  }
  return w;
}

// A group given as a Cluster API MachineDeployment, MachineSet or MachinePool: its id, sizes,
// template and options read as the clusterapi provider reads them, so that `simulate` and
// `estimate` plan it exactly as the controller will.
absl::Status ReadClusterApiGroup(const JsonReader& object, NodeGroupConfig& g) {
  GPUA_ASSIGN_OR_RETURN(const std::string kind_name, object.Field("kind").String());
  std::optional<CapiKind> kind;
  for (CapiKind k : kCapiScalableKinds) {
    if (CapiKindName(k) == kind_name) kind = k;
  }
  if (!kind.has_value()) {
    return object.Field("kind").Error(
        absl::StrCat("\"", kind_name, "\" is not MachineDeployment, MachineSet or MachinePool"));
  }
  GPUA_ASSIGN_OR_RETURN(const CapiScalable s, DecodeCapiScalable(object, *kind));
  GPUA_ASSIGN_OR_RETURN(const CapiGroupConfig c, ReadGroupConfig(s, CapiNames{}));
  if (!c.scale_from_zero.has_value()) {
    return object.Error(absl::StrCat("has no ", kCapacityPrefix,
                                     "cpu and memory annotations: a node of it is unknown"));
  }
  if (g.spec.id.empty()) g.spec.id = absl::StrCat(kind_name, "/", s.namespace_name, "/", s.name);
  g.spec.min_size = c.min_size;
  g.spec.max_size = c.max_size;
  g.spec.node_template = *c.scale_from_zero;
  g.options.scale_down_utilization_threshold = c.options.scale_down_utilization_threshold;
  g.options.scale_down_gpu_utilization_threshold = c.options.scale_down_gpu_utilization_threshold;
  g.options.scale_down_unneeded_time = c.options.scale_down_unneeded_time;
  g.options.scale_down_unready_time = c.options.scale_down_unready_time;
  g.options.max_node_provision_time = c.options.max_node_provision_time;
  return absl::OkStatus();
}

// resourceSlices: the ResourceSlice objects DRA drivers publish for one node of the group.
// They must be a node's own (spec.nodeName): the template's node is each new node.
absl::StatusOr<std::vector<std::shared_ptr<const dra::ResourceSlice>>> ReadTemplateSlices(
    const JsonReader& list) {
  std::vector<std::shared_ptr<const dra::ResourceSlice>> out;
  GPUA_RETURN_IF_ERROR(list.ForEach([&](const JsonReader& item) -> absl::Status {
    absl::StatusOr<dra::ResourceSlice> slice = DecodeResourceSlice(item.Rooted());
    if (!slice.ok()) return item.Error(slice.status().message());
    if (slice->node_name.empty()) {
      return item.Field("spec").Error(
          "a node group's slice must be one node's own: set spec.nodeName (any name; each new "
          "node gets its own copy)");
    }
    out.push_back(std::make_shared<const dra::ResourceSlice>(*std::move(slice)));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<NodeGroupConfig> ReadGroup(const JsonReader& r) {
  NodeGroupConfig g;
  GPUA_RETURN_IF_ERROR(r.RejectUnknown({"id", "minSize", "maxSize", "targetSize", "pricePerHour",
                                        "capacityType", "template", "resourceSlices", "clusterAPI",
                                        "options", "simulation", "warm"}));
  GPUA_ASSIGN_OR_RETURN(g.spec.id, r.Field("id").String());
  const JsonReader capi = r.Field("clusterAPI");
  if (!capi.IsNull()) {
    for (const char* field : {"template", "minSize", "maxSize", "options"}) {
      if (r.Has(field)) {
        return r.Field(field).Error("not with clusterAPI: its annotations say it");
      }
    }
    GPUA_RETURN_IF_ERROR(ReadClusterApiGroup(capi, g));
  }
  if (g.spec.id.empty()) return r.Field("id").Error("required");
  if (capi.IsNull()) {
    GPUA_ASSIGN_OR_RETURN(g.spec.min_size, ReadSize(r.Field("minSize"), 0));
    if (!r.Has("maxSize")) return r.Field("maxSize").Error("required");
    GPUA_ASSIGN_OR_RETURN(g.spec.max_size, ReadSize(r.Field("maxSize"), 0));
  }
  GPUA_ASSIGN_OR_RETURN(g.spec.target_size, ReadSize(r.Field("targetSize"), g.spec.min_size));
  if (g.spec.min_size > g.spec.max_size) {
    return r.Field("minSize").Error(
        absl::StrCat("minSize ", g.spec.min_size, " exceeds maxSize ", g.spec.max_size));
  }
  if (g.spec.target_size < g.spec.min_size || g.spec.target_size > g.spec.max_size) {
    return r.Field("targetSize").Error("must lie between minSize and maxSize");
  }
  GPUA_ASSIGN_OR_RETURN(g.spec.price_per_hour, r.Field("pricePerHour").Double());
  if (g.spec.price_per_hour < 0) return r.Field("pricePerHour").Error("must not be negative");
  GPUA_ASSIGN_OR_RETURN(std::string capacity, r.Field("capacityType").String("on-demand"));
  if (capacity == "spot") {
    g.capacity_type = CapacityType::kSpot;
  } else if (capacity != "on-demand") {
    return r.Field("capacityType")
        .Error(absl::StrCat("unknown value \"", capacity, "\" (expected spot or on-demand)"));
  }
  if (capi.IsNull()) {
    const JsonReader tmpl = r.Field("template");
    if (!tmpl.IsObject()) return tmpl.Error("required: a Kubernetes Node (or clusterAPI)");
    GPUA_ASSIGN_OR_RETURN(g.spec.node_template, DecodeNodeTemplate(tmpl));
    GPUA_ASSIGN_OR_RETURN(g.options, ReadOptions(r.Field("options")));
  }
  GPUA_ASSIGN_OR_RETURN(g.spec.node_template.resource_slices,
                        ReadTemplateSlices(r.Field("resourceSlices")));
  if (absl::Status s = dra::DeriveTemplateSlices(g.spec.node_template, "template"); !s.ok()) {
    return r.Error(s.message());
  }
  GPUA_ASSIGN_OR_RETURN(g.simulation, ReadSimulation(r.Field("simulation")));
  GPUA_ASSIGN_OR_RETURN(g.warm, ReadWarm(r.Field("warm"), g.spec.max_size));
  return g;
}

}  // namespace

absl::StatusOr<std::vector<NodeGroupConfig>> ParseNodeGroupFile(absl::string_view text,
                                                                absl::string_view source) {
  GPUA_ASSIGN_OR_RETURN(std::vector<nlohmann::json> docs, ParseObjects(text, source));
  if (docs.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": expected one document with nodeGroups, found ", docs.size()));
  }
  const JsonReader root(docs.front(), "");
  const auto in_source = [&](const absl::Status& s) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", s.message()));
  };
  if (absl::Status s = root.RejectUnknown({"nodeGroups"}); !s.ok()) return in_source(s);
  std::vector<NodeGroupConfig> groups;
  absl::flat_hash_set<std::string> ids;
  absl::Status s = root.Field("nodeGroups").ForEach([&](const JsonReader& g) -> absl::Status {
    absl::StatusOr<NodeGroupConfig> group = ReadGroup(g);
    if (!group.ok()) {
      const std::string id(g.Field("id").StringView().value_or(""));
      return absl::InvalidArgumentError(
          id.empty() ? std::string(group.status().message())
                     : absl::StrCat("node group ", id, ": ", group.status().message()));
    }
    if (!ids.insert(group->spec.id).second) {
      return g.Field("id").Error(absl::StrCat("duplicate node group id \"", group->spec.id, "\""));
    }
    groups.push_back(*std::move(group));
    return absl::OkStatus();
  });
  if (!s.ok()) return in_source(s);
  if (groups.empty()) return in_source(root.Field("nodeGroups").Error("no node groups"));
  return groups;
}

absl::Status SetNodeGroupOption(NodeGroupOptions& options, absl::string_view name,
                                absl::string_view value, absl::string_view where) {
  absl::StatusOr<nlohmann::json> parsed = ParseJson(value, where);
  const bool is_json = parsed.ok();
  nlohmann::json v = is_json ? *std::move(parsed) : nlohmann::json();
  if (!is_json || v.is_object() || v.is_array()) v = std::string(value);  // "5m"
  const nlohmann::json object = {{std::string(name), v}};
  GPUA_ASSIGN_OR_RETURN(const NodeGroupOptions read,
                        ReadOptions(JsonReader(object, std::string(where))));
  const auto merge = [](auto& into, const auto& from) {
    if (from.has_value()) into = from;
  };
  merge(options.scale_down_utilization_threshold, read.scale_down_utilization_threshold);
  merge(options.scale_down_gpu_utilization_threshold, read.scale_down_gpu_utilization_threshold);
  merge(options.scale_down_unneeded_time, read.scale_down_unneeded_time);
  merge(options.scale_down_unready_time, read.scale_down_unready_time);
  merge(options.max_node_provision_time, read.max_node_provision_time);
  merge(options.zero_or_max_node_scaling, read.zero_or_max_node_scaling);
  merge(options.ignore_daemonsets_utilization, read.ignore_daemonsets_utilization);
  return absl::OkStatus();
}

bool IsWarmSetting(absl::string_view name) { return name == "warmNodes" || name == "warmSchedule"; }

absl::Status SetWarmSetting(WarmSettings& warm, absl::string_view name, absl::string_view value,
                            absl::string_view where) {
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", name, " \"", value, "\": ", why));
  };
  if (name == "warmNodes") {
    int n = 0;
    if (!absl::SimpleAtoi(value, &n) || n < 0 || n > 1'000'000) {
      return bad("not a whole number of nodes from 0");
    }
    warm.nodes = n;
    return absl::OkStatus();
  }
  if (name == "warmSchedule") {
    absl::StatusOr<ReplicaSchedule> s = ReplicaSchedule::Parse(value);
    if (!s.ok()) return bad(s.status().message());
    warm.schedule = *std::move(s);
    return absl::OkStatus();
  }
  return bad("not a warm setting (warmNodes, warmSchedule)");
}

absl::StatusOr<std::vector<NodeGroupConfig>> LoadNodeGroupFile(const std::string& path) {
  GPUA_ASSIGN_OR_RETURN(std::string text, ReadFile(path, kMaxConfigFileBytes));
  return ParseNodeGroupFile(text, path);
}

}  // namespace gpua
