#include "autoscaler/cli/controller_flags.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "autoscaler/cli/listen_address.h"
#include "base/file.h"
#include "base/status_macros.h"
#include "cloudproviders/provider_registry.h"
#include "estimator/expander.h"

namespace gpua {
namespace {

// "externalgrpc: the plugin's cloud-config ...; simulated: the node-group file".
std::string CloudConfigHelp() {
  std::vector<std::string> parts;
  const ProviderRegistry& providers = ProviderRegistry::Builtin();
  for (const std::string& name : providers.Names()) {
    parts.push_back(absl::StrCat(name, ": ", providers.Find(name)->cloud_config_help));
  }
  return absl::StrJoin(parts, "; ");
}

constexpr char kCommand[] = "gpu-autoscaler";

// What the flags set before it is checked and turned into the controller's terms.
struct RawFlags {
  std::vector<std::string> nodes, gpu_total, auto_discovery, startup_taints, status_taints;
  std::vector<std::string> readiness_conditions;
  std::string repair_policy_file;
  std::string cores_total = "0:320000", memory_total = "0:6400000", estimator = "binpacking";
  std::string lock = "leases";
  int64_t max_nodes_total = 0, max_nodes_per_scaleup = 1000, ok_unready = 3, verbosity = 0;
  int64_t burst = 10, expendable_cutoff = -10, max_scale_down_parallelism = 10;
  int64_t non_empty_candidates = 30;
  int64_t max_drain_parallelism = 1, max_graceful_termination_sec = 600;
  double qps = 5, max_unready_percentage = 45;
  double utilization_threshold = 0.5, gpu_utilization_threshold = 0.5;
  absl::Duration unneeded = absl::Minutes(10), unready = absl::Minutes(20);
  absl::Duration provision = absl::Minutes(15);
  bool ignore_daemonsets_utilization = false;
};

absl::Status Bad(absl::string_view flag, absl::string_view value, absl::string_view expected) {
  return absl::InvalidArgumentError(absl::StrCat(kCommand, ": invalid value \"", value,
                                                 "\" for flag --", flag, ": expected ", expected));
}

absl::StatusOr<int64_t> Whole(absl::string_view flag, absl::string_view full, absl::string_view v,
                              absl::string_view expected) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(v, &n) || n < 0) return Bad(flag, full, expected);
  return n;
}

// "<min>:<max>"
absl::StatusOr<MinMax> ParseMinMax(absl::string_view flag, absl::string_view value) {
  const std::vector<absl::string_view> parts = absl::StrSplit(value, ':');
  if (parts.size() != 2) return Bad(flag, value, "<min>:<max>");
  MinMax out;
  GPUA_ASSIGN_OR_RETURN(out.min, Whole(flag, value, parts[0], "<min>:<max>"));
  GPUA_ASSIGN_OR_RETURN(out.max, Whole(flag, value, parts[1], "<min>:<max>"));
  if (out.min > out.max) return Bad(flag, value, "<min>:<max> with min no larger than max");
  return out;
}

// --nodes=<min>:<max>:<id>
absl::StatusOr<NodeGroupLimits> ParseNodes(absl::string_view value) {
  const std::vector<absl::string_view> parts = absl::StrSplit(value, absl::MaxSplits(':', 2));
  constexpr absl::string_view kExpected = "<min>:<max>:<node group id>";
  if (parts.size() != 3 || parts[2].empty()) return Bad("nodes", value, kExpected);
  NodeGroupLimits out;
  out.id = std::string(parts[2]);
  GPUA_ASSIGN_OR_RETURN(const int64_t min, Whole("nodes", value, parts[0], kExpected));
  GPUA_ASSIGN_OR_RETURN(const int64_t max, Whole("nodes", value, parts[1], kExpected));
  if (min > max || max > 1'000'000) return Bad("nodes", value, "min <= max <= 1000000");
  out.min_size = static_cast<int>(min);
  out.max_size = static_cast<int>(max);
  return out;
}

