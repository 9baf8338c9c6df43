#include "autoscaler/cli/plugin_check_command.h"

#include <algorithm>
#include <functional>
#include <memory>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "autoscaler/cli/management_cluster_connector.h"
#include "autoscaler/cli/plugin_check_report.h"
#include "autoscaler/cli/plugin_cluster_check.h"
#include "autoscaler/cli/template_check.h"
#include "autoscaler/controller/model/provider_snapshot.h"
#include "autoscaler/kube/rest_config.h"
#include "base/log.h"
#include "cloudproviders/clusterapi/clusterapi_provider.h"
#include "cloudproviders/externalgrpc/externalgrpc_provider.h"
#include "cloudproviders/provider_registry.h"

namespace gpua {
namespace {

std::string DescribeTemplate(const NodeTemplate& t) {
  std::vector<std::string> taints;
  for (const Taint& taint : t.taints) taints.push_back(taint.ToString());
  return absl::StrCat(t.labels.size(), " label(s); taints [", absl::StrJoin(taints, ", "),
                      "]; allocatable ", t.allocatable.ToString());
}

std::string DescribeOptions(const AutoscalingOptions& o) {
  return absl::StrCat("idle timeout ", absl::FormatDuration(o.scale_down_unneeded_time),
                      ", GPU threshold ", o.scale_down_gpu_utilization_threshold,
                      ", provision time ", absl::FormatDuration(o.max_node_provision_time));
}

// The template as the planner reads it: its problems and warnings on the group's line.
void CheckGroupTemplate(NodeGroup& g, const std::string& gpu_label, PluginCheckReport& report) {
  auto t = report.Timed<NodeTemplate>(
      "NodeGroupTemplateNodeInfo", g.Id(), [&] { return g.TemplateNode(); }, DescribeTemplate);
  if (!t.ok()) return;
  for (const auto& [k, v] : t->labels) report.Detail(absl::StrCat(k, "=", v));
  const TemplateFindings findings = CheckTemplate(g.Id(), *t, gpu_label);
  if (!findings.gpus.empty()) report.Detail(absl::StrCat("GPUs as planned: ", findings.gpus));
  for (const std::string& p : findings.problems) report.Problem(g.Id(), p);
  for (const std::string& w : findings.warnings) report.Warning(g.Id(), w);
}

GroupListing CheckGroup(NodeGroup& g, CloudProvider& provider, const std::string& gpu_label,
                        PluginCheckReport& report) {
  const std::string subject = g.Id();
  GroupListing listing{g.Id(), {}, AutoscalingOptions{}.max_node_provision_time};
  if (g.MinSize() > g.MaxSize()) {
    report.Problem(subject, absl::StrCat("node group ", subject, ": minSize ", g.MinSize(),
                                         " exceeds maxSize ", g.MaxSize()));
  }
  auto target = report.Timed<int>(
      "NodeGroupTargetSize", subject, [&] { return g.TargetSize(); },
      [](int n) { return absl::StrCat("target ", n); });
  if (target.ok() && (*target < g.MinSize() || *target > g.MaxSize())) {
    report.Problem(subject, absl::StrCat("node group ", subject, ": target size ", *target,
                                         " is outside ", g.MinSize(), "..", g.MaxSize()));
  }
  CheckGroupTemplate(g, gpu_label, report);
  auto options = report.Timed<AutoscalingOptions>(
      "NodeGroupGetOptions", subject, [&] { return g.GetOptions(AutoscalingOptions{}); },
      DescribeOptions, "defaults used");
  if (options.ok()) {
    listing.provision_time = options->max_node_provision_time;
  } else if (IsNotImplemented(options.status())) {
    report.Detail(absl::StrCat("the flags' defaults apply: ", DescribeOptions({})));
  }
  auto instances = report.Timed<std::vector<Instance>>(
      "NodeGroupNodes", subject, [&] { return g.Nodes(); },
      [](const std::vector<Instance>& list) { return absl::StrCat(list.size(), " instance(s)"); });
  if (!instances.ok()) return listing;
  listing.instances = *instances;
  for (const Instance& i : *instances) {
    report.Detail(absl::StrCat(
        i.id, " ", InstanceStateName(i.state),
        i.error ? absl::StrCat(" error ", i.error->code, ": ", i.error->message) : ""));
    NodeRef node{i.id, "", {}, {}};
    auto owner = report.Timed<std::shared_ptr<NodeGroup>>(
        "NodeGroupForNode", i.id, [&] { return provider.NodeGroupForNode(node); },
        [](const std::shared_ptr<NodeGroup>& o) { return o ? o->Id() : "(not autoscaled)"; });
    if (owner.ok() && (*owner == nullptr || (*owner)->Id() != g.Id())) {
      report.Problem(i.id, absl::StrCat("instance ", i.id, " is listed by node group ", g.Id(),
                                        " but NodeGroupForNode answers ",
                                        *owner ? (*owner)->Id() : "no group"));
    }
  }
  return listing;
}

// With --mutate: one more node asked for, then the target lowered back.
// After the resize check, whatever it found: the group back at `before`, the new node deleted
// if it came up before the target could be lowered; a group left larger is a problem, named.
void RestoreSize(NodeGroup& g, int before, const std::vector<Instance>& had,
                 PluginCheckReport& report) {
  absl::StatusOr<int> now = g.TargetSize();
  if (now.ok() && *now > before) {
    absl::Status lowered = g.DecreaseTargetSize(before - *now);
    if (!lowered.ok()) {
      // Refused (a node is up): delete instances that were not there before the check, no
      // more than the check added (another autoscaler may be adding nodes of its own).
      absl::StatusOr<std::vector<Instance>> instances = g.Nodes();
      std::vector<NodeRef> added;
      const size_t excess = static_cast<size_t>(*now - before);
      if (instances.ok()) {
        for (const Instance& i : *instances) {
          const bool old =
              std::any_of(had.begin(), had.end(), [&](const Instance& h) { return h.id == i.id; });
          if (!old && added.size() < excess) added.push_back({i.id, "", {}, {}});
        }
      }
      if (!added.empty()) {
        report.TimedStatus(
            "NodeGroupDeleteNodes", g.Id(), [&] { return g.DeleteNodes(added); },
            absl::StrCat(added.size(), " node(s) the check added"));
      }
    }
    now = g.TargetSize();
  }
  if (!now.ok() || *now != before) {
    report.Problem(g.Id(),
                   absl::StrCat("node group ", g.Id(), " is left at target ",
                                now.ok() ? absl::StrCat(*now) : "unknown",
                                " after the resize check; it was ", before, ": lower it by hand"));
  }
}

void CheckResize(NodeGroup& g, PluginCheckReport& report) {
  auto before = g.TargetSize();
  if (!before.ok() || *before >= g.MaxSize()) {
    report.Detail(absl::StrCat("node group ", g.Id(), " has no room to try a resize"));
    return;
  }
  const std::vector<Instance> had = g.Nodes().value_or(std::vector<Instance>{});
  absl::Cleanup restore = [&] { RestoreSize(g, *before, had, report); };
  report.TimedStatus(
      "NodeGroupIncreaseSize", g.Id(), [&] { return g.IncreaseSize(1); }, "delta 1");
  auto after = g.TargetSize();
  if (after.ok() && *after != *before + 1) {
    report.Problem(g.Id(), absl::StrCat("node group ", g.Id(), ": target ", *after,
                                        " after increasing ", *before, " by 1"));
  }
  if (!after.ok() || *after <= *before) return;
  const absl::Time start = report.clock().Now();
  absl::Status lowered = g.DecreaseTargetSize(-1);
  if (lowered.code() == absl::StatusCode::kFailedPrecondition) {
    // The node came up before the target could be lowered: right of the plugin to refuse.
    report.Call(
        "NodeGroupDecreaseTargetSize", g.Id(),
        {absl::OkStatus(), absl::StrCat("refused, the new node is already up: ", lowered.message()),
         "", report.clock().Now() - start});
    return;
  }
  report.Call("NodeGroupDecreaseTargetSize", g.Id(),
              {lowered, "delta -1", "", report.clock().Now() - start});
}

void CheckPricing(CloudProvider& p, const std::vector<GroupListing>& listings,
                  PluginCheckReport& report) {
  const absl::Time now = report.clock().Now();
  for (const GroupListing& g : listings) {
    if (g.instances.empty()) continue;
    const NodeRef node{g.instances.front().id, "", {}, {}};
    (void)report.Timed<double>(
        "PricingNodePrice", node.provider_id,
        [&] { return p.NodePrice(node, now - absl::Hours(1), now); },
        [](double price) { return absl::StrCat(price, " for the last hour"); },
        "defaults used (no prices)");
    break;
  }
  PodSpec pod;
  pod.namespace_name = "default";
  pod.name = "plugin-check";
  (void)report.Timed<double>(
      "PricingPodPrice", "default/plugin-check",
      [&] { return p.PodPrice(pod, now - absl::Hours(1), now); },
      [](double price) { return absl::StrCat(price, " for the last hour"); }, "defaults used");
}

struct CheckOptions {
  bool mutate = false;
  std::string kubeconfig;  // set, or in a pod: the cluster's Nodes are checked too
  bool in_cluster = false;
};

void CheckCluster(CloudProvider& p, const std::vector<GroupListing>& listings,
                  const CheckOptions& o, Clock& clock, PluginCheckReport& report) {
  absl::StatusOr<kube::RestConfig> rest =
      kube::ResolveRestConfig(o.kubeconfig, "", kube::ProcessEnv);
  absl::StatusOr<std::unique_ptr<kube::ApiClient>> client =
      rest.ok() ? kube::ApiClient::Create(*rest, clock) : rest.status();
  absl::StatusOr<std::vector<std::shared_ptr<const NodeObject>>> nodes =
      client.ok() ? ListNodes(**client, clock, report) : client.status();
  if (!nodes.ok()) {
    report.Problem("cluster",
                   absl::StrCat("reading the cluster's Nodes: ", nodes.status().message()));
    return;
  }
  report.Detail(
      absl::StrCat("the cluster at ", (*rest).server, " has ", nodes->size(), " node(s)"));
  CheckAgainstCluster(*nodes, listings, p, report);
}

// Calls every RPC the planner uses, group by group, then the optional ones. `ignored`: the
// groups the provider left out, and why, once it has listed them.
void CheckProvider(CloudProvider& p, const std::function<std::vector<std::string>()>& ignored,
                   const CheckOptions& o, Clock& clock, PluginCheckReport& report) {
  report.TimedStatus("Refresh", "", [&] { return p.Refresh(); });
  auto label = report.Timed<std::string>(
      "GPULabel", "", [&] { return p.GpuLabel(); }, [](const std::string& l) { return l; },
      absl::StrCat("defaults used (", kDefaultGpuLabel, ")"));
  const std::string gpu_label = label.ok() && !label->empty() ? *label : kDefaultGpuLabel;
  auto groups = report.Timed<std::vector<std::shared_ptr<NodeGroup>>>(
      "NodeGroups", "", [&] { return p.NodeGroups(); },
      [](const auto& list) { return absl::StrCat(list.size(), " group(s)"); });
  if (groups.ok() && groups->empty()) report.Problem("", "the plugin offers no node groups");
  for (const std::string& why : ignored()) report.Problem("", why);
  std::vector<GroupListing> listings;
  if (groups.ok()) {
    for (const auto& g : *groups) listings.push_back(CheckGroup(*g, p, gpu_label, report));
    CheckInstancesListedOnce(listings, report);
    if (o.mutate && !groups->empty()) CheckResize(*groups->front(), report);
  }
  (void)report.Timed<std::vector<std::string>>(
      "GetAvailableGPUTypes", "", [&] { return p.AvailableGpuTypes(); },
      [](const auto& t) { return absl::StrJoin(t, ", "); }, "defaults used (any type)");
  CheckPricing(p, listings, report);
  report.TimedStatus("Cleanup", "", [&] { return p.Cleanup(); });
  if (!o.kubeconfig.empty() || o.in_cluster) CheckCluster(p, listings, o, clock, report);
}

// The same checks of the node groups Cluster API's objects make, read as the controller reads
// them: each group's template and options from its annotations, its Machines as instances.
int CheckClusterApi(const std::string& management_kubeconfig, CheckOptions options,
                    PluginCheckReport::Format format, const CommandIo& io) {
  StreamLogSink notes(format == PluginCheckReport::Format::kJson ? io.err : io.out, "note: ");
  ManagementClusterSettings settings;
  settings.workload_kubeconfig = options.kubeconfig;
  settings.sync_wait = absl::Seconds(10);
  ProviderContext context;
  context.cloud_config = management_kubeconfig;
  context.clock = &io.clock;
  context.log = &notes;
  context.connect_management_cluster = ManagementClusterConnector(settings, io.clock, notes);
  absl::StatusOr<std::unique_ptr<CloudProvider>> provider =
      ProviderRegistry::Builtin().Create("clusterapi", context);
  if (!provider.ok()) {
    io.err << "gpu-autoscaler plugin-check: " << provider.status().message() << "\n";
    return kExitUsage;
  }
  PluginCheckReport report(io.out, io.clock, format);
  report.Provider("clusterapi",
                  management_kubeconfig.empty()
                      ? "the cluster --kubeconfig names"
                      : absl::StrCat("the cluster ", management_kubeconfig, " names"));
  // The Nodes checked against the Machines are the workload cluster's.
  options.in_cluster = options.in_cluster || options.kubeconfig.empty();
  auto* capi = static_cast<ClusterApiProvider*>(provider->get());
  CheckProvider(
      **provider, [capi] { return capi->IgnoredGroups(); }, options, io.clock, report);
  return report.Finish();
}

}  // namespace

int RunPluginCheckCommand(const CommandArgs& args, const CommandIo& io) {
  std::string config_file, output = "text", cloud_provider = "externalgrpc";
  CheckOptions options;
  FlagSet flags("gpu-autoscaler plugin-check");
  flags.AddString("cloud-provider", &cloud_provider,
                  "externalgrpc (a plugin), or clusterapi (Cluster API objects in a cluster)");
  flags.AddString("cloud-config", &config_file,
                  "externalgrpc: the cloud-config file (address, cert, key, cacert, "
                  "grpc_timeout); clusterapi: the management cluster's kubeconfig (default: "
                  "--kubeconfig's)");
  flags.AddBool("mutate", &options.mutate,
                "also increase one group's target by one and lower it back (changes the cluster)");
  flags.AddString("output", &output, "text or json (one object, for CI)");
  flags.AddString("kubeconfig", &options.kubeconfig,
                  "also check the plugin's answers against this cluster's Nodes (in a pod: "
                  "the cluster it runs in)");
  if (auto exit = ParseFlagsOrExit(
          flags, args,
          "Usage: gpu-autoscaler plugin-check [--cloud-provider externalgrpc|clusterapi] "
          "--cloud-config FILE [--mutate] [--output json] [--kubeconfig FILE]",
          io)) {
    return *exit;
  }
  const auto usage_error = [&](absl::string_view message) {
    io.err << "gpu-autoscaler plugin-check: " << message << "\n";
    return kExitUsage;
  };
  if (output != "text" && output != "json") {
    return usage_error(
        absl::StrCat("invalid value \"", output, "\" for flag --output: text or json"));
  }
  options.in_cluster = kube::ProcessEnv("KUBERNETES_SERVICE_HOST").has_value();
  const PluginCheckReport::Format format =
      output == "json" ? PluginCheckReport::Format::kJson : PluginCheckReport::Format::kText;
  if (cloud_provider == "clusterapi") {
    return CheckClusterApi(config_file, options, format, io);
  }
  if (cloud_provider != "externalgrpc") {
    return usage_error(absl::StrCat("invalid value \"", cloud_provider,
                                    "\" for flag --cloud-provider: externalgrpc or clusterapi"));
  }
  if (config_file.empty()) return usage_error("--cloud-config FILE is required");
  absl::StatusOr<ExternalGrpcConfig> config = LoadExternalGrpcConfig(config_file);
  if (!config.ok()) return usage_error(config.status().message());
  // Under --output json stdout holds the object alone; the client's notes go to stderr.
  StreamLogSink notes(output == "json" ? io.err : io.out, "note: ");
  auto provider = ExternalGrpcProvider::Create(*config, notes);
  if (!provider.ok()) return usage_error(provider.status().message());
  PluginCheckReport report(io.out, io.clock, format);
  report.Plugin(config->address, config->UsesTls(), config->timeout);
  ExternalGrpcProvider* plugin = provider->get();
  CheckProvider(
      **provider, [plugin] { return plugin->IgnoredGroups(); }, options, io.clock, report);
  return report.Finish();
}

}  // namespace gpua
