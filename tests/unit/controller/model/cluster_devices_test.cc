// ClusterDevices: what DRA adds to each view, and the rules built on it (a DRA node is
// started once its devices are published; it is as used as its devices; a template read off a
// node takes its slices).
#include "autoscaler/controller/model/cluster_devices.h"

#include <catch2/catch.hpp>

#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/template_from_node.h"
#include "estimator/dra/allocator.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {
namespace {

std::shared_ptr<const dra::ResourceSlice> GpuSlice(const std::string& node, int gpus,
                                                   int64_t generation = 1, int64_t count = 1) {
  auto s = std::make_shared<dra::ResourceSlice>();
  s->name = node + "-gpus";
  s->driver = "gpu.nvidia.com";
  s->pool = node;
  s->node_name = node;
  s->generation = generation;
  s->slice_count = count;
  for (int i = 0; i < gpus; ++i) {
    dra::Device d;
    d.name = "gpu-" + std::to_string(i);
    d.attributes["gpu.nvidia.com"]["type"] = std::string("gpu");
    s->devices.push_back(std::move(d));
  }
  return s;
}

std::shared_ptr<const dra::ClaimSpec> OneGpu() {
  auto spec = std::make_shared<dra::ClaimSpec>();
  dra::ExactRequest e;
  e.device_class_name = "gpu.nvidia.com";
  spec->requests.push_back(dra::DeviceRequest{"gpu", {e}, false});
  spec->fingerprint = "one gpu";
  return spec;
}

std::shared_ptr<dra::ResourceClaim> Claim(const std::string& name) {
  auto c = std::make_shared<dra::ResourceClaim>();
  c->namespace_name = "ml";
  c->name = name;
  c->spec = OneGpu();
  return c;
}

std::shared_ptr<const dra::ClaimAllocation> On(const std::string& node, int gpu) {
  auto a = std::make_shared<dra::ClaimAllocation>();
  a->devices.push_back({"gpu", "gpu.nvidia.com", node, "gpu-" + std::to_string(gpu), false});
  return a;
}

struct Cluster {
  std::shared_ptr<ClusterView> view = std::make_shared<ClusterView>();
  Cluster() {
    auto c = std::make_shared<dra::DeviceClass>();
    c->name = "gpu.nvidia.com";
    view->device_classes.push_back(c);
    auto t = std::make_shared<dra::ResourceClaimTemplate>();
    t->namespace_name = "ml";
    t->name = "one-gpu";
    t->spec = OneGpu();
    view->resource_claim_templates.push_back(t);
  }
  PodPtr AddPod(const std::string& name, const std::string& node,
                std::vector<dra::PodClaimRef> refs) {
    auto p = std::make_shared<PodObject>(*PendingPod(name, Res({{"cpu", "1"}}), kNow));
    p->spec.node_name = node;
    p->unschedulable = node.empty();
    p->spec.claim_refs = std::move(refs);
    view->AddPod(p);
    return p;
  }
};

MemoryLogSink& Log() {
  static MemoryLogSink log;
  return log;
}

TEST_CASE("a view without DRA objects or claims is handed back as it is", "[dra][controller]") {
  auto view = std::make_shared<ClusterView>();
  view->AddPod(PendingPod("web", Res({{"cpu", "1"}}), kNow));
  ClusterDevices devices(Log(), true);
  std::shared_ptr<const ClusterView> out = devices.Resolve(view);
  CHECK(out == view);
}

TEST_CASE(
    "pods' claims are resolved: a pending pod's template, a running pod's own claim read "
    "as movable, a shared claim keeping its node",
    "[dra][controller]") {
  Cluster c;
  c.view->resource_slices = {GpuSlice("n1", 8)};
  auto own = Claim("run-gpu-abc");
  own->allocation = On("n1", 0);
  auto shared = Claim("team-gpu");
  shared->allocation = On("n1", 1);
  c.view->resource_claims = {own, shared};
  c.AddPod("wait", "", {{"gpu", "", "one-gpu", ""}});
  c.AddPod("run", "n1", {{"gpu", "", "one-gpu", "run-gpu-abc"}, {"team", "team-gpu", "", ""}});
  ClusterDevices devices(Log(), true);
  std::shared_ptr<const ClusterView> out = devices.Resolve(c.view);
  REQUIRE(out != c.view);

  const PodPtr& wait = out->pods.at("ml/wait");
  REQUIRE(wait->spec.devices != nullptr);
  REQUIRE(wait->spec.devices->claims.size() == 1);
  CHECK(wait->spec.devices->claims[0].unresolved.ok());
  CHECK(wait->spec.devices->claims[0].allocation == nullptr);
  REQUIRE(out->unschedulable.size() == 1);
  CHECK(out->unschedulable[0] == wait);  // the lists hold the resolved pod too

  const PodPtr& run = out->pods.at("ml/run");
  REQUIRE(run->spec.devices != nullptr);
  REQUIRE(run->spec.devices->claims.size() == 2);
  CHECK(run->spec.devices->claims[0].allocation == nullptr);  // a replacement gets a new claim
  CHECK(run->spec.devices->claims[1].allocation != nullptr);  // shared: pinned to its devices
  CHECK(out->PodsOn("n1").at(0) == run);

  const NodeDeviceState* n1 = out->DevicesOf("n1");
  REQUIRE(n1 != nullptr);
  REQUIRE(n1->devices != nullptr);
  CHECK(n1->devices->DeviceCount() == 8);
  REQUIRE(n1->allocated != nullptr);
  CHECK(n1->allocated->size() == 2);
  CHECK(c.view->DevicesOf("n1") == nullptr);  // the source's view is not changed
}

TEST_CASE(
    "resolved pods and node devices are the same objects from loop to loop while nothing "
    "they depend on changed",
    "[dra][controller]") {
  Cluster c;
  c.view->resource_slices = {GpuSlice("n1", 8)};
  c.AddPod("wait", "", {{"gpu", "", "one-gpu", ""}});
  ClusterDevices devices(Log(), true);
  std::shared_ptr<const ClusterView> first = devices.Resolve(c.view);
  std::shared_ptr<const ClusterView> second = devices.Resolve(c.view);
  CHECK(first->pods.at("ml/wait") == second->pods.at("ml/wait"));
  CHECK(first->DevicesOf("n1")->devices == second->DevicesOf("n1")->devices);
  // The claim the resourceclaim controller made appears: the pod is resolved again.
  auto made = Claim("wait-gpu-x");
  c.view->resource_claims = {made};
  auto pod = std::make_shared<PodObject>(*c.view->pods.at("ml/wait"));
  pod->spec.claim_refs[0].made_claim = "wait-gpu-x";
  c.view->pods["ml/wait"] = pod;
  c.view->unschedulable = {pod};
  std::shared_ptr<const ClusterView> third = devices.Resolve(c.view);
  CHECK(third->pods.at("ml/wait") != second->pods.at("ml/wait"));
  CHECK(third->pods.at("ml/wait")->spec.devices->claims[0].claim_key == "ml/wait-gpu-x");
  // A new slice generation makes new devices.
  c.view->resource_slices = {GpuSlice("n1", 4, 2)};
  std::shared_ptr<const ClusterView> fourth = devices.Resolve(c.view);
  CHECK(fourth->DevicesOf("n1")->devices->DeviceCount() == 4);
}

TEST_CASE("a claim or template that is not there leaves the pod unresolved, naming it",
          "[dra][controller][bad-input]") {
  Cluster c;
  c.AddPod("lost", "", {{"gpu", "", "no-such", ""}, {"team", "gone", "", ""}});
  ClusterDevices devices(Log(), true);
  std::shared_ptr<const ClusterView> out = devices.Resolve(c.view);
  const auto& claims = out->pods.at("ml/lost")->spec.devices->claims;
  REQUIRE(claims.size() == 2);
  CHECK_THAT(std::string(claims[0].unresolved.message()),
             Catch::Contains("ResourceClaimTemplate ml/no-such not found"));
  CHECK_THAT(std::string(claims[1].unresolved.message()),
             Catch::Contains("ResourceClaim ml/gone not found"));
}

TEST_CASE("with --enable-dynamic-resource-allocation=false claims are not read",
          "[dra][controller]") {
  Cluster c;
  c.AddPod("wait", "", {{"gpu", "", "one-gpu", ""}});
  ClusterDevices devices(Log(), false);
  CHECK(devices.Resolve(c.view) == c.view);
}

TEST_CASE("network-attached pools are left out, and said so once", "[dra][controller]") {
  Cluster c;
  auto fabric = std::make_shared<dra::ResourceSlice>(*GpuSlice("x", 2));
  fabric->node_name.clear();
  fabric->all_nodes = true;
  c.view->resource_slices = {fabric, GpuSlice("n1", 2)};
  MemoryLogSink log;
  ClusterDevices devices(log, true);
  std::shared_ptr<const ClusterView> out = devices.Resolve(c.view);
  CHECK(out->node_devices.size() == 1);
  (void)devices.Resolve(c.view);
  CHECK(log.lines().size() == 1);
  CHECK_THAT(log.lines()[0], Catch::Contains("allNodes"));
}

TEST_CASE(
    "a DRA pool's node is started once every driver's pools are whole and as large as the "
    "template's",
    "[dra][controller]") {
  NodeTemplate t;
  t.resource_slices = {GpuSlice("template", 8)};
  CHECK_FALSE(DevicesPublished(nullptr, t));
  NodeDeviceState partial;
  partial.devices = std::make_shared<const dra::NodeDevices>(
      dra::AssemblePools({GpuSlice("n1", 8, 1, /*count=*/2).get()}));
  CHECK_FALSE(DevicesPublished(&partial, t));  // one slice of two
  NodeDeviceState fewer;
  fewer.devices =
      std::make_shared<const dra::NodeDevices>(dra::AssemblePools({GpuSlice("n1", 7).get()}));
  CHECK_FALSE(DevicesPublished(&fewer, t));
  NodeDeviceState whole;
  whole.devices =
      std::make_shared<const dra::NodeDevices>(dra::AssemblePools({GpuSlice("n1", 8).get()}));
  CHECK(DevicesPublished(&whole, t));
}

TEST_CASE("a node's device use is its most used driver's, counters first", "[dra][controller]") {
  auto nic = std::make_shared<dra::ResourceSlice>(*GpuSlice("n1", 4));
  nic->driver = "nic.example.com";
  nic->pool = "n1-nic";
  auto devices = std::make_shared<const dra::NodeDevices>(
      dra::AssemblePools({GpuSlice("n1", 8).get(), nic.get()}));
  dra::DeviceUse use(devices);
  CHECK(use.Utilization() == 0);
  use.TakeAllocated({{"gpu", "gpu.nvidia.com", "n1", "gpu-0", false},
                     {"gpu", "gpu.nvidia.com", "n1", "gpu-1", false}});
  CHECK(use.Utilization() == Approx(0.25));
  use.TakeAllocated({{"nic", "nic.example.com", "n1-nic", "gpu-0", false},
                     {"nic", "nic.example.com", "n1-nic", "gpu-1", false}});
  CHECK(use.Utilization() == Approx(0.5));
  // Admin access watches a device without taking it.
  use.TakeAllocated({{"gpu", "gpu.nvidia.com", "n1", "gpu-7", true}});
  CHECK(use.Utilization() == Approx(0.5));
}

TEST_CASE("a template read off a DRA node takes its slices, from the node with the most devices",
          "[dra][controller]") {
  NodeTemplate plain;
  plain.allocatable = Res({{"cpu", "8"}, {"pods", "110"}});
  const NodePtr a = NodeOf("a", plain, kNow);
  const NodePtr b = NodeOf("b", plain, kNow);
  NodeDeviceState none;
  NodeDeviceState eight;
  eight.slices = {GpuSlice("b", 8)};
  eight.devices =
      std::make_shared<const dra::NodeDevices>(dra::AssemblePools({eight.slices[0].get()}));
  const std::vector<TemplateCandidate> candidates = {{a.get(), &none}, {b.get(), &eight}};
  const TemplateCandidate* from = NodeToTemplateFrom(candidates);
  REQUIRE(from != nullptr);
  CHECK(from->node == b.get());
  const NodeTemplate t = TemplateFromNode(*from, "pool");
  REQUIRE(t.resource_slices.size() == 1);
  CHECK(t.resource_slices[0]->devices.size() == 8);
}

}  // namespace
}  // namespace gpua::testing