// --gpu-total=<type>:<min>:<max>
absl::Status ParseGpuTotal(absl::string_view value, ClusterLimits& limits) {
  const size_t at = value.find(':');
  if (at == absl::string_view::npos || at == 0) {
    return Bad("gpu-total", value, "<type>:<min>:<max>");
  }
  GPUA_ASSIGN_OR_RETURN(const MinMax range, ParseMinMax("gpu-total", value.substr(at + 1)));
  limits.gpus_by_type[std::string(value.substr(0, at))] = range;
  return absl::OkStatus();
}

void AddClusterFlags(FlagSet& f, ControllerConfig& c, RawFlags& r) {
  f.AddString("cloud-provider", &c.cloud_provider, ProviderRegistry::Builtin().NamesText());
  f.AddString("cloud-config", &c.cloud_config, CloudConfigHelp());
  f.AddString("kubeconfig", &c.kubeconfig,
              "kubeconfig file (default: KUBECONFIG, ~/.kube/config, in-cluster)");
  f.AddBool("clusterapi-cloud-config-authoritative", &c.clusterapi_cloud_config_authoritative,
            "clusterapi: with no --cloud-config, the management cluster is the one this runs in "
            "(in-cluster), not --kubeconfig's");
  f.AddString("namespace", &c.controller.status.namespace_name,
              "namespace of the status ConfigMap, the lease and the priority expander's ConfigMap");
  f.AddStringList("node-group-auto-discovery", &r.auto_discovery,
                  "node-group discovery, for providers that have one");
  f.AddString("address", &c.address, "where /metrics and /health-check are served");
  f.AddBool("dry-run", &c.dry_run,
            "ours: decide and report (log, metrics, the status ConfigMap) but change no node, "
            "pod or Event; with --cloud-provider=simulated nothing anywhere changes");
  f.AddDouble("kube-api-qps", &r.qps, "requests per second to the API server");
  f.AddInt("kube-api-burst", &r.burst, "requests allowed at once");
  f.AddDouble("kube-client-qps", &r.qps, "cluster-autoscaler's name for --kube-api-qps");
  f.AddInt("kube-client-burst", &r.burst, "cluster-autoscaler's name for --kube-api-burst");
  f.AddString("user-agent", &c.user_agent, "User-Agent of calls to the API server");
  f.AddInt("v", &r.verbosity, "log verbosity: info lines up to this level are written");
  f.AddBoolFixed("logtostderr", true, "logs go to stderr, one line a message, as klog writes");
  f.AddNoEffect("alsologtostderr", "bool", "logs go to stderr only");
  f.AddNoEffect("stderrthreshold", "string", "every line goes to stderr");
  f.AddBool("write-status-configmap", &c.controller.status.write_configmap,
            "write the cluster-autoscaler-status ConfigMap every loop");
  f.AddString("status-config-map-name", &c.controller.status.configmap_name,
              "name of the status ConfigMap");
  f.AddDuration("max-inactivity", &c.max_inactivity,
                "/health-check fails when no loop completed for this long (default: three scan "
                "intervals, at least 30s)");
  f.AddDuration("max-failing-time", &c.max_failing_time,
                "/health-check fails when no loop succeeded for this long");
}

// What the loop looks at, and how often.
void AddLoopFlags(FlagSet& f, ControllerConfig& c, RawFlags& r) {
  f.AddStringList("nodes", &r.nodes,
                  "<min>:<max>:<id>: autoscale only the groups named, within these sizes");
  f.AddDuration("scan-interval", &c.controller.scan_interval,
                "how often the cluster is looked at (new unschedulable pods wake it sooner)");
}

