#include "autoscaler/cli/inspect_command.h"

#include <atomic>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "autoscaler/cli/flag_set.h"
#include "autoscaler/kube/cluster_watch.h"
#include "estimator/gpu/gpu_inventory.h"

namespace gpua {
namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

struct InspectFlags {
  std::string kubeconfig;
  std::string context;
  std::string output = "table";
  absl::Duration watch = absl::ZeroDuration();
  absl::Duration sync_timeout = absl::Seconds(30);
  double qps = 20;
  int64_t burst = 30;
};

bool IsGpu(absl::string_view resource) {
  return absl::StartsWith(resource, "nvidia.com/") || absl::StartsWith(resource, "amd.com/");
}

ResourceList GpuPart(const ResourceList& all) {
  ResourceList gpus;
  for (const auto& [name, q] : all) {
    if (IsGpu(name)) gpus.Set(name, q);
  }
  return gpus;
}

nlohmann::json ToJson(const ResourceList& list) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, q] : list) out[name] = q.ToString();
  return out;
}

// A node's group: the autoscaler's own label when set, else its instance type.
std::string GroupOf(const NodeObject& n) {
  for (const char* label : {"gpu-autoscaler.io/node-group", "node.kubernetes.io/instance-type"}) {
    if (auto it = n.node.labels.find(label); it != n.node.labels.end()) return it->second;
  }
  return "-";
}

std::string StateOf(const NodeObject& n) {
  if (!n.ready) return "not ready";
  const bool has_gpu_labels = n.node.labels.contains("nvidia.com/gpu.product") ||
                              n.node.labels.contains("nvidia.com/gpu.count");
  if (has_gpu_labels && GpuPart(n.node.allocatable).empty()) return "gpus not advertised";
  return "ready";
}

nlohmann::json Report(const kube::ClusterView& view) {
  nlohmann::json out = {{"nodes", nlohmann::json::array()},
                        {"unschedulable_pods", nlohmann::json::array()}};
  for (const auto& n : view.nodes) {
    ResourceList used;
    for (const auto& p : view.PodsOn(n->node.name)) {
      if (p->phase != "Succeeded" && p->phase != "Failed") used += p->spec.requests;
    }
    nlohmann::json node = {{"name", n->node.name},
                           {"group", GroupOf(*n)},
                           {"state", StateOf(*n)},
                           {"allocatable", ToJson(n->node.allocatable)},
                           {"gpu_capacity", ToJson(GpuPart(n->node.allocatable))},
                           {"gpu_used", ToJson(GpuPart(used))}};
    auto inventory = ReadGpuInventory(n->node.labels, n->annotations, n->node.allocatable,
                                      absl::StrCat("Node ", n->node.name));
    if (inventory.ok() && inventory->has_value()) {
      const GpuInventory& gpus = **inventory;
      node["gpu_sharing"] = std::string(GpuSharingName(gpus.sharing));
      node["physical_gpus"] = gpus.physical_count;
      node["physical_gpu_utilization"] = PhysicalGpuUtilization(
          gpus, gpus.mig_layouts.empty() ? nullptr : &gpus.mig_layouts[0], used);
    } else if (!inventory.ok()) {
      node["gpu_error"] = std::string(inventory.status().message());
    }
    out["nodes"].push_back(std::move(node));
  }
  for (const auto& p : view.unschedulable) {
    nlohmann::json pod = {{"name", p->spec.Key()}, {"requests", ToJson(p->spec.requests)}};
    if (!p->spec.invalid.ok()) pod["error"] = std::string(p->spec.invalid.message());
    out["unschedulable_pods"].push_back(std::move(pod));
  }
  return out;
}

void PrintTable(const nlohmann::json& report, std::ostream& out) {
  std::map<std::string, std::vector<const nlohmann::json*>> by_group;
  for (const nlohmann::json& n : report["nodes"]) by_group[n["group"]].push_back(&n);
  out << absl::StrFormat("%-20s %-32s %-20s %-28s %s\n", "GROUP", "NODE", "STATE", "GPU CAPACITY",
                         "GPU USED");
  for (const auto& [group, nodes] : by_group) {
    for (const nlohmann::json* n : nodes) {
      out << absl::StrFormat("%-20s %-32s %-20s %-28s %s\n", group, (*n)["name"].get<std::string>(),
                             (*n)["state"].get<std::string>(), (*n)["gpu_capacity"].dump(),
                             (*n)["gpu_used"].dump());
    }
  }
  out << "\n" << report["unschedulable_pods"].size() << " unschedulable pod(s)\n";
  for (const nlohmann::json& p : report["unschedulable_pods"]) {
    out << "  " << p["name"].get<std::string>() << "  " << p["requests"].dump() << "\n";
  }
}

}  // namespace

int RunInspectCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  InspectFlags f;
  FlagSet flags("gpu-autoscaler inspect");
  flags.AddString("kubeconfig", &f.kubeconfig,
                  "kubeconfig file (default: KUBECONFIG, ~/.kube/config, in-cluster)");
  flags.AddString("context", &f.context, "kubeconfig context (default: its current-context)");
  flags.AddString("output", &f.output, "table or json");
  flags.AddDuration("watch", &f.watch, "keep watching this long, printing each change");
  flags.AddDuration("sync-timeout", &f.sync_timeout, "how long the first lists may take");
  flags.AddDouble("kube-api-qps", &f.qps, "requests per second to the API server");
  flags.AddInt("kube-api-burst", &f.burst, "requests allowed at once");
  absl::StatusOr<std::vector<std::string>> rest = flags.Parse(args);
  if (!rest.ok()) {
    err << rest.status().message() << "\n";
    return kExitUsage;
  }
  if (flags.help()) {
    out << "Usage: gpu-autoscaler inspect [flags]\n" << flags.Usage();
    return 0;
  }
  if (f.output != "table" && f.output != "json") {
    err << "gpu-autoscaler inspect: --output must be table or json\n";
    return kExitUsage;
  }
  auto config = kube::ResolveRestConfig(f.kubeconfig, f.context, kube::ProcessEnv);
  if (!config.ok()) {
    err << "gpu-autoscaler inspect: " << config.status().message() << "\n";
    return kExitFailure;
  }
  kube::ClientOptions options;
  options.qps = f.qps;
  options.burst = static_cast<int>(f.burst);
  auto client = kube::ApiClient::Create(*config, options);
  if (!client.ok()) {
    err << "gpu-autoscaler inspect: " << client.status().message() << "\n";
    return kExitFailure;
  }
  std::mutex out_mu;
  std::atomic<bool> watching{false};
  const auto change = [&](const std::string& line) {
    if (!watching) return;
    std::lock_guard<std::mutex> lock(out_mu);
    out << absl::FormatTime("%H:%M:%S ", absl::Now(), absl::LocalTimeZone()) << line << std::endl;
  };
  const auto log = [&](absl::string_view line) {
    std::lock_guard<std::mutex> lock(out_mu);
    err << "gpu-autoscaler inspect: " << line << "\n";
  };
  kube::ClusterWatchOptions watch;
  watch.budgets = watch.daemonsets = watch.workloads = false;  // nodes and pods are enough
  watch.log = log;
  watch.node_handlers.on_add = [&](const auto& n) { change("node added " + n->node.name); };
  watch.node_handlers.on_update = [&](const auto&, const auto& n) {
    change("node changed " + n->node.name + " (" + StateOf(*n) + ")");
  };
  watch.node_handlers.on_delete = [&](const auto& n) { change("node deleted " + n->node.name); };
  watch.pod_handlers.on_add = [&](const auto& p) {
    change(absl::StrCat("pod added ", p->spec.Key(), p->unschedulable ? " (unschedulable)" : ""));
  };
  watch.pod_handlers.on_update = [&](const auto&, const auto& p) {
    change(absl::StrCat("pod changed ", p->spec.Key(),
                        p->spec.node_name.empty() ? "" : " on " + p->spec.node_name));
  };
  watch.pod_handlers.on_delete = [&](const auto& p) { change("pod deleted " + p->spec.Key()); };
  kube::ClusterWatch cluster(**client, std::move(watch));
  cluster.Start();
  int rc = 0;
  if (!cluster.WaitForSync(f.sync_timeout)) {
    err << "gpu-autoscaler inspect: could not list nodes and pods from " << config->server
        << " within " << absl::FormatDuration(f.sync_timeout) << "\n";
    rc = kExitFailure;
  } else {
    const nlohmann::json report = Report(cluster.View());
    {
      std::lock_guard<std::mutex> lock(out_mu);
      if (f.output == "json") {
        out << report.dump(2) << "\n";
      } else {
        PrintTable(report, out);
      }
    }
    if (f.watch > absl::ZeroDuration()) {
      watching = true;
      absl::SleepFor(f.watch);
      watching = false;
    }
  }
  return rc;
}

}  // namespace gpua
