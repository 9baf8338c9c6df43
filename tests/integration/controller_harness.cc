#include "tests/integration/controller_harness.h"

#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cloudproviders/node_group_file.h"
#include "tests/support/eventually.h"

namespace gpua::testing {

ControllerHarness::ControllerHarness(const std::string& node_groups_yaml, ControllerOptions options,
                                     SimulatedCloudOptions cloud_options)
    : cloud(*ParseNodeGroupFile(node_groups_yaml, "groups.yaml"), clock, cloud_options),
      groups_(*ParseNodeGroupFile(node_groups_yaml, "groups.yaml")) {
  auto plugin = externalgrpc::PluginServer::Start(cloud, {});
  REQUIRE(plugin.ok());
  plugin_ = *std::move(plugin);
  ExternalGrpcConfig grpc;
  grpc.address = absl::StrCat("127.0.0.1:", plugin_->port());
  auto provider = ExternalGrpcProvider::Create(grpc, log);
  REQUIRE(provider.ok());
  provider_ = *std::move(provider);
  client_ = ClientFor(server);
  kube::ClusterWatchOptions watch;
  watch.reflector.log = &log;
  watch.reflector.watch_timeout = absl::Seconds(5);
  watch.reflector.initial_backoff = absl::Milliseconds(20);
  watch.config_map_namespace = options.status.namespace_name;
  watch.config_map_names = ConfigMapsRead(options);
  watch.capacity_buffers = options.scale_up.capacity_buffers;
  watch.dra = options.dynamic_resource_allocation;
  watch_ = std::make_unique<kube::ClusterWatch>(*client_, TestClock(), watch);
  writer_ = std::make_unique<kube::ApiKubeWriter>(*client_, TestClock(), "gpu-autoscaler", log);
  options_ = options;
  controller_ = std::make_unique<Controller>(
      ControllerSeams{*watch_, *provider_, *writer_, clock, log, &metrics}, std::move(options));
  kubelet = std::make_unique<SimulatedKubelet>(cloud, groups_, server, clock);
  kubelet->RegisteredAt(clock.Now() - absl::Hours(1));  // not a scale-up of a moment ago
  watch_->Start();
  REQUIRE(watch_->WaitForSync(absl::Seconds(10)));
}

ControllerHarness::~ControllerHarness() = default;

void ControllerHarness::SetCondition(const std::string& node, const std::string& type,
                                     const std::string& status, const std::string& reason,
                                     std::optional<absl::Time> since) {
  kubelet->Sync();
  std::optional<nlohmann::json> object = server.Get("nodes", "", node);
  REQUIRE(object.has_value());
  nlohmann::json& conditions = (*object)["status"]["conditions"];
  const std::string when =
      absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", since.value_or(clock.Now()), absl::UTCTimeZone());
  nlohmann::json condition = {
      {"type", type},  {"status", status},          {"reason", reason},
      {"message", ""}, {"lastHeartbeatTime", when}, {"lastTransitionTime", when}};
  bool replaced = false;
  for (nlohmann::json& c : conditions) {
    if (c.value("type", "") != type) continue;
    c = condition;
    replaced = true;
  }
  if (!replaced) conditions.push_back(condition);
  object->at("metadata").erase("resourceVersion");
  server.Upsert("nodes", *std::move(object));
}

std::map<std::string, std::string> ControllerHarness::Annotations(const std::string& node) {
  std::optional<nlohmann::json> object = server.Get("nodes", "", node);
  if (!object.has_value()) return {};
  return object->at("metadata").value("annotations", std::map<std::string, std::string>{});
}

void ControllerHarness::AddPendingPod(const std::string& name, const nlohmann::json& resources,
                                      const nlohmann::json& extra_metadata) {
  nlohmann::json meta = {{"name", name},
                         {"namespace", "ml"},
                         {"uid", absl::StrCat("uid-", name)},
                         {"creationTimestamp",
                          absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", clock.Now(), absl::UTCTimeZone())},
                         {"ownerReferences",
                          {{{"apiVersion", "batch/v1"},
                            {"kind", "Job"},
                            {"name", name},
                            {"uid", "job-" + name},
                            {"controller", true}}}}};
  for (const auto& [k, v] : extra_metadata.items()) meta[k] = v;
  server.Upsert(
      "pods",
      {{"apiVersion", "v1"},
       {"kind", "Pod"},
       {"metadata", meta},
       {"spec",
        {{"containers", {{{"name", "main"}, {"resources", {{"requests", resources}}}}}},
         {"tolerations", {{{"operator", "Exists"}}}}}},
       {"status",
        {{"phase", "Pending"},
         {"conditions",
          {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}}}}}});
}

void ControllerHarness::AddRunningPod(const std::string& name, const std::string& node,
                                      const nlohmann::json& resources,
                                      const std::string& owner_kind, const std::string& owner,
                                      const nlohmann::json& extra_metadata,
                                      const nlohmann::json& extra_spec) {
  nlohmann::json meta = {{"name", name},
                         {"namespace", "ml"},
                         {"uid", absl::StrCat("uid-", name)},
                         {"labels", {{"app", owner}}}};
  if (!owner_kind.empty()) {
    meta["ownerReferences"] = {{{"kind", owner_kind},
                                {"name", owner},
                                {"uid", absl::StrCat(owner, "-uid")},
                                {"controller", true}}};
    const std::string resource = owner_kind == "ReplicaSet"    ? "replicasets"
                                 : owner_kind == "StatefulSet" ? "statefulsets"
                                 : owner_kind == "Job"         ? "jobs"
                                 : owner_kind == "DaemonSet"   ? "daemonsets"
                                                               : "";
    if (!resource.empty()) {
      nlohmann::json workload = {
          {"metadata", {{"name", owner}, {"namespace", "ml"}, {"uid", owner + "-uid"}}},
          {"spec", {{"replicas", 2}}}};
      if (resource == "daemonsets") {
        workload["spec"] = {{"template", {{"spec", {{"containers", {{{"name", "agent"}}}}}}}}};
      }
      if (!server.Get(resource, "ml", owner)) server.Upsert(resource, workload);
    }
  }
  for (const auto& [k, v] : extra_metadata.items()) meta[k] = v;
  nlohmann::json spec = {
      {"nodeName", node},
      {"containers", {{{"name", "main"}, {"resources", {{"requests", resources}}}}}},
      {"tolerations", {{{"operator", "Exists"}}}}};
  for (const auto& [k, v] : extra_spec.items()) spec[k] = v;
  server.Upsert("pods", {{"apiVersion", "v1"},
                         {"kind", "Pod"},
                         {"metadata", meta},
                         {"spec", spec},
                         {"status", {{"phase", "Running"}}}});
}

void ControllerHarness::AddPdb(const std::string& name, const std::string& app, int allowed) {
  server.Upsert("poddisruptionbudgets",
                {{"metadata", {{"name", name}, {"namespace", "ml"}}},
                 {"spec", {{"selector", {{"matchLabels", {{"app", app}}}}}}},
                 {"status", {{"disruptionsAllowed", allowed}}}});
}

void ControllerHarness::RestartController() {
  controller_.reset();
  controller_ = std::make_unique<Controller>(
      ControllerSeams{*watch_, *provider_, *writer_, clock, log, &metrics}, options_);
}

std::vector<std::string> ControllerHarness::Taints(const std::string& node) {
  std::vector<std::string> out;
  auto n = server.Get("nodes", "", node);
  if (!n.has_value() || !(*n)["spec"].contains("taints")) return out;
  for (const nlohmann::json& t : (*n)["spec"]["taints"]) {
    out.push_back(
        absl::StrCat(t.value("key", ""), "=", t.value("value", ""), ":", t.value("effect", "")));
  }
  return out;
}

bool ControllerHarness::NodeExists(const std::string& node) {
  return server.Get("nodes", "", node).has_value();
}

void ControllerHarness::WaitForInformers() {
  const auto same = [&](const std::string& resource, const auto& cached) {
    std::map<std::string, std::string> want, have;
    for (const nlohmann::json& o : server.List(resource)) {
      want[o["metadata"].value("name", "")] = o["metadata"].value("resourceVersion", "");
    }
    for (const auto& o : cached) have[o.first] = o.second;
    return want == have;
  };
  std::string seen;
  const bool caught_up = Eventually([&] {
    const ClusterView view = *watch_->View();
    std::map<std::string, std::string> nodes, pods;
    seen.clear();
    for (const NodePtr& n : view.nodes) {
      nodes[n->node.name] = n->resource_version;
      absl::StrAppend(&seen, " node ", n->node.name, "@", n->resource_version);
    }
    for (const auto& [key, p] : view.pods) {
      pods[p->spec.name] = p->resource_version;
      absl::StrAppend(&seen, " pod ", p->spec.name, "@", p->resource_version);
    }
    std::map<std::string, std::string> budgets;
    for (const PdbPtr& b : view.pdbs) {
      budgets[b->name] = b->resource_version;
      absl::StrAppend(&seen, " budget ", b->name, "@", b->resource_version);
    }
    // A pod's controller unseen reads as one that is gone: the drain rules would judge it so.
    std::map<std::string, std::map<std::string, std::string>> workloads;
    for (const auto& [ref, w] : view.workloads) {
      workloads[w->kind][w->name] = w->resource_version;
      absl::StrAppend(&seen, " ", w->kind, " ", w->name, "@", w->resource_version);
    }
    std::map<std::string, std::string> daemonsets, buffers, templates;
    for (const DaemonSetPtr& d : view.daemonsets) daemonsets[d->name] = d->resource_version;
    if (options_.scale_up.capacity_buffers) {
      for (const CapacityBufferPtr& b : view.capacity_buffers)
        buffers[b->name] = b->resource_version;
      for (const PodTemplatePtr& t : view.pod_templates) templates[t->name] = t->resource_version;
    }
    std::map<std::string, std::string> slices, classes, claims, claim_templates;
    for (const ResourceSlicePtr& s : view.resource_slices) slices[s->name] = s->resource_version;
    for (const DeviceClassPtr& c : view.device_classes) classes[c->name] = c->resource_version;
    for (const ResourceClaimPtr& c : view.resource_claims) claims[c->name] = c->resource_version;
    for (const ResourceClaimTemplatePtr& t : view.resource_claim_templates) {
      claim_templates[t->name] = t->resource_version;
    }
    const bool dra =
        !options_.dynamic_resource_allocation ||
        (same("resourceslices", slices) && same("deviceclasses", classes) &&
         same("resourceclaims", claims) && same("resourceclaimtemplates", claim_templates));
    const bool warm = !options_.scale_up.capacity_buffers ||
                      (same("capacitybuffers", buffers) && same("podtemplates", templates));
    return warm && dra && same("nodes", nodes) && same("pods", pods) &&
           same("poddisruptionbudgets", budgets) && same("replicasets", workloads["ReplicaSet"]) &&
           same("statefulsets", workloads["StatefulSet"]) && same("jobs", workloads["Job"]) &&
           same("daemonsets", daemonsets);
  });
  INFO("the informers hold" << seen << "; the log: " << absl::StrJoin(log.lines(), " | "));
  REQUIRE(caught_up);
}

LoopReport ControllerHarness::Step(absl::Duration elapsed) {
  clock.Advance(elapsed);
  kubelet->Sync();
  WaitForInformers();
  LoopReport report = controller_->RunOnce(clock.Now());
  writer_->Flush();
  return report;
}

int ControllerHarness::TargetSize(const std::string& group) {
  auto g = FindNodeGroup(cloud, group);
  REQUIRE(g.ok());
  return *(*g)->TargetSize();
}

std::vector<std::string> ControllerHarness::EventsFor(const std::string& name) {
  writer_->Flush();
  std::vector<std::string> out;
  for (const nlohmann::json& e : server.List("events")) {
    if (e["involvedObject"].value("name", "") == name) {
      out.push_back(absl::StrCat(e.value("reason", ""), ": ", e.value("message", "")));
    }
  }
  return out;
}

nlohmann::json ControllerHarness::StatusConfigMap() {
  auto cm = server.Get("configmaps", "kube-system", "cluster-autoscaler-status");
  REQUIRE(cm.has_value());
  return *cm;
}

}  // namespace gpua::testing