void AddScaleUpFlags(FlagSet& f, ControllerConfig& c, RawFlags& r) {
  ScaleUpOptions& up = c.controller.scale_up;
  ClusterStateOptions& state = c.controller.cluster_state;
  f.AddString("expander", &up.expander, absl::StrCat("expander chain: ", ExpanderNames()));
  f.AddString("estimator", &r.estimator, "only binpacking (it knows GPU sharing)");
  f.AddInt("max-nodes-total", &r.max_nodes_total, "nodes the cluster may have; 0: no limit");
  f.AddString("cores-total", &r.cores_total, "<min>:<max> cores in the cluster");
  f.AddString("memory-total", &r.memory_total, "<min>:<max> GiB of memory in the cluster");
  f.AddStringList("gpu-total", &r.gpu_total,
                  "<type>:<min>:<max> physical GPUs of a type (the provider's GPU label's value)");
  f.AddInt("max-nodes-per-scaleup", &r.max_nodes_per_scaleup, "new nodes one loop may ask for");
  f.AddDuration("max-node-provision-time", &r.provision,
                "how long a new node may take to register (a group's option overrides it)");
  f.AddDuration("max-node-startup-time", &state.max_node_startup_time,
                "how long a registered node may take to be ready with its GPUs advertised");
  f.AddDuration("new-pod-scale-up-delay", &up.new_pod_scale_up_delay,
                "how old a pod must be to trigger a scale-up (the pod's pod-scale-up-delay "
                "annotation overrides it)");
  f.AddInt("expendable-pods-priority-cutoff", &r.expendable_cutoff,
           "pods below this priority never trigger a scale-up");
  f.AddBool("enable-dynamic-resource-allocation", &c.controller.dynamic_resource_allocation,
            "plan pods' ResourceClaims with the devices nodes publish in ResourceSlices, and "
            "read what templates' slices promise (on by default, unlike cluster-autoscaler; "
            "read as none where resource.k8s.io is not served)");
  f.AddBool("capacity-buffer-pod-injection-enabled", &up.capacity_buffers,
            "keep the warm capacity CapacityBuffers (autoscaling.x-k8s.io) ask for: placeholder "
            "pods of each buffer's PodTemplate that scale-up makes room for and scale-down keeps");
  f.AddInt("ok-total-unready-count", &r.ok_unready, "unready nodes allowed whatever the share");
  f.AddDouble("max-total-unready-percentage", &r.max_unready_percentage,
              "share of unready nodes above which nothing is scaled");
  f.AddDuration("initial-node-group-backoff-duration", &state.backoff.initial,
                "first back-off of a group whose scale-up failed");
  f.AddDuration("max-node-group-backoff-duration", &state.backoff.max, "longest back-off");
  f.AddDuration("node-group-backoff-reset-timeout", &state.backoff.reset,
                "time without failures after which back-off starts again from the first");
  f.AddStringList("startup-taint", &r.startup_taints,
                  "a taint key new nodes carry only while they start: a node carrying it is "
                  "still starting (any key; one ending in '/' names every key under it)");
  f.AddStringList("status-taint", &r.status_taints, "a taint key that says nothing of scheduling");
  f.AddStringList("ignore-taint", &r.startup_taints, "as --startup-taint (deprecated there)");
  f.AddStringList("readiness-condition", &r.readiness_conditions,
                  "a node condition that, present and not True, says a Ready node is still "
                  "starting (default nvidia.com/GPUReady; an empty value for none)");
}

