// The clusterapi provider end to end: the controller, its informers and the Cluster API
// objects on the fake API server (custom resources with the scale subresource, as a real
// server serves them), and a stand-in for Cluster API's controllers that creates Machines and
// their Nodes when replicas grow and deletes the marked Machine when they shrink.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "autoscaler/cli/plugin_check_command.h"
#include "autoscaler/controller/controller.h"
#include "autoscaler/kube/api_kube_writer.h"
#include "autoscaler/kube/cluster_api_watch.h"
#include "autoscaler/kube/cluster_watch.h"
#include "cloudproviders/clusterapi/clusterapi_provider.h"
#include "cloudproviders/simulated/simulated_node.h"
#include "tests/support/config_files.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_api_client.h"
#include "tests/support/fake_api_server.h"
#include "tests/support/run_command.h"

namespace gpua::testing {
namespace {

using nlohmann::json;

constexpr char kMachines[] = "machines";
constexpr char kDeployments[] = "machinedeployments";
constexpr char kDeleteMachine[] = "cluster.x-k8s.io/delete-machine";

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

json OwnerRef(const std::string& kind, const json& owner) {
  return json::array({{{"apiVersion", "cluster.x-k8s.io/v1beta1"},
                       {"kind", kind},
                       {"name", owner["metadata"]["name"]},
                       {"uid", owner["metadata"].value("uid", "")},
                       {"controller", true}}});
}

// A MachineDeployment at `replicas` with cluster-autoscaler's annotations for an 8xH100 pool
// (`annotations` added to, or replacing, them).
json Deployment(const std::string& name, int replicas, const json& annotations = json::object()) {
  json a = {
      {"cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size", "0"},
      {"cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size", "3"},
      {"cluster.x-k8s.io/autoscaling-options-scaledownunneededtime", "5m"},
      {"capacity.cluster-autoscaler.kubernetes.io/cpu", "190"},
      {"capacity.cluster-autoscaler.kubernetes.io/memory", "1900Gi"},
      {"capacity.cluster-autoscaler.kubernetes.io/gpu-type", "nvidia.com/gpu"},
      {"capacity.cluster-autoscaler.kubernetes.io/gpu-count", "8"},
      {"capacity.cluster-autoscaler.kubernetes.io/labels",
       "nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3,nvidia.com/gpu.count=8"},
      {"capacity.cluster-autoscaler.kubernetes.io/taints", "nvidia.com/gpu=present:NoSchedule"}};
  for (const auto& [k, v] : annotations.items()) {
    if (v.is_null()) {
      a.erase(k);
    } else {
      a[k] = v;
    }
  }
  return {{"apiVersion", "cluster.x-k8s.io/v1beta1"},
          {"kind", "MachineDeployment"},
          {"metadata",
           {{"name", name}, {"namespace", "gpu"}, {"uid", "uid-" + name}, {"annotations", a}}},
          {"spec",
           {{"clusterName", "gpu-cluster"},
            {"replicas", replicas},
            {"template", {{"metadata", {{"labels", {{"pool", name}}}}}}}}}};
}

// Cluster API's controllers, as far as the autoscaler sees them: each MachineDeployment has
// one MachineSet, whose Machines follow replicas (a marked Machine goes first, else the
// newest), and each running Machine's infrastructure registers a Ready Node shaped as the
// group's capacity annotations promise, with the MIG layout its mig.config label asks for.
class StandInClusterApi {
 public:
  StandInClusterApi(FakeApiServer& server, Clock& clock) : server_(server), clock_(clock) {}

  void Reconcile() {
    for (const json& md : server_.List(kDeployments)) ReconcileDeployment(md);
    RefreshNodeStatus();
  }
  // A Machine of `deployment` whose infrastructure failed for good.
  void AddFailedMachine(const std::string& deployment, const std::string& reason) {
    const json set = SetFor(*server_.Get(kDeployments, "gpu", deployment));
    json m = MachineJson(set, absl::StrCat(deployment, "-failed-", ++counter_), "");
    m["status"] = {{"phase", "Failed"},
                   {"failureReason", reason},
                   {"failureMessage", "no capacity for the instance type"}};
    server_.Upsert(kMachines, m);
  }

