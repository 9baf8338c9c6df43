#include "autoscaler/cli/inspect_command.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "autoscaler/cli/cluster_connection_flags.h"
#include "autoscaler/controller/model/node_state.h"
#include "autoscaler/kube/cluster_watch.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/gpu/gpu_inventory_reader.h"
#include "estimator/gpu/gpu_resource.h"
#include "kubeobjects/documents.h"
#include "kubeobjects/json_text.h"

namespace gpua {
namespace {

struct InspectFlags {
  ClusterConnectionFlags cluster;
  std::string output = "table";
  absl::Duration watch = absl::ZeroDuration();
  absl::Duration sync_timeout = absl::Seconds(30);
  std::string status_namespace = "kube-system";
  std::string status_name = "cluster-autoscaler-status";
};

nlohmann::json ToJson(const ResourceList& list) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, q] : list) out[name] = q.ToString();
  return out;
}

std::string StateName(const NodeObject& n) { return std::string(NodeStateName(StateOf(n))); }

nlohmann::json Report(const ClusterView& view) {
  nlohmann::json out = {{"nodes", nlohmann::json::array()},
                        {"unschedulable_pods", nlohmann::json::array()}};
  for (const auto& n : view.nodes) {
    ResourceList used;
    for (const auto& p : view.PodsOn(n->node.name)) {
      if (!p->finished()) used += p->spec.requests;
    }
    nlohmann::json node = {{"name", n->node.name},
                           {"group", GroupLabelOf(*n)},
                           {"state", StateName(*n)},
                           {"allocatable", ToJson(n->node.allocatable)},
                           {"gpu_capacity", ToJson(GpuPart(n->node.allocatable))},
                           {"gpu_used", ToJson(GpuPart(used))}};
    auto inventory = ReadGpuInventory(n->node.labels, n->annotations, n->node.allocatable,
                                      absl::StrCat("Node ", n->node.name));
    if (inventory.ok() && inventory->has_value()) {
      const GpuInventory& gpus = **inventory;
      node["gpu_sharing"] = std::string(GpuSharingName(gpus.sharing()));
      node["physical_gpus"] = gpus.physical_count();
      node["physical_gpu_utilization"] =
          PhysicalGpuUtilization(gpus, gpus.LayoutNamed(n->Marks().mig_layout), used);
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

// The node groups as the controller's last loop judged them (its status ConfigMap).
void PrintStatus(const nlohmann::json& report, std::ostream& out) {
  if (!report.contains("autoscaler_status")) {
    out << "\nno autoscaler status: " << report.value("autoscaler_status_error", "") << "\n";
    return;
  }
  const nlohmann::json& s = report["autoscaler_status"];
  out << "\nautoscaler status at " << s.value("time", "?") << ": "
      << s["clusterWide"]["health"].value("status", "?");
  if (s.contains("message")) out << " (" << s["message"].get<std::string>() << ")";
  out << "\n"
      << absl::StrFormat("%-20s %-10s %7s %6s %12s %8s %13s %-10s\n", "NODE GROUP", "HEALTH",
                         "TARGET", "READY", "NOT STARTED", "UNREADY", "UNREGISTERED", "SCALE-UP");
  for (const nlohmann::json& g : s.value("nodeGroups", nlohmann::json::array())) {
    const nlohmann::json& c = g["health"]["nodeCounts"];
    out << absl::StrFormat(
        "%-20s %-10s %7d %6d %12d %8d %13d %-10s\n", g.value("name", "?"),
        g["health"].value("status", "?"), g["health"].value("cloudProviderTarget", 0),
        c["registered"].value("ready", 0), c["registered"].value("notStarted", 0),
        c["registered"]["unready"].value("total", 0), c.value("unregistered", 0),
        g["scaleUp"].value("status", "?"));
    if (g["scaleUp"].contains("backoffInfo")) {
      out << "    backed off: " << g["scaleUp"]["backoffInfo"].value("errorCode", "") << ": "
          << g["scaleUp"]["backoffInfo"].value("errorMessage", "") << "\n";
    }
  }
}

// Reads the controller's status ConfigMap into the report (or why it could not).
void AddStatus(kube::ApiClient& client, const InspectFlags& f, nlohmann::json& report) {
  const std::string what = absl::StrCat("ConfigMap ", f.status_namespace, "/", f.status_name);
  absl::StatusOr<kube::HttpResponse> res = client.Request(
      "GET",
      absl::StrCat("/api/v1/namespaces/", f.status_namespace, "/configmaps/", f.status_name));
  if (!res.ok() || res->status != 200) {
    report["autoscaler_status_error"] =
        !res.ok() ? std::string(res.status().message())
                  : absl::StrCat(what, res->status == 404 ? " not found"
                                                          : absl::StrCat(": HTTP ", res->status));
    return;
  }
  const nlohmann::json cm = ParseJson(res->body, what).value_or(nlohmann::json());
  const std::string text = cm.is_object() && cm.contains("data") && cm["data"].contains("status") &&
                                   cm["data"]["status"].is_string()
                               ? cm["data"]["status"].get<std::string>()
                               : "";
  absl::StatusOr<nlohmann::json> status = YamlToJson(text, absl::StrCat(what, " key status"));
  if (status.ok() && status->is_object()) {
    report["autoscaler_status"] = *std::move(status);
  } else {
    report["autoscaler_status_error"] = status.ok()
                                            ? absl::StrCat(what, ": key status is not a status")
                                            : std::string(status.status().message());
  }
}

// The cluster as inspect reads it: nodes and pods only (a user allowed to list just those can
// run it), with each change printed while `watching`.
struct Connection {
  std::unique_ptr<kube::ApiClient> client;
  std::unique_ptr<kube::ClusterWatch> watch;
  std::string server;
};

absl::StatusOr<Connection> Connect(const InspectFlags& f, const CommandIo& io, LogSink& log,
                                   const std::function<void(const std::string&)>& change) {
  Connection c;
  GPUA_ASSIGN_OR_RETURN(c.client, f.cluster.Connect(io.clock, &c.server, log));
  kube::ClusterWatchOptions watch;
  watch.budgets = watch.daemonsets = watch.workloads = false;
  watch.reflector.log = &log;
  watch.node_handlers.on_add = [change](const auto& n) { change("node added " + n->node.name); };
  watch.node_handlers.on_update = [change](const auto&, const auto& n) {
    change("node changed " + n->node.name + " (" + StateName(*n) + ")");
  };
  watch.node_handlers.on_delete = [change](const auto& n) {
    change("node deleted " + n->node.name);
  };
  watch.pod_handlers.on_add = [change](const auto& p) {
    change(absl::StrCat("pod added ", p->spec.Key(), p->unschedulable ? " (unschedulable)" : ""));
  };
  watch.pod_handlers.on_update = [change](const auto&, const auto& p) {
    change(absl::StrCat("pod changed ", p->spec.Key(),
                        p->spec.node_name.empty() ? "" : " on " + p->spec.node_name));
  };
  watch.pod_handlers.on_delete = [change](const auto& p) {
    change("pod deleted " + p->spec.Key());
  };
  c.watch = std::make_unique<kube::ClusterWatch>(*c.client, io.clock, std::move(watch));
  return c;
}

}  // namespace

int RunInspectCommand(const CommandArgs& args, const CommandIo& io) {
  InspectFlags f;
  FlagSet flags("gpu-autoscaler inspect");
  f.cluster.AddTo(flags);
  flags.AddString("output", &f.output, "table or json");
  flags.AddDuration("watch", &f.watch, "keep watching this long, printing each change");
  flags.AddDuration("sync-timeout", &f.sync_timeout, "how long the first lists may take");
  flags.AddString("namespace", &f.status_namespace,
                  "namespace of the controller's status ConfigMap");
  flags.AddString("status-config-map-name", &f.status_name, "the controller's status ConfigMap");
  if (auto exit = ParseFlagsOrExit(flags, args, "Usage: gpu-autoscaler inspect [flags]", io)) {
    return *exit;
  }
  if (f.output != "table" && f.output != "json") {
    io.err << "gpu-autoscaler inspect: --output must be table or json\n";
    return kExitUsage;
  }
  StreamLogSink log(io.err, "gpu-autoscaler inspect: ");
  absl::Mutex out_mu;
  std::atomic<bool> watching{false};
  // Changes that come while the table is made are held and printed after it.
  bool table_out ABSL_GUARDED_BY(out_mu) = false;
  std::vector<std::string> held ABSL_GUARDED_BY(out_mu);
  const auto change = [&](const std::string& line) {
    if (!watching) return;
    std::string stamped =
        absl::StrCat(absl::FormatTime("%H:%M:%S ", io.clock.Now(), absl::LocalTimeZone()), line);
    absl::MutexLock lock(&out_mu);
    if (table_out) {
      io.out << stamped << std::endl;
    } else {
      held.push_back(std::move(stamped));
    }
  };
  absl::StatusOr<Connection> cluster = Connect(f, io, log, change);
  if (!cluster.ok()) {
    io.err << "gpu-autoscaler inspect: " << cluster.status().message() << "\n";
    return ExitStatusForInput(cluster.status());
  }
  cluster->watch->Start();
  if (!cluster->watch->WaitForSync(f.sync_timeout)) {
    // The lists still under way (or an exec plugin still running) end now, not at their own
    // deadlines: --sync-timeout bounds the whole connect.
    cluster->client->Cancel();
    io.err << "gpu-autoscaler inspect: could not list nodes and pods from " << cluster->server
           << " within " << absl::FormatDuration(f.sync_timeout) << "\n";
    return kExitFailure;
  }
  // Watching starts before the view is taken: a change that comes before it is in the table,
  // one after it is printed after the table; none is lost.
  watching = f.watch > absl::ZeroDuration();
  nlohmann::json report = Report(*cluster->watch->View());
  AddStatus(*cluster->client, f, report);
  {
    absl::MutexLock lock(&out_mu);
    if (f.output == "json") {
      io.out << report.dump(2) << "\n";
    } else {
      PrintTable(report, io.out);
      PrintStatus(report, io.out);
    }
    for (const std::string& line : held) io.out << line << std::endl;
    table_out = true;
  }
  if (f.watch > absl::ZeroDuration()) {
    io.clock.SleepFor(f.watch);
    watching = false;
  }
  return kExitOk;
}

}  // namespace gpua