void AddScaleDownFlags(FlagSet& f, ControllerConfig& c, RawFlags& r) {
  ScaleDownOptions& d = c.controller.scale_down;
  f.AddBool("scale-down-enabled", &d.enabled, "remove unneeded nodes");
  f.AddDuration("scale-down-delay-after-add", &d.delay_after_add,
                "how long after a scale-up scale-down resumes (0 here, 10m in "
                "cluster-autoscaler: removals wait anyway while pending pods fit on nodes)");
  f.AddDuration("scale-down-delay-after-delete", &d.delay_after_delete,
                "how long after a node deletion scale-down resumes");
  f.AddDuration("scale-down-delay-after-failure", &d.delay_after_failure,
                "how long after a failed scale-down it resumes");
  f.AddDuration("scale-down-unneeded-time", &r.unneeded,
                "how long a node must be unneeded before it goes (a group's option overrides)");
  f.AddDuration("scale-down-unready-time", &r.unready,
                "how long an unready node must be unneeded before it goes");
  f.AddDouble("scale-down-utilization-threshold", &r.utilization_threshold,
              "a non-GPU node under this max(cpu, memory) use may go");
  f.AddDouble("scale-down-gpu-utilization-threshold", &r.gpu_utilization_threshold,
              "a GPU node under this GPU use (in physical GPUs) may go");
  f.AddBool("ignore-daemonsets-utilization", &r.ignore_daemonsets_utilization,
            "leave DaemonSet pods out of a node's utilization");
  f.AddInt("max-scale-down-parallelism", &r.max_scale_down_parallelism, "nodes removed at once");
  f.AddInt("scale-down-non-empty-candidates-count", &r.non_empty_candidates,
           "nodes with pods to move whose drain is simulated each loop (already unneeded "
           "first, then those judged longest ago); 0 or less: every one");
  f.AddInt("max-drain-parallelism", &r.max_drain_parallelism, "non-empty nodes drained at once");
  f.AddInt("max-graceful-termination-sec", &r.max_graceful_termination_sec,
           "longest grace period given to an evicted pod");
  f.AddDuration(
      "max-pod-eviction-time", &d.max_pod_eviction_time,
      "how long evictions are retried, past the grace period, before a drain is given up");
  f.AddDuration("preemption-drain-time", &d.preemption_drain_time,
                "ours: the grace a preempted (spot) node's pods get before it is deleted anyway");
  f.AddDuration("consolidation-payback", &d.consolidation_payback,
                "ours: a GPU node whose pods fit on the others goes, busy or not, when the "
                "node-time its pods would lose is under this (0: cluster-autoscaler's rule, "
                "the utilization threshold alone)");
  f.AddBool("skip-nodes-with-local-storage", &d.skip_nodes_with_local_storage,
            "keep nodes whose pods use emptyDir or hostPath volumes");
  f.AddBool("skip-nodes-with-system-pods", &d.skip_nodes_with_system_pods,
            "keep nodes running kube-system pods that no PodDisruptionBudget covers");
  f.AddBool("skip-nodes-with-custom-controller-pods", &d.skip_nodes_with_custom_controller_pods,
            "keep nodes running pods of controllers other than the built-in ones");
}

void AddRepairFlags(FlagSet& f, ControllerConfig& c, RawFlags& r) {
  RepairOptions& repair = c.controller.repair;
  f.AddBool("node-repair", &repair.enabled,
            "ours: replace nodes the repair policies find broken past their toleration");
  f.AddString("gpu-repair-policy", &r.repair_policy_file,
              "ours: a file of repair policies (conditions, taints, missing GPUs; per group) "
              "that change the built-in ones; see docs/gpu-health.md");
  f.AddDouble("max-unhealthy-percent", &repair.max_unhealthy_percent,
              "ours: at most this share of a group's, and of the cluster's, nodes under repair "
              "at once (at least one node)");
  f.AddDuration("repair-drain-time", &c.controller.scale_down.repair_drain_time,
                "ours: how long a broken node's pods get to leave before it is deleted anyway");
}

void AddLeaderElectionFlags(FlagSet& f, ControllerConfig& c, RawFlags& r) {
  kube::LeaderElectionConfig& l = c.leader_election;
  f.AddBool("leader-elect", &c.leader_elect, "take the lease before acting (one acts at a time)");
  f.AddDuration("leader-elect-lease-duration", &l.lease_duration,
                "how long a lease lasts without renewal");
  f.AddDuration("leader-elect-renew-deadline", &l.renew_deadline,
                "a leader that cannot renew for this long stops acting");
  f.AddDuration("leader-elect-retry-period", &l.retry_period, "how often to try and renew");
  f.AddString("leader-elect-resource-name", &l.lease_name,
              "the Lease's name, cluster-autoscaler's so the two never both act");
  f.AddString("leader-elect-resource-namespace", &l.namespace_name,
              "the Lease's namespace (default: --namespace)");
  f.AddString("leader-elect-resource-lock", &r.lock, "only leases");
}