 private:
  json SetFor(const json& md) {
    const std::string name = absl::StrCat(md["metadata"]["name"].get<std::string>(), "-ms");
    if (auto set = server_.Get("machinesets", "gpu", name)) return *set;
    json set = {{"metadata",
                 {{"name", name},
                  {"namespace", "gpu"},
                  {"uid", "uid-" + name},
                  {"ownerReferences", OwnerRef("MachineDeployment", md)}}},
                {"spec", {{"clusterName", "gpu-cluster"}}}};
    server_.Upsert("machinesets", set);
    return *server_.Get("machinesets", "gpu", name);
  }
  json MachineJson(const json& set, const std::string& name, const std::string& provider_id) {
    json m = {{"metadata",
               {{"name", name},
                {"namespace", "gpu"},
                {"uid", "uid-" + name},
                {"creationTimestamp", Rfc3339(clock_.Now())},
                {"ownerReferences", OwnerRef("MachineSet", set)}}},
              {"spec", json::object()},
              {"status", {{"phase", "Running"}}}};
    if (!provider_id.empty()) {
      m["spec"]["providerID"] = provider_id;
      m["status"]["nodeRef"] = {{"name", name}};
    }
    return m;
  }
  std::vector<json> MachinesOf(const json& set) {
    std::vector<json> out;
    for (const json& m : server_.List(kMachines)) {
      if (m["metadata"]["ownerReferences"][0]["name"] == set["metadata"]["name"]) {
        out.push_back(m);
      }
    }
    return out;
  }
  void ReconcileDeployment(const json& md) {
    const json set = SetFor(md);
    std::vector<json> machines = MachinesOf(set);
    const size_t want = md["spec"]["replicas"].get<size_t>();
    while (machines.size() < want) {
      const std::string name =
          absl::StrCat(md["metadata"]["name"].get<std::string>(), "-", ++counter_);
      const std::string provider_id = "capi://gpu/" + name;
      const bool registers = !never_register.contains(md["metadata"]["name"]);
      json machine = MachineJson(set, name, provider_id);
      if (!registers) machine["status"].erase("nodeRef");
      server_.Upsert(kMachines, machine);
      machines.push_back(*server_.Get(kMachines, "gpu", name));
      if (registers) Register(md, name, provider_id);
    }
    while (machines.size() > want) {
      auto going = std::find_if(machines.begin(), machines.end(), [](const json& m) {
        return m["metadata"].value("annotations", json::object()).contains(kDeleteMachine);
      });
      if (going == machines.end()) going = machines.end() - 1;
      const std::string name = (*going)["metadata"]["name"];
      deleted.push_back(name);
      server_.Delete(kMachines, "gpu", name);
      if (server_.Get("nodes", "", name)) server_.Delete("nodes", "", name);
      machines.erase(going);
    }
  }
  NodeTemplate TemplateOf(const json& md) {
    absl::StatusOr<CapiScalable> s =
        DecodeCapiScalable(JsonReader(md), CapiKind::kMachineDeployment);
    REQUIRE(s.ok());
    absl::StatusOr<CapiGroupConfig> c = ReadGroupConfig(*s, CapiNames{});
    REQUIRE(c.ok());
    if (c->scale_from_zero.has_value()) return *c->scale_from_zero;
    // No capacity annotations: the infrastructure's machine type is an 8xH100 all the same.
    NodeTemplate t;
    t.labels = s->template_labels;
    t.labels["nvidia.com/gpu.product"] = "NVIDIA-H100-80GB-HBM3";
    t.labels["nvidia.com/gpu.count"] = "8";
    for (const auto& [name, q] : {std::pair{"cpu", "190"}, std::pair{"memory", "1900Gi"},
                                  std::pair{"pods", "110"}, std::pair{"nvidia.com/gpu", "8"}}) {
      t.allocatable.Set(name, *Quantity::Parse(q));
    }
    return t;
  }
  void Register(const json& md, const std::string& name, const std::string& provider_id) {
    const NodeTemplate t = TemplateOf(md);
    json node = NewNodeFor(t, name, provider_id);
    node["metadata"]["annotations"] = {{"cluster.x-k8s.io/machine", name},
                                       {"cluster.x-k8s.io/cluster-namespace", "gpu"}};
    node["metadata"]["creationTimestamp"] = Rfc3339(clock_.Now());
    node["status"] = NodeStatusFor(t, "", true);
    server_.Upsert("nodes", node);
    templates_[name] = t;
  }
  // The MIG layout the controller labelled a node with, once the MIG manager applied it.
  void RefreshNodeStatus() {
    for (const auto& [name, t] : templates_) {
      std::optional<json> node = server_.Get("nodes", "", name);
      if (!node.has_value()) continue;
      const std::string layout =
          (*node)["metadata"].value("labels", json::object()).value("nvidia.com/mig.config", "");
      json status = NodeStatusFor(t, layout, true);
      if ((*node)["status"] == status) continue;
      (*node)["status"] = status;
      server_.Upsert("nodes", *node);
    }
  }

