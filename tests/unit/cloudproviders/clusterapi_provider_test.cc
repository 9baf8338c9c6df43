// The clusterapi provider over a fake management cluster: which Cluster API objects are node
// groups, what a group at zero looks like, how sizes change and which Machine goes, and what
// happens to an object whose annotations cannot be used.
#include "cloudproviders/clusterapi/clusterapi_provider.h"

#include <catch2/catch.hpp>

#include "cloudproviders/clusterapi/clusterapi_factory.h"
#include "estimator/dra/resource_slice.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/gpu/gpu_inventory_reader.h"
#include "tests/support/fake_management_cluster.h"

namespace gpua::testing {
namespace {

using nlohmann::json;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

json Meta(const std::string& name, json annotations = json::object()) {
  return {{"name", name},
          {"namespace", "gpu"},
          {"uid", "uid-" + name},
          {"resourceVersion", "1"},
          {"annotations", std::move(annotations)}};
}

json SizeAnnotations(int min, int max) {
  return {{"cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size", std::to_string(min)},
          {"cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size", std::to_string(max)}};
}

// An 8xH100 MachineDeployment's annotations for scale from zero.
json H100Annotations(int min = 0, int max = 4) {
  json a = SizeAnnotations(min, max);
  a["capacity.cluster-autoscaler.kubernetes.io/cpu"] = "192";
  a["capacity.cluster-autoscaler.kubernetes.io/memory"] = "2000Gi";
  a["capacity.cluster-autoscaler.kubernetes.io/gpu-type"] = "nvidia.com/gpu";
  a["capacity.cluster-autoscaler.kubernetes.io/gpu-count"] = "8";
  a["capacity.cluster-autoscaler.kubernetes.io/labels"] =
      "nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3,nvidia.com/gpu.count=8";
  a["capacity.cluster-autoscaler.kubernetes.io/taints"] = "nvidia.com/gpu=present:NoSchedule";
  return a;
}

json Deployment(const std::string& name, int replicas, json annotations) {
  return {{"metadata", Meta(name, std::move(annotations))},
          {"spec",
           {{"clusterName", "gpu-cluster"},
            {"replicas", replicas},
            {"template", {{"metadata", {{"labels", {{"pool", name}}}}}}}}}};
}

json OwnedBy(const std::string& kind, const std::string& name) {
  return json::array({{{"apiVersion", "cluster.x-k8s.io/v1beta1"},
                       {"kind", kind},
                       {"name", name},
                       {"uid", "uid-" + name},
                       {"controller", true}}});
}

json SetOf(const std::string& deployment) {
  json set = {{"metadata", Meta(deployment + "-abc")}, {"spec", {{"replicas", 0}}}};
  set["metadata"]["ownerReferences"] = OwnedBy("MachineDeployment", deployment);
  return set;
}

// A Machine of `set`; a provider ID when it has one, and its node's name when registered.
json MachineOf(const std::string& name, const std::string& set, const std::string& provider_id,
               const std::string& phase = "Running") {
  json m = {{"metadata", Meta(name)}, {"spec", json::object()}, {"status", {{"phase", phase}}}};
  m["metadata"]["ownerReferences"] = OwnedBy("MachineSet", set);
  if (!provider_id.empty()) {
    m["spec"]["providerID"] = provider_id;
    m["status"]["nodeRef"] = {{"name", name + "-node"}};
  }
  return m;
}

struct Fixture {
  Fixture() : clock(kStart) {}
  ClusterApiProvider& Provider(ClusterApiOptions options = {}) {
    provider = std::make_unique<ClusterApiProvider>(cluster, std::move(options), clock, log);
    REQUIRE(provider->Refresh().ok());
    for (const std::string& line : log.lines()) UNSCOPED_INFO(line);
    return *provider;
  }
  std::shared_ptr<NodeGroup> Group(const std::string& id) {
    absl::StatusOr<std::shared_ptr<NodeGroup>> g = FindNodeGroup(*provider, id);
    REQUIRE(g.ok());
    return *g;
  }
  // The H100 deployment at `replicas`, with its MachineSet and a running Machine for each.
  void H100Pool(int replicas, int min = 0) {
    cluster->PutScalable(CapiKind::kMachineDeployment,
                         Deployment("h100", replicas, H100Annotations(min)));
    cluster->PutScalable(CapiKind::kMachineSet, SetOf("h100"));
    for (int i = 0; i < replicas; ++i) {
      const std::string name = "h100-abc-" + std::to_string(i);
      cluster->PutMachine(MachineOf(name, "h100-abc", "aws:///us-east-1a/i-" + name));
    }
  }
  NodeRef NodeOfMachine(int i) {
    const std::string name = "h100-abc-" + std::to_string(i);
    return {"aws:///us-east-1a/i-" + name, name + "-node", {}, {}};
  }