// cluster-autoscaler's flags for what gpu-autoscaler does differently.
void AddCompatibilityFlags(FlagSet& f) {
  f.AddRefused("kubernetes", "string", "give the API server in --kubeconfig");
  f.AddRefused("grpc-expander-url", "string", "the grpc expander is not supported");
  f.AddRefused("grpc-expander-cert", "string", "the grpc expander is not supported");
  f.AddRefused("scheduler-config-file", "string",
               "kube-scheduler's filters are modelled as the default profile has them");
  f.AddRefused("drain-priority-config", "string",
               "pods are evicted together, within --max-graceful-termination-sec");
  f.AddBoolFixed("balance-similar-node-groups", false,
                 "each scale-up goes to the group the expander chain picks");
  f.AddBoolFixed("enforce-node-group-min-size", false,
                 "a group below its min is not grown to it without pods that need it");
  f.AddBoolFixed("scale-up-from-zero", true, "scaling up from zero is what it is for");
  f.AddBoolFixed("scale-down-delay-type-local", false, "the delays apply to the whole cluster");
  f.AddBoolFixed("enable-provisioning-requests", false, "ProvisioningRequests are not read");
  f.AddBoolFixed("enable-proactive-scaleup", false, "only pending pods trigger scale-ups");
  f.AddBoolFixed("async-node-groups", false, "node groups are not created or deleted");
  f.AddBoolFixed("enable-csi-node-aware-scheduling", false, "CSINode limits are not modelled");
  f.AddBoolFixed("force-ds", false, "DaemonSet pods come off new nodes' capacity, never block");
  f.AddBoolFixed("scale-from-unschedulable", false, "a cordoned template is not scaled");
  f.AddBoolFixed("force-delete-unregistered-nodes", false, "a group's min size always holds");
  f.AddBoolFixed("force-delete-failed-nodes", false, "a group's min size always holds");
  f.AddNoEffect("capacity-buffer-controller-enabled", "bool",
                "each CapacityBuffer's spec is read as it is; its status is not written");
  struct NoEffect {
    const char* name;
    const char* type;
    const char* why;
  };
  const std::vector<NoEffect> no_effect = {
      {"cluster-name", "string", "the provider plugin knows its cluster"},
      {"kube-api-content-type", "string", "JSON is spoken to the API server"},
      {"parallel-scale-up", "bool", "every group a plan needs is scaled up in the same loop"},
      {"frequent-loops-enabled", "bool", "new unschedulable pods always wake the loop"},
      {"emit-per-nodegroup-metrics", "bool", "per-group metrics are always exported"},
      {"max-binpacking-time", "string", "the estimate's work has a fixed, deterministic budget"},
      {"max-nodegroup-binpacking-duration", "string",
       "the estimate's work has a fixed, deterministic budget"},
      {"scale-down-candidates-pool-ratio", "string", "every node is evaluated each loop"},
      {"scale-down-candidates-pool-min-count", "string", "every node is evaluated each loop"},
      {"scale-down-simulation-timeout", "string", "every node is evaluated each loop"},
      {"node-info-cache-expire-time", "string", "templates are read from the provider each loop"},
      {"balancing-ignore-label", "string", "similar groups are not balanced"},
      {"balancing-label", "string", "similar groups are not balanced"},
      {"memory-difference-ratio", "string", "similar groups are not balanced"},
      {"max-free-difference-ratio", "string", "similar groups are not balanced"},
      {"max-allocatable-difference-ratio", "string", "similar groups are not balanced"},
      {"bypassed-scheduler-names", "string", "pods of every scheduler are treated alike"},
      {"record-duplicated-events", "bool", "repeated events raise the count of one Event"},
      {"profiling", "bool", "no pprof endpoint"},
      {"debugging-snapshot-enabled", "bool", "no debugging snapshot"},
      {"cluster-snapshot-parallelism", "string", "the planner runs on one core"},
      {"predicate-parallelism", "string", "the planner runs on one core"},
      {"pod-injection-limit", "string", "ProvisioningRequests are not read"},
      {"aws-use-static-instance-list", "bool",
       "provider-specific; the plugin answers for its cloud"},
      {"gce-concurrent-refreshes", "string", "provider-specific; the plugin answers for its cloud"},
      {"gce-mig-instances-min-refresh-wait-time", "string", "provider-specific"},
      {"bulk-mig-instances-listing-enabled", "bool", "provider-specific"},
      {"regional", "bool", "provider-specific"},
  };
  for (const NoEffect& n : no_effect) f.AddNoEffect(n.name, n.type, n.why);
}