  FakeApiServer& server_;
  Clock& clock_;
  int counter_ = 0;
  std::map<std::string, NodeTemplate> templates_;

 public:
  std::vector<std::string> deleted;  // Machines, in the order they went
  // Deployments whose Machines come up but whose Nodes never join the cluster.
  std::set<std::string> never_register;
};

class CapiCluster {
 public:
  CapiCluster() : stand_in(server, clock) {
    client_ = ClientFor(server);
    kube::ClusterWatchOptions watch;
    watch.reflector.log = &log;
    watch.reflector.watch_timeout = absl::Seconds(5);
    watch.reflector.initial_backoff = absl::Milliseconds(20);
    watch_ = std::make_unique<kube::ClusterWatch>(*client_, TestClock(), watch);
    writer_ = std::make_unique<kube::ApiKubeWriter>(*client_, TestClock(), "gpu-autoscaler", log);
    watch_->Start();
    REQUIRE(watch_->WaitForSync(absl::Seconds(10)));
    StartController();
  }
  // A new controller process: provider, informers of Cluster API and memory all new.
  void StartController() {
    controller_.reset();
    provider_.reset();
    kube::ReflectorOptions reflector;
    reflector.log = &log;
    reflector.watch_timeout = absl::Seconds(5);
    reflector.initial_backoff = absl::Milliseconds(20);
    auto capi = kube::ClusterApiWatch::Start(ClientFor(server), TestClock(), "cluster.x-k8s.io", "",
                                             reflector);
    REQUIRE(capi.ok());
    capi_ = *capi;
    REQUIRE(Eventually([&] { return capi_->Synced(); }, absl::Seconds(10)));
    provider_ = std::make_unique<ClusterApiProvider>(capi_, ClusterApiOptions{}, clock, log);
    ControllerOptions options;
    options.scale_down.delay_after_add = absl::ZeroDuration();
    controller_ = std::make_unique<Controller>(
        ControllerSeams{*watch_, *provider_, *writer_, clock, log}, options);
  }

  void AddPendingPod(const std::string& name, const json& requests) {
    server.Upsert(
        "pods",
        {{"metadata",
          {{"name", name},
           {"namespace", "ml"},
           {"uid", "uid-" + name},
           {"creationTimestamp", Rfc3339(clock.Now())}}},
         {"spec",
          {{"tolerations", {{{"operator", "Exists"}}}},
           {"containers", {{{"name", "main"}, {"resources", {{"requests", requests}}}}}}}},
         {"status",
          {{"phase", "Pending"},
           {"conditions",
            {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}}}}}});
  }
  // kube-scheduler's part: the pod bound to `node` and running.
  void Bind(const std::string& pod, const std::string& node) {
    json p = *server.Get("pods", "ml", pod);
    p["spec"]["nodeName"] = node;
    p["status"] = {{"phase", "Running"}};
    server.Upsert("pods", p);
  }