  std::shared_ptr<FakeManagementCluster> cluster = std::make_shared<FakeManagementCluster>();
  ManualClock clock;
  MemoryLogSink log;
  std::unique_ptr<ClusterApiProvider> provider;
};

TEST_CASE("a MachineDeployment with both size annotations is a node group, named as upstream",
          "[clusterapi]") {
  Fixture f;
  f.H100Pool(2);
  f.cluster->PutScalable(CapiKind::kMachineDeployment, Deployment("cpu", 3, json::object()));
  ClusterApiProvider& p = f.Provider();
  absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> groups = p.NodeGroups();
  REQUIRE(groups.ok());
  REQUIRE(groups->size() == 1);  // its MachineSet is scaled through it; "cpu" is not autoscaled
  const std::shared_ptr<NodeGroup>& g = (*groups)[0];
  CHECK(g->Id() == "MachineDeployment/gpu/h100");
  CHECK(g->MinSize() == 0);
  CHECK(g->MaxSize() == 4);
  CHECK(*g->TargetSize() == 2);
  absl::StatusOr<std::vector<Instance>> nodes = g->Nodes();
  REQUIRE(nodes.ok());
  REQUIRE(nodes->size() == 2);
  CHECK((*nodes)[0].id == "aws:///us-east-1a/i-h100-abc-0");
  CHECK((*nodes)[0].state == InstanceState::kRunning);
}

TEST_CASE("an 8xH100 group at zero is templated from its capacity annotations", "[clusterapi]") {
  Fixture f;
  f.H100Pool(0);
  f.Provider();
  absl::StatusOr<NodeTemplate> t = f.Group("MachineDeployment/gpu/h100")->TemplateNode();
  REQUIRE(t.ok());
  CHECK(t->allocatable.Get("cpu").Value() == 192);
  CHECK(t->allocatable.Get("nvidia.com/gpu").Value() == 8);
  CHECK(t->allocatable.Get("pods").Value() == 110);  // maxPods' default
  CHECK(t->labels.at("pool") == "h100");             // the Machines' template labels
  CHECK(t->labels.at("nvidia.com/gpu.product") == "NVIDIA-H100-80GB-HBM3");
  REQUIRE(t->taints.size() == 1);
  CHECK(t->taints[0].ToString() == "{nvidia.com/gpu: present}");
  absl::StatusOr<std::optional<GpuInventory>> gpus =
      ReadGpuInventory(t->labels, t->annotations, t->allocatable, "h100");
  REQUIRE(gpus.ok());
  REQUIRE(gpus->has_value());
  CHECK((*gpus)->physical_count() == 8);
}

TEST_CASE("a group at zero takes its infrastructure template's capacity, under the annotations",
          "[clusterapi]") {
  Fixture f;
  json a = SizeAnnotations(0, 4);
  a["capacity.cluster-autoscaler.kubernetes.io/memory"] = "1000Gi";
  a["capacity.cluster-autoscaler.kubernetes.io/labels"] =
      "nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3";
  json md = Deployment("metal", 0, a);
  md["spec"]["template"]["spec"] = {{"infrastructureRef",
                                     {{"apiVersion", "infrastructure.cluster.x-k8s.io/v1beta1"},
                                      {"kind", "Metal3MachineTemplate"},
                                      {"name", "metal-h100"}}}};
  f.cluster->PutScalable(CapiKind::kMachineDeployment, md);
  ResourceList capacity;
  for (const auto& [name, q] : {std::pair{"cpu", "96"}, std::pair{"memory", "768Gi"},
                                std::pair{"nvidia.com/gpu", "8"}, std::pair{"pods", "200"}}) {
    capacity.Set(name, *Quantity::Parse(q));
  }
  f.cluster->PutInfrastructureCapacity("gpu", "Metal3MachineTemplate", "metal-h100", capacity);
  f.Provider();
  absl::StatusOr<NodeTemplate> t = f.Group("MachineDeployment/gpu/metal")->TemplateNode();
  REQUIRE(t.ok());
  CHECK(t->allocatable.Get("cpu").Value() == 96);
  CHECK(t->allocatable.Get("memory") == *Quantity::Parse("1000Gi"));  // the annotation's
  CHECK(t->allocatable.Get("nvidia.com/gpu").Value() == 8);
  CHECK(t->allocatable.Get("pods").Value() == 200);
}

TEST_CASE("cluster-autoscaler's dra-driver annotation makes the GPUs DRA devices of the template",
          "[clusterapi][dra]") {
  Fixture f;
  json a = H100Annotations();
  a["capacity.cluster-autoscaler.kubernetes.io/dra-driver"] = "gpu.nvidia.com";
  f.cluster->PutScalable(CapiKind::kMachineDeployment, Deployment("h100-dra", 0, a));
  json bare = H100Annotations();
  bare["capacity.cluster-autoscaler.kubernetes.io/dra-driver"] = "";
  f.cluster->PutScalable(CapiKind::kMachineDeployment, Deployment("no-driver", 0, bare));
  f.Provider();
  absl::StatusOr<NodeTemplate> t = f.Group("MachineDeployment/gpu/h100-dra")->TemplateNode();
  REQUIRE(t.ok());
  CHECK_FALSE(t->allocatable.Has("nvidia.com/gpu"));  // claimed through DRA, not advertised
  REQUIRE(t->resource_slices.size() == 1);
  const dra::ResourceSlice& s = *t->resource_slices[0];
  CHECK(s.driver == "gpu.nvidia.com");
  CHECK(s.devices[7].name == "gpu-7");
  CHECK(std::get<std::string>(*s.devices[0].Attribute("productName", s.driver)) ==
        "NVIDIA H100 80GB HBM3");
  // An empty driver name leaves the group out, with an Event naming the annotation.
  REQUIRE(f.cluster->warnings.size() == 1);
  CHECK(f.cluster->warnings[0].object == "MachineDeployment/gpu/no-driver");
  CHECK_THAT(f.cluster->warnings[0].message,
             Catch::Contains("capacity.cluster-autoscaler.kubernetes.io/dra-driver"));
}

TEST_CASE("a MIG pool's layouts annotation reaches the template, so slices are planned on it",
          "[clusterapi][mig]") {
  Fixture f;
  json a = H100Annotations();
  a["capacity.cluster-autoscaler.kubernetes.io/labels"] =
      "nvidia.com/gpu.product=NVIDIA-A100-SXM4-40GB,nvidia.com/gpu.count=8,"
      "nvidia.com/mig.strategy=mixed";
  a.erase("capacity.cluster-autoscaler.kubernetes.io/gpu-type");
  a.erase("capacity.cluster-autoscaler.kubernetes.io/gpu-count");
  a["gpu-autoscaler.io/mig-layouts"] = "all-1g.5gb,all-3g.20gb";
  f.cluster->PutScalable(CapiKind::kMachineDeployment, Deployment("a100-mig", 0, a));
  f.Provider();
  absl::StatusOr<NodeTemplate> t = f.Group("MachineDeployment/gpu/a100-mig")->TemplateNode();
  REQUIRE(t.ok());
  absl::StatusOr<std::optional<GpuInventory>> gpus =
      ReadGpuInventory(t->labels, t->annotations, t->allocatable, "a100-mig");
  REQUIRE(gpus.ok());
  REQUIRE(gpus->has_value());
  CHECK((*gpus)->mig_layouts().size() == 2);
}

TEST_CASE("a group grows through the scale subresource, and never past its maximum",
          "[clusterapi]") {
  Fixture f;
  f.H100Pool(1);
  f.Provider();
  std::shared_ptr<NodeGroup> g = f.Group("MachineDeployment/gpu/h100");
  REQUIRE(g->IncreaseSize(2).ok());
  CHECK(*g->TargetSize() == 3);  // the informers catch up later
  CHECK(f.cluster->calls == std::vector<std::string>{"scale MachineDeployment/gpu/h100 3"});
  const absl::Status over = g->IncreaseSize(2);
  CHECK(absl::IsInvalidArgument(over));
  CHECK_THAT(std::string(over.message()), Catch::Contains("desired 5, max 4"));
  CHECK(f.cluster->calls.size() == 1);
}

TEST_CASE("a node goes by marking its Machine for deletion, then lowering replicas by one",
          "[clusterapi]") {
  Fixture f;
  f.H100Pool(3);
  f.Provider();
  std::shared_ptr<NodeGroup> g = f.Group("MachineDeployment/gpu/h100");
  REQUIRE(g->DeleteNodes({f.NodeOfMachine(1)}).ok());
  CHECK(f.cluster->calls ==
        std::vector<std::string>{"annotate Machine/gpu/h100-abc-1 cluster.x-k8s.io/delete-machine",
                                 "scale MachineDeployment/gpu/h100 2"});
  CHECK(f.cluster->Machine("gpu/h100-abc-1")->annotations.at("cluster.x-k8s.io/delete-machine") ==
        "2027-01-15T08:00:00Z");

  SECTION("a node found by its machine annotation when it has no provider ID") {
    NodeRef by_annotation{"",
                          "h100-abc-2-node",
                          {},
                          {{"cluster.x-k8s.io/machine", "h100-abc-2"},
                           {"cluster.x-k8s.io/cluster-namespace", "gpu"}}};
    REQUIRE(f.provider->Refresh().ok());
    REQUIRE(f.Group("MachineDeployment/gpu/h100")->DeleteNodes({by_annotation}).ok());
    CHECK(f.cluster->calls.back() == "scale MachineDeployment/gpu/h100 1");
  }
}

TEST_CASE("a removal that would take a group under its minimum changes nothing", "[clusterapi]") {
  Fixture f;
  f.H100Pool(2, /*min=*/2);
  f.Provider();
  const absl::Status s = f.Group("MachineDeployment/gpu/h100")->DeleteNodes({f.NodeOfMachine(0)});
  CHECK(absl::IsFailedPrecondition(s));
  CHECK_THAT(std::string(s.message()), Catch::Contains("under its minimum size 2"));
  CHECK(f.cluster->calls.empty());
}

TEST_CASE("a removal repeated after a restart lowers replicas no further", "[clusterapi]") {
  Fixture f;
  f.H100Pool(2);
  json going = MachineOf("h100-abc-0", "h100-abc", "aws:///us-east-1a/i-h100-abc-0", "Deleting");
  going["metadata"]["deletionTimestamp"] = "2027-01-15T08:00:00Z";
  f.cluster->PutMachine(going);
  f.Provider();
  REQUIRE(f.Group("MachineDeployment/gpu/h100")->DeleteNodes({f.NodeOfMachine(0)}).ok());
  CHECK(f.cluster->calls.empty());
}

TEST_CASE("a removal repeated before Cluster API began it does not lower replicas twice",
          "[clusterapi]") {
  Fixture f;
  f.H100Pool(3);
  f.Provider();
  REQUIRE(f.Group("MachineDeployment/gpu/h100")->DeleteNodes({f.NodeOfMachine(1)}).ok());
  // A restart: a new provider reads the Machine marked and replicas at 2, its Machine there.
  f.Provider();
  REQUIRE(f.Group("MachineDeployment/gpu/h100")->DeleteNodes({f.NodeOfMachine(1)}).ok());
  CHECK(f.cluster->calls.size() == 2);
  CHECK(*f.Group("MachineDeployment/gpu/h100")->TargetSize() == 2);
  // Another node still goes.
  REQUIRE(f.Group("MachineDeployment/gpu/h100")->DeleteNodes({f.NodeOfMachine(0)}).ok());
  CHECK(f.cluster->calls.back() == "scale MachineDeployment/gpu/h100 1");
}

TEST_CASE("a node of another group, or of none, is refused, and nothing changes", "[clusterapi]") {
  Fixture f;
  f.H100Pool(1);
  f.Provider();
  const absl::Status s =
      f.Group("MachineDeployment/gpu/h100")->DeleteNodes({{"aws:///elsewhere", "stray", {}, {}}});
  CHECK(absl::IsNotFound(s));
  CHECK(f.cluster->calls.empty());
  absl::StatusOr<std::shared_ptr<NodeGroup>> none =
      f.provider->NodeGroupForNode({"aws:///elsewhere", "stray", {}, {}});
  REQUIRE(none.ok());
  CHECK(*none == nullptr);
  absl::StatusOr<std::shared_ptr<NodeGroup>> found =
      f.provider->NodeGroupForNode(f.NodeOfMachine(0));
  REQUIRE(found.ok());
  REQUIRE(*found != nullptr);
  CHECK((*found)->Id() == "MachineDeployment/gpu/h100");
}

TEST_CASE("a failed Machine is an instance in error, a Machine being deleted one on its way out",
          "[clusterapi]") {
  Fixture f;
  f.H100Pool(1);
  json failed = MachineOf("h100-abc-7", "h100-abc", "", "Failed");
  failed["status"]["failureReason"] = "InsufficientInstanceCapacity";
  failed["status"]["failureMessage"] = "no p5.48xlarge in us-east-1a";
  f.cluster->PutMachine(failed);
  json v1beta2 = MachineOf("h100-abc-8", "h100-abc", "", "Failed");
  v1beta2["status"]["deprecated"] = {{"v1beta1", {{"failureReason", "CreateError"}}}};
  f.cluster->PutMachine(v1beta2);
  f.cluster->PutMachine(MachineOf("h100-abc-9", "h100-abc", "", "Provisioning"));
  f.Provider();
  absl::StatusOr<std::vector<Instance>> nodes = f.Group("MachineDeployment/gpu/h100")->Nodes();
  REQUIRE(nodes.ok());
  REQUIRE(nodes->size() == 4);
  const Instance& error = (*nodes)[1];
  CHECK(error.id == "clusterapi://gpu/h100-abc-7");
  REQUIRE(error.error.has_value());
  CHECK(error.error->code == "InsufficientInstanceCapacity");
  CHECK_THAT(error.error->message, Catch::Contains("no p5.48xlarge"));
  REQUIRE((*nodes)[2].error.has_value());
  CHECK((*nodes)[2].error->code == "CreateError");
  CHECK((*nodes)[3].state == InstanceState::kCreating);
  CHECK_FALSE((*nodes)[3].error.has_value());

  // The controller cleans the failed one up by its instance ID: marked, then replicas lowered.
  std::shared_ptr<NodeGroup> g = f.Group("MachineDeployment/gpu/h100");
  REQUIRE(g->DeleteNodes({{"clusterapi://gpu/h100-abc-7", "", {}, {}}}).ok());
  CHECK(f.cluster->calls.front() ==
        "annotate Machine/gpu/h100-abc-7 cluster.x-k8s.io/delete-machine");
}

TEST_CASE("an annotation that does not parse leaves its group out, with one Event naming it",
          "[clusterapi]") {
  Fixture f;
  f.H100Pool(1);
  const auto bad = [&](const std::string& name, const std::string& key, const std::string& value) {
    json a = H100Annotations();
    a[key] = value;
    f.cluster->PutScalable(CapiKind::kMachineDeployment, Deployment(name, 0, a));
  };
  bad("bad-min", "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size", "two");
  bad("min-over-max", "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size", "9");
  bad("bad-gpus", "capacity.cluster-autoscaler.kubernetes.io/gpu-count", "8.5");
  bad("bad-taints", "capacity.cluster-autoscaler.kubernetes.io/taints", "nvidia.com/gpu=present");
  bad("bad-memory", "capacity.cluster-autoscaler.kubernetes.io/memory", "lots");
  bad("bad-options", "cluster.x-k8s.io/autoscaling-options-scaledownunneededtime", "soon");
  ClusterApiProvider& p = f.Provider();
  absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> groups = p.NodeGroups();
  REQUIRE(groups.ok());
  REQUIRE(groups->size() == 1);
  CHECK((*groups)[0]->Id() == "MachineDeployment/gpu/h100");
  REQUIRE(f.cluster->warnings.size() == 6);
  std::map<std::string, std::string> said;
  for (const auto& w : f.cluster->warnings) said[w.object] = w.message;
  CHECK_THAT(
      said.at("MachineDeployment/gpu/bad-min"),
      Catch::Contains("cluster-api-autoscaler-node-group-min-size") && Catch::Contains("\"two\""));
  CHECK_THAT(said.at("MachineDeployment/gpu/min-over-max"),
             Catch::Contains("9 is over the maximum size 4"));
  CHECK_THAT(said.at("MachineDeployment/gpu/bad-gpus"), Catch::Contains("gpu-count"));
  CHECK_THAT(said.at("MachineDeployment/gpu/bad-taints"),
             Catch::Contains("capacity.cluster-autoscaler.kubernetes.io/taints"));
  CHECK_THAT(said.at("MachineDeployment/gpu/bad-memory"), Catch::Contains("memory"));
  CHECK_THAT(said.at("MachineDeployment/gpu/bad-options"),
             Catch::Contains("scaledownunneededtime"));
  CHECK(f.cluster->warnings[0].reason == "InvalidNodeGroup");
  REQUIRE(p.Refresh().ok());
  CHECK(f.cluster->warnings.size() == 6);  // said once per version of the object
}

TEST_CASE("the options annotations override the flags' defaults for their group alone",
          "[clusterapi]") {
  Fixture f;
  json a = H100Annotations();
  a["cluster.x-k8s.io/autoscaling-options-scaledownunneededtime"] = "2m0s";
  a["cluster.x-k8s.io/autoscaling-options-scaledowngpuutilizationthreshold"] = "0.25";
  a["cluster.x-k8s.io/autoscaling-options-maxnodeprovisiontime"] = "25m";
  f.cluster->PutScalable(CapiKind::kMachineDeployment, Deployment("h100", 0, a));
  f.Provider();
  AutoscalingOptions defaults;
  defaults.scale_down_unready_time = absl::Minutes(7);
  absl::StatusOr<AutoscalingOptions> o =
      f.Group("MachineDeployment/gpu/h100")->GetOptions(defaults);
  REQUIRE(o.ok());
  CHECK(o->scale_down_unneeded_time == absl::Minutes(2));
  CHECK(o->scale_down_gpu_utilization_threshold == 0.25);
  CHECK(o->max_node_provision_time == absl::Minutes(25));
  CHECK(o->scale_down_unready_time == absl::Minutes(7));
}

TEST_CASE("auto-discovery keeps groups by namespace, cluster name and labels", "[clusterapi]") {
  Fixture f;
  f.H100Pool(0);
  json other = Deployment("l4", 0, H100Annotations());
  other["metadata"]["namespace"] = "team-b";
  other["metadata"]["labels"] = {{"tier", "inference"}};
  f.cluster->PutScalable(CapiKind::kMachineDeployment, other);
  const auto ids = [&](const std::vector<std::string>& specs) {
    ClusterApiOptions o;
    absl::StatusOr<std::vector<CapiDiscoveryTerm>> terms = ParseCapiDiscovery(specs);
    REQUIRE(terms.ok());
    o.discovery = *terms;
    std::vector<std::string> out;
    absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> groups = f.Provider(o).NodeGroups();
    REQUIRE(groups.ok());
    for (const auto& g : *groups) out.push_back(g->Id());
    return out;
  };
  CHECK(ids({}).size() == 2);
  CHECK(ids({"clusterapi:namespace=gpu"}) ==
        std::vector<std::string>{"MachineDeployment/gpu/h100"});
  CHECK(ids({"clusterapi:clusterName=gpu-cluster,tier=inference"}) ==
        std::vector<std::string>{"MachineDeployment/team-b/l4"});
  CHECK(ids({"clusterapi:clusterName=other"}).empty());
  const absl::Status bad =
      ParseCapiDiscovery({"asg:tag=k8s.io/cluster-autoscaler/enabled"}).status();
  CHECK_THAT(std::string(bad.message()), Catch::Contains("clusterapi:<key>=<value>"));
}

TEST_CASE("CAPI_GROUP renames the size annotations and the deletion mark", "[clusterapi]") {
  Fixture f;
  json a = H100Annotations();
  a["test.k8s.io/cluster-api-autoscaler-node-group-min-size"] = "0";
  a["test.k8s.io/cluster-api-autoscaler-node-group-max-size"] = "2";
  f.cluster->PutScalable(CapiKind::kMachineDeployment, Deployment("h100", 1, a));
  f.cluster->PutScalable(CapiKind::kMachineSet, SetOf("h100"));
  f.cluster->PutMachine(MachineOf("h100-abc-0", "h100-abc", "aws:///us-east-1a/i-h100-abc-0"));
  ClusterApiOptions o;
  o.names.group = "test.k8s.io";
  f.Provider(o);
  std::shared_ptr<NodeGroup> g = f.Group("MachineDeployment/gpu/h100");
  CHECK(g->MaxSize() == 2);
  REQUIRE(g->DeleteNodes({f.NodeOfMachine(0)}).ok());
  CHECK(f.cluster->calls.front() == "annotate Machine/gpu/h100-abc-0 test.k8s.io/delete-machine");
}

TEST_CASE("until the objects are listed the provider fails its refresh, so no loop sees no groups",
          "[clusterapi]") {
  Fixture f;
  f.cluster->synced = false;
  ClusterApiProvider p(f.cluster, {}, f.clock, f.log);
  CHECK(absl::IsUnavailable(p.Refresh()));
}

TEST_CASE("clusterapi needs no --cloud-config, but a cluster to read its groups from",
          "[clusterapi][registry]") {
  Fixture f;
  ProviderContext c;
  c.clock = &f.clock;
  c.log = &f.log;
  c.env = [](const std::string& name) { return name == "CAPI_GROUP" ? "test.k8s.io" : ""; };
  absl::StatusOr<std::unique_ptr<CloudProvider>> none =
      ProviderRegistry::Builtin().Create("clusterapi", c);
  CHECK_THAT(std::string(none.status().message()), Catch::Contains("needs a cluster"));
  std::string asked_group, asked_kubeconfig = "unset";
  c.connect_management_cluster =
      [&](const std::string& kubeconfig,
          const std::string& group) -> absl::StatusOr<std::shared_ptr<ManagementCluster>> {
    asked_kubeconfig = kubeconfig;
    asked_group = group;
    return std::static_pointer_cast<ManagementCluster>(f.cluster);
  };
  absl::StatusOr<std::unique_ptr<CloudProvider>> made =
      ProviderRegistry::Builtin().Create("clusterapi", c);
  REQUIRE(made.ok());
  CHECK((*made)->Name() == "clusterapi");
  CHECK(asked_kubeconfig.empty());
  CHECK(asked_group == "test.k8s.io");
}

}  // namespace
}  // namespace gpua::testing