// Every name in the chain known, checked at start rather than in the first loop that needs it.
absl::Status CheckExpander(const std::string& chain) {
  if (absl::Status s = MakeExpanderChain(chain, {}).status(); !s.ok()) {
    return Bad(
        "expander", chain,
        absl::StrCat("a comma-separated chain of ", ExpanderNames(), " (", s.message(), ")"));
  }
  return absl::OkStatus();
}

// client-go's rules, which cluster-autoscaler applies at start: a leader must be able to renew
// (with jitter) before its deadline, and give up before its lease can pass to another.
absl::Status CheckLeaderElection(const ControllerConfig& c) {
  if (!c.leader_elect) return absl::OkStatus();
  const kube::LeaderElectionConfig& l = c.leader_election;
  const auto text = [](absl::Duration d) { return absl::FormatDuration(d); };
  if (l.retry_period <= absl::ZeroDuration()) {
    return Bad("leader-elect-retry-period", text(l.retry_period), "a positive duration");
  }
  if (l.lease_duration <= l.renew_deadline) {
    return Bad(
        "leader-elect-lease-duration", text(l.lease_duration),
        absl::StrCat("more than --leader-elect-renew-deadline (", text(l.renew_deadline), ")"));
  }
  constexpr double kJitterFactor = 1.2;  // client-go's JitterFactor
  if (l.renew_deadline <= kJitterFactor * l.retry_period) {
    return Bad("leader-elect-renew-deadline", text(l.renew_deadline),
               absl::StrCat("more than 1.2 times --leader-elect-retry-period (",
                            text(l.retry_period), ")"));
  }
  return absl::OkStatus();
}