  // `reconcile`: whether Cluster API's controllers act before the loop.
  LoopReport Step(absl::Duration elapsed = absl::ZeroDuration(), bool reconcile = true) {
    clock.Advance(elapsed);
    if (reconcile) stand_in.Reconcile();
    WaitForInformers();
    LoopReport report = controller_->RunOnce(clock.Now());
    writer_->Flush();
    return report;
  }
  // Writes to a MachineDeployment's scale subresource so far.
  int ScaleWrites() {
    int n = 0;
    for (const FakeApiServer::Access& a : server.accesses()) {
      n += a.verb == "patch" && a.resource == "machinedeployments/scale";
    }
    return n;
  }
  int Replicas(const std::string& deployment) {
    return (*server.Get(kDeployments, "gpu", deployment))["spec"]["replicas"];
  }
  std::vector<json> EventsOn(const std::string& kind) {
    writer_->Flush();
    std::vector<json> out;
    for (const json& e : server.List("events")) {
      if (e["involvedObject"].value("kind", "") == kind) out.push_back(e);
    }
    return out;
  }

  ManualClock clock;
  FakeApiServer server;
  MemoryLogSink log;
  StandInClusterApi stand_in;

 private:
  // Until the informers hold what the server holds, of every kind the loop reads.
  void WaitForInformers() {
    const auto versions = [&](const std::string& resource) {
      std::map<std::string, std::string> out;
      for (const json& o : server.List(resource)) {
        out[o["metadata"].value("name", "")] = o["metadata"].value("resourceVersion", "");
      }
      return out;
    };
    const bool caught_up = Eventually([&] {
      const ClusterView view = *watch_->View();
      std::map<std::string, std::string> nodes, pods, machines, deployments, sets;
      for (const NodePtr& n : view.nodes) nodes[n->node.name] = n->resource_version;
      for (const auto& [key, p] : view.pods) pods[p->spec.name] = p->resource_version;
      const CapiObjects capi = capi_->Objects();
      for (const auto& m : capi.machines) machines[m->name] = m->resource_version;
      for (const auto& s : capi.scalables) {
        if (s->kind == CapiKind::kMachineDeployment) deployments[s->name] = s->resource_version;
        if (s->kind == CapiKind::kMachineSet) sets[s->name] = s->resource_version;
      }
      return nodes == versions("nodes") && pods == versions("pods") &&
             machines == versions(kMachines) && deployments == versions(kDeployments) &&
             sets == versions("machinesets");
    });
    REQUIRE(caught_up);
  }

