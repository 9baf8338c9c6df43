#include "autoscaler/controller/metrics/autoscaler_metrics.h"

#include "absl/time/time.h"
#include "autoscaler/controller/planning/resource_limits.h"
#include "autoscaler/controller/scaledown/scale_down_planner.h"
#include "estimator/gpu/gpu_resource.h"

namespace gpua {
namespace {

constexpr char kCa[] = "cluster_autoscaler_";
constexpr char kOurs[] = "gpu_autoscaler_";

std::string Ca(absl::string_view name) { return absl::StrCat(kCa, name); }
std::string Ours(absl::string_view name) { return absl::StrCat(kOurs, name); }

const std::vector<double>& DurationBuckets() {
  static const std::vector<double> kBuckets = {0.01, 0.05, 0.1, 0.25, 0.5, 1,   2.5,
                                               5,    10,   20,  30,   60,  120, 300};
  return kBuckets;
}

absl::string_view ConditionName(NodeCondition c, bool gpus_pending) {
  switch (c) {
    case NodeCondition::kReady:
      return "ready";
    case NodeCondition::kUnready:
      return gpus_pending ? "gpus_not_advertised" : "unready";
    case NodeCondition::kNotStarted:
      return gpus_pending ? "gpus_not_advertised" : "not_started";
    case NodeCondition::kBeingDeleted:
      return "being_deleted";
  }
  return "unknown";
}

// The first GPU resource a template advertises and its product: the labels cluster-autoscaler
// gives its GPU scale-up counters.
std::pair<std::string, std::string> GpuNames(const ProviderGroup& g) {
  if (g.gpus == nullptr) return {"", ""};
  const std::vector<std::string> names = g.gpus->ResourceNames();
  return {names.empty() ? "" : names.front(), g.gpus->model()};
}

}  // namespace

int LoopReport::nodes_added() const {
  int n = 0;
  for (const ScaleUpOutcome& o : scale_ups) n += o.status.ok() ? o.request.delta : 0;
  return n;
}

AutoscalerMetrics::AutoscalerMetrics(MetricsRegistry& r)
    : registry_(r),
      safe_to_autoscale_(r.Gauge(Ca("cluster_safe_to_autoscale"),
                                 "Whether or not cluster is healthy enough for autoscaling.")),
      nodes_count_(
          r.Untyped(Ca("nodes_count"), "Number of nodes in cluster (a gauge).", {"state"})),
      node_groups_count_(r.Untyped(Ca("node_groups_count"),
                                   "Number of node groups managed by the autoscaler (a gauge).",
                                   {"node_group_type"})),
      unschedulable_pods_count_(r.Untyped(Ca("unschedulable_pods_count"),
                                          "Number of unschedulable pods in the cluster (a gauge).",
                                          {"type"})),
      max_nodes_count_(r.Untyped(Ca("max_nodes_count"),
                                 "Maximum number of nodes in all node groups (a gauge).")),
      cpu_current_cores_(
          r.Gauge(Ca("cluster_cpu_current_cores"), "Current number of cores in the cluster.")),
      cpu_limits_cores_(r.Gauge(Ca("cpu_limits_cores"),
                                "Minimum and maximum number of cores in the cluster.",
                                {"direction"})),
      memory_current_bytes_(r.Gauge(Ca("cluster_memory_current_bytes"),
                                    "Current number of bytes of memory in the cluster.")),
      memory_limits_bytes_(r.Gauge(Ca("memory_limits_bytes"),
                                   "Minimum and maximum number of bytes of memory in cluster.",
                                   {"direction"})),
      group_min_(r.Untyped(Ca("node_group_min_count"),
                           "Minimum number of nodes in the node group (a gauge).", {"node_group"})),
      group_max_(r.Untyped(Ca("node_group_max_count"),
                           "Maximum number of nodes in the node group (a gauge).", {"node_group"})),
      group_target_(r.Untyped(Ca("node_group_target_count"),
                              "Target number of nodes in the node group (a gauge).",
                              {"node_group"})),
      group_healthiness_(r.Gauge(Ca("node_group_healthiness"),
                                 "Whether or not node group is healthy enough for autoscaling.",
                                 {"node_group"})),
      group_backoff_(r.Gauge(Ca("node_group_backoff_status"),
                             "Whether or not node group is backed off, by reason.",
                             {"node_group", "reason"})),
      last_activity_(r.Gauge(
          Ca("last_activity"),
          "Last time certain part of the autoscaler logic executed (unix seconds).", {"activity"})),
      errors_(r.Counter(Ca("errors_total"), "The number of autoscaler errors, by type.", {"type"})),
      scaled_up_nodes_(
          r.Counter(Ca("scaled_up_nodes_total"), "Number of nodes added by the autoscaler.")),
      scaled_up_gpu_nodes_(r.Counter(Ca("scaled_up_gpu_nodes_total"),
                                     "Number of GPU nodes added by the autoscaler.",
                                     {"gpu_resource_name", "gpu_name"})),
      failed_scale_ups_(r.Counter(Ca("failed_scale_ups_total"),
                                  "Number of times scale-up operation has failed.", {"reason"})),
      failed_gpu_scale_ups_(
          r.Counter(Ca("failed_gpu_scale_ups_total"),
                    "Number of times scale-up operation has failed, for GPU groups.",
                    {"reason", "gpu_resource_name", "gpu_name"})),
      failed_node_creations_(r.Counter(Ca("failed_node_creations_total"),
                                       "Number of nodes that failed creation, by reason.",
                                       {"reason"})),
      unregistered_removed_(r.Untyped(Ca("old_unregistered_nodes_removed_count"),
                                      "Number of unregistered nodes removed (a counter).")),
      function_duration_(r.Histogram(Ca("function_duration_seconds"),
                                     "Time taken by various parts of the autoscaler main loop.",
                                     {"function"}, DurationBuckets())),
      gpus_(r.Gauge(Ours("gpus"),
                    "Physical GPUs of each node group, by state (ready, not_started, "
                    "gpus_not_advertised, unready, being_deleted, upcoming).",
                    {"node_group", "state"})),
      pending_gpu_pods_(
          r.Gauge(Ours("pending_gpu_pods"),
                  "Unschedulable pods that ask for GPUs and may trigger a scale-up.")),
      group_cost_(r.Gauge(Ours("node_group_cost_per_hour"),
                          "What the node group's registered and upcoming nodes cost per hour, in "
                          "the provider's currency.",
                          {"node_group"})),
      scaled_down_nodes_(r.Counter(Ca("scaled_down_nodes_total"),
                                   "Number of nodes removed by the autoscaler, by reason.",
                                   {"reason"})),
      scaled_down_gpu_nodes_(r.Counter(Ca("scaled_down_gpu_nodes_total"),
                                       "Number of GPU nodes removed by the autoscaler, by reason.",
                                       {"reason", "gpu_resource_name", "gpu_name"})),
      evicted_pods_(r.Counter(Ca("evicted_pods_total"), "Number of pods evicted for scale-down.",
                              {"eviction_result"})),
      unneeded_nodes_(r.Untyped(Ca("unneeded_nodes_count"),
                                "Number of nodes currently considered unneeded (a gauge).")),
      unremovable_nodes_(r.Untyped(Ca("unremovable_nodes_count"),
                                   "Number of nodes that cannot be removed, by reason (a gauge).",
                                   {"reason"})),
      scale_down_in_cooldown_(r.Gauge(Ca("scale_down_in_cooldown"),
                                      "Whether scale-down is in cooldown (1) or not (0).")),
      pending_node_deletions_(
          r.Gauge(Ca("pending_node_deletions"), "Number of nodes being removed.")),
      idle_gpus_(r.Gauge(Ours("idle_gpus"),
                         "Physical GPUs of each node group billed and not used now.",
                         {"node_group"})),
      idle_gpus_by_cause_(r.Gauge(Ours("idle_gpus_by_cause"),
                                  "Physical GPUs of each node group billed and not used now, by "
                                  "what keeps them: starting, idle_timeout, pods_cannot_move, "
                                  "warm_capacity, fragmentation, min_size, removing, other.",
                                  {"node_group", "cause"})),
      repeat_scale_ups_(r.Counter(
          Ours("repeat_scale_ups_total"),
          "Increases whose pods were all promised nodes still on their way, by node group.",
          {"node_group"})),
      idle_gpu_seconds_(r.Counter(Ours("idle_gpu_seconds_total"),
                                  "Physical GPU-seconds billed and not used, by node group.",
                                  {"node_group"})),
      idle_gpu_cost_(r.Counter(Ours("idle_gpu_cost_total"),
                               "What idle GPUs cost, in the provider's currency, by node group.",
                               {"node_group"})),
      gpu_nodes_unhealthy_(r.Gauge(Ours("gpu_nodes_unhealthy"),
                                   "GPU nodes broken past their repair policy's toleration, or "
                                   "under repair, by node group.",
                                   {"node_group"})),
      node_repairs_(r.Counter(Ours("node_repairs_total"),
                              "Repairs begun, by the signal that called for them "
                              "(AcceleratedHardwareReady=False, GPUsMissing, ...).",
                              {"reason"})) {}

void AutoscalerMetrics::CountError(const std::string& type) { errors_.Add({type}, 1); }

void AutoscalerMetrics::Record(const LoopReport& report, const ControllerOptions& options) {
  const double now = absl::ToDoubleSeconds(report.end - absl::UnixEpoch());
  last_activity_.Set({"main"}, now);
  for (const auto& [function, took] : report.durations) {
    function_duration_.Observe({function}, absl::ToDoubleSeconds(took));
  }
  if (!report.skipped.empty()) return;
  last_activity_.Set({"autoscaling"}, now);
  if (!report.scale_ups.empty()) last_activity_.Set({"scaleUp"}, now);
  unschedulable_pods_count_.Set({"unschedulable"}, report.unschedulable);
  pending_gpu_pods_.Set({}, report.pending_gpu_pods);
  RecordState(report.state, options);
  RecordGroups(report.state);
  RecordScaleUps(report);
  RecordScaleDown(report);
  RecordIdleGpus(report);
  RecordRepairs(report);
  unregistered_removed_.Add({}, report.stale.unregistered_deleted);
  if (report.stale.failed_deleted > 0) {
    failed_node_creations_.Add({"creation_error"}, report.stale.failed_deleted);
  }
}

void AutoscalerMetrics::RecordRepairs(const LoopReport& report) {
  const ClusterState& state = report.state;
  std::vector<int> by_group(state.groups.size(), 0);
  const auto is_gpu_node = [&](const NodeStatus& s) {
    const ProviderGroup& p = *state.groups[s.group].provider;
    const bool dra = p.node_template.has_value() && !p.node_template->resource_slices.empty();
    const auto& own = s.node->Gpus();
    return p.gpus != nullptr || dra || (own.ok() && *own != nullptr);
  };
  for (const UnhealthyNode& u : report.repair_plan.unhealthy) {
    const NodeStatus& s = state.nodes[u.node];
    if (u.Due(state.now) && s.node->Marks().repair.empty() && is_gpu_node(s)) ++by_group[s.group];
  }
  for (const NodeStatus& s : state.nodes) {
    if (s.group >= 0 && !s.node->Marks().repair.empty() && is_gpu_node(s)) ++by_group[s.group];
  }
  gpu_nodes_unhealthy_.Clear();
  for (size_t g = 0; g < state.groups.size(); ++g) {
    gpu_nodes_unhealthy_.Set({state.groups[g].id()}, by_group[g]);
  }
  for (const auto& [reason, n] : report.repairs.by_reason) node_repairs_.Add({reason}, n);
}

void AutoscalerMetrics::RecordState(const ClusterState& state, const ControllerOptions& options) {
  safe_to_autoscale_.Set({}, state.healthy ? 1 : 0);
  const NodeCounts& c = state.totals;
  nodes_count_.Set({"ready"}, c.ready);
  nodes_count_.Set({"unready"}, c.unready);
  nodes_count_.Set({"notStarted"}, c.not_started);
  nodes_count_.Set({"longUnregistered"}, c.long_unregistered);
  nodes_count_.Set({"unregistered"}, c.unregistered);
  node_groups_count_.Set({"autoscaled"}, static_cast<double>(state.groups.size()));
  int max_nodes = 0;
  for (const GroupState& g : state.groups) max_nodes += g.provider->max_size;
  max_nodes_count_.Set({}, options.limits.max_nodes_total > 0
                               ? std::min(max_nodes, options.limits.max_nodes_total)
                               : max_nodes);
  int64_t cores = 0, memory = 0;
  for (const NodeStatus& s : state.nodes) {
    const NodeUsage u = UsageOf(*s.node, "");
    cores += u.cores;
    memory += u.memory_bytes;
  }
  cpu_current_cores_.Set({}, static_cast<double>(cores));
  memory_current_bytes_.Set({}, static_cast<double>(memory));
  cpu_limits_cores_.Set({"minimum"}, static_cast<double>(options.limits.cores.min));
  cpu_limits_cores_.Set({"maximum"}, static_cast<double>(options.limits.cores.max));
  memory_limits_bytes_.Set({"minimum"}, static_cast<double>(options.limits.memory_bytes.min));
  memory_limits_bytes_.Set({"maximum"}, static_cast<double>(options.limits.memory_bytes.max));
}

void AutoscalerMetrics::RecordGroups(const ClusterState& state) {
  for (MetricFamily* f : {&group_min_, &group_max_, &group_target_, &group_healthiness_,
                          &group_backoff_, &gpus_, &group_cost_}) {
    f->Clear();  // groups come and go; a gone group must not keep its last values
  }
  for (const GroupState& g : state.groups) {
    const ProviderGroup& p = *g.provider;
    group_min_.Set({p.id}, p.min_size);
    group_max_.Set({p.id}, p.max_size);
    group_target_.Set({p.id}, p.target_size);
    group_healthiness_.Set({p.id}, g.healthy && p.usable() ? 1 : 0);
    if (g.backoff.has_value()) group_backoff_.Set({p.id, g.backoff->error_code}, 1);
    group_cost_.Set({p.id}, p.price_per_hour * (g.counts.registered + g.upcoming));
    if (p.gpus == nullptr) continue;
    const double per_node = p.gpus->physical_count();
    for (int i : g.nodes) {
      const NodeStatus& s = state.nodes[i];
      gpus_.Add({p.id, std::string(ConditionName(s.condition, s.gpus_pending))}, per_node);
    }
    gpus_.Set({p.id, "upcoming"}, per_node * g.upcoming);
  }
}

void AutoscalerMetrics::RecordScaleDown(const LoopReport& report) {
  const ScaleDownReport& r = report.removals;
  for (const RemovedNode& removed : r.deleted) {
    scaled_down_nodes_.Add({removed.reason}, 1);
    auto it = report.state.node_index.find(removed.node);
    if (it == report.state.node_index.end() || report.state.nodes[it->second].group < 0) continue;
    const ProviderGroup& g = *report.state.groups[report.state.nodes[it->second].group].provider;
    const auto [resource, product] = GpuNames(g);
    if (!resource.empty()) scaled_down_gpu_nodes_.Add({removed.reason, resource, product}, 1);
  }
  for (const auto& [result, count] : r.evictions) evicted_pods_.Add({result}, count);
  unneeded_nodes_.Set({}, report.unneeded);
  unremovable_nodes_.Clear();
  for (const auto& [reason, count] : report.unremovable) unremovable_nodes_.Set({reason}, count);
  scale_down_in_cooldown_.Set({}, report.scale_down_cooldown.empty() ? 0 : 1);
  pending_node_deletions_.Set({}, report.state.totals.being_deleted);
  if (!r.deleted.empty() || r.started > 0) {
    last_activity_.Set({"scaleDown"}, absl::ToDoubleSeconds(report.end - absl::UnixEpoch()));
  }
}

void AutoscalerMetrics::RecordIdleGpus(const LoopReport& report) {
  // Idle GPUs cost from the last loop to this one: what they were at this loop, held since.
  const absl::Duration since =
      last_loop_ == absl::InfinitePast() ? absl::ZeroDuration() : report.start - last_loop_;
  last_loop_ = report.start;
  idle_gpus_.Clear();
  idle_gpus_by_cause_.Clear();
  for (const GroupState& g : report.state.groups) {
    auto idle = report.idle_gpus.find(g.id());
    const double gpus = idle == report.idle_gpus.end() ? 0 : idle->second.total;
    idle_gpus_.Set({g.id()}, gpus);
    if (idle != report.idle_gpus.end()) {
      for (size_t c = 0; c < kIdleCauseCount; ++c) {
        if (idle->second.by_cause[c] <= 0) continue;
        idle_gpus_by_cause_.Set({g.id(), std::string(IdleCauseName(static_cast<IdleCause>(c)))},
                                idle->second.by_cause[c]);
      }
    }
    if (gpus <= 0 || since <= absl::ZeroDuration() || g.provider->gpus == nullptr) continue;
    idle_gpu_seconds_.Add({g.id()}, gpus * absl::ToDoubleSeconds(since));
    const double per_gpu_hour =
        g.provider->price_per_hour / std::max(1, g.provider->gpus->physical_count());
    idle_gpu_cost_.Add({g.id()}, gpus * per_gpu_hour * absl::ToDoubleHours(since));
  }
}

void AutoscalerMetrics::RecordScaleUps(const LoopReport& report) {
  for (const ScaleUpOutcome& o : report.scale_ups) {
    const GroupState* g = report.state.FindGroup(o.request.group);
    const auto [resource, product] =
        g != nullptr ? GpuNames(*g->provider) : std::pair<std::string, std::string>{"", ""};
    if (o.status.ok()) {
      scaled_up_nodes_.Add({}, o.request.delta);
      if (o.repeat) repeat_scale_ups_.Add({o.request.group}, 1);
      if (!resource.empty()) scaled_up_gpu_nodes_.Add({resource, product}, o.request.delta);
    } else {
      failed_scale_ups_.Add({"cloudProviderError"}, 1);
      if (!resource.empty())
        failed_gpu_scale_ups_.Add({"cloudProviderError", resource, product}, 1);
      errors_.Add({"cloudProviderError"}, 1);
    }
  }
  for (const GroupState& g : report.state.groups) {
    if (!g.failed.empty()) failed_scale_ups_.Add({"cloudProviderError"}, 1);
    if (!g.long_unregistered.empty()) failed_scale_ups_.Add({"timeout"}, 1);
  }
}

}  // namespace gpua