absl::Status Finish(const RawFlags& r, FlagSet& flags, ControllerConfig& c) {
  ControllerOptions& o = c.controller;
  const ProviderRegistry& providers = ProviderRegistry::Builtin();
  if (providers.Find(c.cloud_provider) == nullptr) {
    return Bad("cloud-provider", c.cloud_provider, providers.NamesText());
  }
  if (absl::Status s = providers.CheckAutoDiscovery(c.cloud_provider, r.auto_discovery); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(kCommand, ": flag ", s.message()));
  }
  c.auto_discovery = r.auto_discovery;
  GPUA_RETURN_IF_ERROR(CheckExpander(o.scale_up.expander));
  GPUA_RETURN_IF_ERROR(CheckLeaderElection(c));
  if (absl::Status s = ListenPort(c.address).status(); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(kCommand, ": ", s.message()));
  }
  if (r.estimator != "binpacking") return Bad("estimator", r.estimator, "binpacking");
  if (r.lock != "leases") return Bad("leader-elect-resource-lock", r.lock, "leases");
  for (const std::string& n : r.nodes) {
    GPUA_ASSIGN_OR_RETURN(NodeGroupLimits limits, ParseNodes(n));
    for (const NodeGroupLimits& earlier : o.node_groups) {
      if (earlier.id == limits.id) {
        return Bad("nodes", n,
                   absl::StrCat("one --nodes per group; ", limits.id, " is named twice"));
      }
    }
    o.node_groups.push_back(std::move(limits));
  }
  GPUA_ASSIGN_OR_RETURN(o.limits.cores, ParseMinMax("cores-total", r.cores_total));
  GPUA_ASSIGN_OR_RETURN(const MinMax gib, ParseMinMax("memory-total", r.memory_total));
  o.limits.memory_bytes = {gib.min << 30, gib.max << 30};
  for (const std::string& g : r.gpu_total) GPUA_RETURN_IF_ERROR(ParseGpuTotal(g, o.limits));
  const auto in_range = [](const char* flag, double v, double lo, double hi) -> absl::Status {
    if (v >= lo && v <= hi) return absl::OkStatus();
    const auto number = [](double d) { return absl::StrFormat("%.15g", d); };  // 1000000
    return Bad(flag, number(v), absl::StrCat("a number from ", number(lo), " to ", number(hi)));
  };
  GPUA_RETURN_IF_ERROR(in_range("max-total-unready-percentage", r.max_unready_percentage, 0, 100));
  GPUA_RETURN_IF_ERROR(in_range("max-unhealthy-percent", o.repair.max_unhealthy_percent, 0, 100));
  if (o.scale_down.repair_drain_time < absl::ZeroDuration()) {
    return Bad("repair-drain-time", absl::FormatDuration(o.scale_down.repair_drain_time),
               "a duration of 0 or more");
  }
  if (!r.repair_policy_file.empty()) {
    absl::StatusOr<std::string> text = ReadFile(r.repair_policy_file, kMaxConfigFileBytes);
    if (!text.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kCommand, ": --gpu-repair-policy: ", text.status().message()));
    }
    absl::StatusOr<RepairPolicies> policies = RepairPolicies::Parse(*text, r.repair_policy_file);
    if (!policies.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kCommand, ": --gpu-repair-policy: ", policies.status().message()));
    }
    o.repair.policies = *std::move(policies);
  }
  GPUA_RETURN_IF_ERROR(in_range("scale-down-utilization-threshold", r.utilization_threshold, 0, 1));
  GPUA_RETURN_IF_ERROR(
      in_range("scale-down-gpu-utilization-threshold", r.gpu_utilization_threshold, 0, 1));
  GPUA_RETURN_IF_ERROR(
      in_range("max-nodes-per-scaleup", static_cast<double>(r.max_nodes_per_scaleup), 1, 1e6));
  GPUA_RETURN_IF_ERROR(in_range("max-nodes-total", static_cast<double>(r.max_nodes_total), 0, 1e6));
  // Counts that must allow at least one of what they count, and a few that may be zero.
  for (const auto& [flag, value, lowest] :
       {std::tuple{"max-scale-down-parallelism", r.max_scale_down_parallelism, 1},
        {"max-drain-parallelism", r.max_drain_parallelism, 1},
        {"kube-api-burst", r.burst, 1},
        {"max-graceful-termination-sec", r.max_graceful_termination_sec, 0},
        {"ok-total-unready-count", r.ok_unready, 0},
        {"v", r.verbosity, 0}}) {
    GPUA_RETURN_IF_ERROR(in_range(flag, static_cast<double>(value), lowest, 1e6));
  }
  if (!(r.qps > 0) || !std::isfinite(r.qps)) {
    return Bad("kube-api-qps", absl::StrCat(r.qps), "a number of requests a second above 0");
  }
  if (o.scan_interval <= absl::ZeroDuration()) {
    return Bad("scan-interval", absl::FormatDuration(o.scan_interval), "a positive duration");
  }
  if (o.scale_down.consolidation_payback < absl::ZeroDuration()) {
    return Bad("consolidation-payback", absl::FormatDuration(o.scale_down.consolidation_payback),
               "a duration of 0 or more");
  }
  o.limits.max_nodes_total = static_cast<int>(r.max_nodes_total);
  o.scale_up.max_nodes_per_scaleup = static_cast<int>(r.max_nodes_per_scaleup);
  o.scale_up.expendable_pods_priority_cutoff = static_cast<int32_t>(r.expendable_cutoff);
  o.scale_up.ignored_taints = r.startup_taints;
  o.scale_up.ignored_taints.insert(o.scale_up.ignored_taints.end(), r.status_taints.begin(),
                                   r.status_taints.end());
  o.cluster_state.startup_taints = r.startup_taints;
  if (!r.readiness_conditions.empty()) {
    o.cluster_state.readiness_conditions.clear();
    for (const std::string& c : r.readiness_conditions) {
      if (!c.empty()) o.cluster_state.readiness_conditions.push_back(c);
    }
  }
  o.cluster_state.ok_total_unready_count = static_cast<int>(r.ok_unready);
  o.cluster_state.max_total_unready_percentage = r.max_unready_percentage;
  o.group_defaults.scale_down_unneeded_time = r.unneeded;
  o.group_defaults.scale_down_unready_time = r.unready;
  o.group_defaults.max_node_provision_time = r.provision;
  o.group_defaults.scale_down_utilization_threshold = r.utilization_threshold;
  o.group_defaults.scale_down_gpu_utilization_threshold = r.gpu_utilization_threshold;
  o.group_defaults.ignore_daemonsets_utilization = r.ignore_daemonsets_utilization;
  o.scale_down.max_scale_down_parallelism = static_cast<int>(r.max_scale_down_parallelism);
  o.scale_down.non_empty_candidates =
      static_cast<int>(std::clamp<int64_t>(r.non_empty_candidates, 0, 1'000'000));
  o.scale_down.max_drain_parallelism = static_cast<int>(r.max_drain_parallelism);
  o.scale_down.max_graceful_termination = absl::Seconds(r.max_graceful_termination_sec);
  c.kube_api_qps = r.qps;
  c.kube_api_burst = static_cast<int>(r.burst);
  c.verbosity = static_cast<int>(r.verbosity);
  if (!flags.Given("leader-elect-resource-namespace")) {
    c.leader_election.namespace_name = o.status.namespace_name;
  }
  if (c.max_inactivity <= absl::ZeroDuration()) {
    c.max_inactivity = std::max(absl::Seconds(30), 3 * o.scan_interval);
  }
  c.notes = flags.noted();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ControllerConfig> ParseControllerFlags(const CommandArgs& args, bool* help,
                                                      std::string* usage) {
  ControllerConfig config;
  RawFlags raw;
  FlagSet flags(kCommand);
  AddClusterFlags(flags, config, raw);
  AddLoopFlags(flags, config, raw);
  AddScaleUpFlags(flags, config, raw);
  AddScaleDownFlags(flags, config, raw);
  AddRepairFlags(flags, config, raw);
  AddLeaderElectionFlags(flags, config, raw);
  AddCompatibilityFlags(flags);
  GPUA_ASSIGN_OR_RETURN(const std::vector<std::string> rest, flags.Parse(args));
  *help = flags.help();
  if (*help) {
    *usage = flags.Usage();
    return config;
  }
  if (!rest.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kCommand, ": unexpected argument \"", rest.front(), "\""));
  }
  GPUA_RETURN_IF_ERROR(Finish(raw, flags, config));
  return config;
}

struct DecisionFlags::State {
  ControllerConfig config;
  RawFlags raw;
};

DecisionFlags::DecisionFlags(FlagSet& flags) : state_(std::make_unique<State>()) {
  AddLoopFlags(flags, state_->config, state_->raw);
  AddScaleUpFlags(flags, state_->config, state_->raw);
  AddScaleDownFlags(flags, state_->config, state_->raw);
  AddRepairFlags(flags, state_->config, state_->raw);
}

DecisionFlags::~DecisionFlags() = default;

absl::StatusOr<ControllerOptions> DecisionFlags::Finish(FlagSet& flags) {
  GPUA_RETURN_IF_ERROR(gpua::Finish(state_->raw, flags, state_->config));
  return state_->config.controller;
}

}  // namespace gpua