  std::unique_ptr<kube::ApiClient> client_;
  std::unique_ptr<kube::ClusterWatch> watch_;
  std::unique_ptr<kube::ApiKubeWriter> writer_;
  std::shared_ptr<kube::ClusterApiWatch> capi_;
  std::unique_ptr<ClusterApiProvider> provider_;
  std::unique_ptr<Controller> controller_;
};

TEST_CASE(
    "an 8xH100 MachineDeployment at zero grows for a pending 8-GPU pod and goes back to "
    "zero by its marked Machine",
    "[clusterapi][integration]") {
  CapiCluster c;
  c.server.Upsert(kDeployments, Deployment("h100", 0));
  c.Step();
  c.AddPendingPod("train-0", {{"nvidia.com/gpu", "8"}});
  c.Step(absl::Seconds(40));  // GPU pods wait 30 s before they may trigger a scale-up
  CHECK(c.Replicas("h100") == 1);
  c.Step(absl::Seconds(10));  // Cluster API brings the Machine and its Node up
  REQUIRE(c.server.Get("nodes", "", "h100-1").has_value());
  c.Bind("train-0", "h100-1");
  c.Step(absl::Minutes(1));
  CHECK(c.Replicas("h100") == 1);  // busy

  c.server.Delete("pods", "ml", "train-0");
  c.Step(absl::Seconds(10));  // unneeded from now
  c.Step(absl::Minutes(5));   // its group's 5m unneeded time (the options annotation)
  c.Step(absl::Seconds(10));  // the drain is done: the node goes
  CHECK(c.Replicas("h100") == 0);
  // The Machine was marked before replicas dropped, so Cluster API deleted that one.
  std::vector<std::string> writes;
  for (const FakeApiServer::Access& a : c.server.accesses()) {
    if (a.verb == "patch" &&
        (a.resource == "machines" || a.resource == "machinedeployments/scale")) {
      writes.push_back(absl::StrCat(a.resource, " ", a.name));
    }
  }
  CHECK(writes == std::vector<std::string>{"machinedeployments/scale h100", "machines h100-1",
                                           "machinedeployments/scale h100"});
  c.Step(absl::Seconds(10));
  CHECK(c.stand_in.deleted == std::vector<std::string>{"h100-1"});
  CHECK_FALSE(c.server.Get("nodes", "", "h100-1").has_value());
}

TEST_CASE("a MachineDeployment without capacity annotations grows from the node it runs",
          "[clusterapi][integration]") {
  CapiCluster c;
  const json unannotated = {{"capacity.cluster-autoscaler.kubernetes.io/cpu", nullptr},
                            {"capacity.cluster-autoscaler.kubernetes.io/memory", nullptr},
                            {"capacity.cluster-autoscaler.kubernetes.io/gpu-type", nullptr},
                            {"capacity.cluster-autoscaler.kubernetes.io/gpu-count", nullptr},
                            {"capacity.cluster-autoscaler.kubernetes.io/labels", nullptr},
                            {"capacity.cluster-autoscaler.kubernetes.io/taints", nullptr}};
  c.server.Upsert(kDeployments, Deployment("h100", 1, unannotated));
  c.Step();
  c.AddPendingPod("serve-0", {{"nvidia.com/gpu", "8"}});
  c.Bind("serve-0", "h100-1");
  c.AddPendingPod("train-0", {{"nvidia.com/gpu", "8"}});
  c.Step(absl::Seconds(40));
  CHECK(c.Replicas("h100") == 2);

  c.server.Upsert(kDeployments, Deployment("empty", 0, unannotated));
  c.AddPendingPod("train-1", {{"nvidia.com/gpu", "8"}});
  c.Step(absl::Seconds(40));
  CHECK(c.Replicas("empty") == 0);  // at zero nothing says what its node would be
}

TEST_CASE("a MachineDeployment at zero grows from its infrastructure template's status.capacity",
          "[clusterapi][integration]") {
  CapiCluster c;
  const json sizes_only = {{"capacity.cluster-autoscaler.kubernetes.io/cpu", nullptr},
                           {"capacity.cluster-autoscaler.kubernetes.io/memory", nullptr},
                           {"capacity.cluster-autoscaler.kubernetes.io/gpu-type", nullptr},
                           {"capacity.cluster-autoscaler.kubernetes.io/gpu-count", nullptr}};
  json md = Deployment("h100", 0, sizes_only);
  md["spec"]["template"]["spec"] = {
      {"infrastructureRef",
       {{"apiGroup", "infrastructure.cluster.x-k8s.io"},  // v1beta2's reference
        {"kind", "Metal3MachineTemplate"},
        {"name", "metal-h100"}}}};
  c.server.Upsert(kDeployments, md);
  c.server.Upsert(
      "metal3machinetemplates",
      {{"apiVersion", "infrastructure.cluster.x-k8s.io/v1beta1"},
       {"kind", "Metal3MachineTemplate"},
       {"metadata", {{"name", "metal-h100"}, {"namespace", "gpu"}}},
       {"spec", json::object()},
       {"status",
        {{"capacity", {{"cpu", "190"}, {"memory", "1900Gi"}, {"nvidia.com/gpu", "8"}}}}}});
  c.AddPendingPod("train-0", {{"nvidia.com/gpu", "8"}});
  c.Step(absl::Seconds(40));  // the first look starts the templates' informer
  REQUIRE(Eventually(
      [&] {
        c.Step(absl::Seconds(10));
        return c.Replicas("h100") == 1;
      },
      absl::Seconds(10)));
}

TEST_CASE("slice pods choose the MIG-labelled MachineDeployment and its node gets their layout",
          "[clusterapi][integration][mig]") {
  CapiCluster c;
  c.server.Upsert(kDeployments, Deployment("h100", 0));
  c.server.Upsert(
      kDeployments,
      Deployment("a100-mig", 0,
                 {{"capacity.cluster-autoscaler.kubernetes.io/labels",
                   "nvidia.com/gpu.product=NVIDIA-A100-SXM4-40GB,nvidia.com/gpu.count=8,"
                   "nvidia.com/mig.strategy=mixed"},
                  {"capacity.cluster-autoscaler.kubernetes.io/gpu-type", nullptr},
                  {"capacity.cluster-autoscaler.kubernetes.io/gpu-count", nullptr},
                  {"gpu-autoscaler.io/mig-layouts", "all-3g.20gb,all-1g.5gb"}}));
  c.Step();
  for (int i = 0; i < 10; ++i) {
    c.AddPendingPod(absl::StrCat("notebook-", i), {{"nvidia.com/mig-1g.5gb", "1"}});
  }
  c.Step(absl::Seconds(40));
  CHECK(c.Replicas("a100-mig") == 1);
  CHECK(c.Replicas("h100") == 0);
  c.Step(absl::Seconds(10));
  c.Step(absl::Seconds(10));
  const std::optional<json> node = c.server.Get("nodes", "", "a100-mig-1");
  REQUIRE(node.has_value());
  CHECK((*node)["metadata"]["labels"].value("nvidia.com/mig.config", "") == "all-1g.5gb");
}

TEST_CASE("a Machine whose node never joins is removed after the group's provision time",
          "[clusterapi][integration]") {
  CapiCluster c;
  c.stand_in.never_register.insert("h100");
  c.server.Upsert(
      kDeployments,
      Deployment("h100", 0, {{"cluster.x-k8s.io/autoscaling-options-maxnodeprovisiontime", "3m"}}));
  c.Step();
  c.AddPendingPod("train-0", {{"nvidia.com/gpu", "8"}});
  c.Step(absl::Seconds(40));
  REQUIRE(c.Replicas("h100") == 1);
  c.Step(absl::Seconds(10));  // its Machine is up, its node is not
  REQUIRE(c.server.List(kMachines).size() == 1);
  for (int i = 0; i < 4; ++i) c.Step(absl::Minutes(1));
  CHECK(c.Replicas("h100") == 0);  // given up: marked and replicas lowered for it
  c.Step(absl::Seconds(10));
  CHECK(c.stand_in.deleted == std::vector<std::string>{"h100-1"});
}

TEST_CASE("a failed Machine is cleaned up: marked, and replicas lowered for it",
          "[clusterapi][integration]") {
  CapiCluster c;
  c.server.Upsert(kDeployments, Deployment("h100", 1));
  c.Step();
  c.stand_in.AddFailedMachine("h100", "InsufficientInstanceCapacity");
  json md = *c.server.Get(kDeployments, "gpu", "h100");
  md["spec"]["replicas"] = 2;  // the replica the failed Machine was for
  c.server.Upsert(kDeployments, md);
  c.Step(absl::Seconds(10));
  c.Step(absl::Seconds(10));
  CHECK(c.Replicas("h100") == 1);
  c.Step(absl::Seconds(10));
  CHECK(c.stand_in.deleted == std::vector<std::string>{"h100-failed-2"});
  CHECK(c.server.Get("nodes", "", "h100-1").has_value());  // the running one stays
}

TEST_CASE(
    "an annotation that does not parse skips its MachineDeployment with an Event, and "
    "the others keep working",
    "[clusterapi][integration]") {
  CapiCluster c;
  c.server.Upsert(
      kDeployments,
      Deployment("broken", 0, {{"capacity.cluster-autoscaler.kubernetes.io/gpu-count", "eight"}}));
  c.server.Upsert(kDeployments, Deployment("h100", 0));
  c.Step();
  c.AddPendingPod("train-0", {{"nvidia.com/gpu", "8"}});
  c.Step(absl::Seconds(40));
  CHECK(c.Replicas("h100") == 1);
  CHECK(c.Replicas("broken") == 0);
  const std::vector<json> events = c.EventsOn("MachineDeployment");
  REQUIRE(events.size() == 1);
  CHECK(events[0]["involvedObject"]["name"] == "broken");
  CHECK(events[0]["type"] == "Warning");
  CHECK(events[0]["reason"] == "InvalidNodeGroup");
  CHECK_THAT(events[0]["message"].get<std::string>(),
             Catch::Contains("capacity.cluster-autoscaler.kubernetes.io/gpu-count") &&
                 Catch::Contains("\"eight\""));
}

TEST_CASE("a restart between marking a Machine and its deletion repeats nothing",
          "[clusterapi][integration][restart]") {
  CapiCluster c;
  c.server.Upsert(kDeployments, Deployment("h100", 2));
  c.Step();
  c.Step(absl::Seconds(10));  // both idle: unneeded from here
  c.Step(absl::Minutes(5));   // due: their removal starts, and empty, they go at once
  const int replicas = c.Replicas("h100");
  const int scaled = c.ScaleWrites();
  REQUIRE(replicas == 0);
  // The controller restarts before Cluster API has deleted the marked Machines, and its first
  // loops run before Cluster API catches up: the removals it finds under way ask for nothing.
  c.StartController();
  c.Step(absl::Seconds(10), /*reconcile=*/false);
  c.Step(absl::Seconds(10), /*reconcile=*/false);
  CHECK(c.ScaleWrites() == scaled);
  CHECK(c.Replicas("h100") == replicas);
  c.Step(absl::Seconds(10));
  CHECK(c.stand_in.deleted.size() == 2);
  CHECK(c.server.List("nodes").empty());
  CHECK(c.ScaleWrites() == scaled);
}

TEST_CASE("plugin-check --cloud-provider=clusterapi checks the groups Cluster API objects make",
          "[clusterapi][integration][plugin-check]") {
  FakeApiServer server;
  server.Upsert(kDeployments, Deployment("h100", 0));
  server.Upsert(
      kDeployments,
      Deployment("broken", 0,
                 {{"capacity.cluster-autoscaler.kubernetes.io/taints", "nvidia.com/gpu=present"}}));
  const std::string kubeconfig =
      KubeconfigFor(server.url(), absl::StrCat("gpua-capi-check-", getpid()));
  std::ostringstream out, err;
  const int rc = RunCommand(
      RunPluginCheckCommand,
      {"--cloud-provider=clusterapi", "--kubeconfig", kubeconfig, "--output", "json"}, out, err);
  INFO(err.str());
  const json report = json::parse(out.str());
  CHECK(rc == 1);  // the broken group is a problem
  CHECK(report["provider"]["name"] == "clusterapi");
  REQUIRE(report["summary"]["problems"] == 1);
  CHECK_THAT(report["findings"][0]["message"].get<std::string>(),
             Catch::Contains("MachineDeployment gpu/broken") && Catch::Contains("taints"));
  bool template_read = false;
  for (const json& call : report["calls"]) {
    template_read |= call["rpc"] == "NodeGroupTemplateNodeInfo" &&
                     call["subject"] == "MachineDeployment/gpu/h100" && call["outcome"] == "ok";
  }
  CHECK(template_read);
}

}  // namespace
}  // namespace gpua::testing
