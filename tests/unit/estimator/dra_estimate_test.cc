// Scale-up for pods whose GPUs come through DRA claims: how many nodes of which pool, from
// pools at zero (template slices) and on nodes that exist (their slices and allocations).
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "estimator/dra/pod_claims.h"
#include "estimator/dra/resource_slice.h"
#include "estimator/dra/template_slices.h"
#include "tests/unit/estimator/dra_test_util.h"
#include "tests/unit/estimator/test_util.h"

namespace gpua::testing {
namespace {

constexpr char kDriver[] = "gpu.nvidia.com";

// Eight H100s, GPUs 0-3 in NVLink domain "a" and 4-7 in "b", as one node's slice.
std::shared_ptr<const dra::ResourceSlice> H100Slice(const std::string& node) {
  auto s = std::make_shared<dra::ResourceSlice>();
  s->name = node + "-gpus";
  s->driver = kDriver;
  s->pool = node;
  s->generation = 1;
  s->node_name = node;
  for (int i = 0; i < 8; ++i) {
    dra::Device d;
    d.name = "gpu-" + std::to_string(i);
    d.attributes[kDriver]["type"] = std::string("gpu");
    d.attributes[kDriver]["productName"] = std::string("NVIDIA H100 80GB HBM3");
    d.attributes[kDriver]["nvlinkDomain"] = std::string(i < 4 ? "a" : "b");
    s->devices.push_back(std::move(d));
  }
  return s;
}

// One A100 published for MIG: a 7g partition and seven 1g partitions over 7 counters.
std::shared_ptr<const dra::ResourceSlice> A100MigSlice(const std::string& node) {
  auto s = std::make_shared<dra::ResourceSlice>();
  s->name = node + "-mig";
  s->driver = kDriver;
  s->pool = node;
  s->node_name = node;
  dra::CounterSet set{"gpu-0-counter-set", {}};
  for (int i = 0; i < 7; ++i) set.counters["slice-" + std::to_string(i)] = Quantity::FromUnits(1);
  s->counter_sets.push_back(set);
  auto mig = [&](const std::string& name, const std::string& profile, int start, int size) {
    dra::Device d;
    d.name = name;
    d.attributes[kDriver]["type"] = std::string("mig");
    d.attributes[kDriver]["profile"] = profile;
    dra::CounterConsumption use{"gpu-0-counter-set", {}};
    for (int i = start; i < start + size; ++i)
      use.counters["slice-" + std::to_string(i)] = Quantity::FromUnits(1);
    d.consumes_counters.push_back(use);
    s->devices.push_back(std::move(d));
  };
  mig("gpu-0-mig-7g", "7g.40gb", 0, 7);
  for (int i = 0; i < 7; ++i) mig("gpu-0-mig-1g-" + std::to_string(i), "1g.5gb", i, 1);
  return s;
}

NodeGroupSpec DraGroup(const std::string& id, std::shared_ptr<const dra::ResourceSlice> slice,
                       double price) {
  NodeGroupSpec g = Group(id, Res({{"cpu", "96"}, {"memory", "1Ti"}, {"pods", "110"}}), 10, price);
  g.node_template.resource_slices.push_back(std::move(slice));
  return g;
}

std::shared_ptr<const dra::ClaimSpec> Claim(const std::string& cls, int64_t count,
                                            std::vector<dra::DeviceSelector> selectors = {},
                                            const std::string& match = "") {
  auto spec = std::make_shared<dra::ClaimSpec>();
  dra::ExactRequest e;
  e.device_class_name = cls;
  e.count = count;
  e.selectors = std::move(selectors);
  spec->requests.push_back(dra::DeviceRequest{"gpu", {e}, false});
  if (!match.empty()) spec->constraints.push_back(dra::DeviceConstraint{{}, match});
  return spec;
}

// `n` pods of one ReplicaSet, each with its own claim from one template.
std::vector<PodSpec> ClaimingPods(int n, std::shared_ptr<const dra::ClaimSpec> spec,
                                  const std::string& owner = "trainer") {
  auto devices = std::make_shared<dra::PodDevices>();
  dra::PodClaim claim;
  claim.name = "gpu";
  claim.spec = std::move(spec);
  devices->claims.push_back(claim);
  devices->classes = NvidiaClasses();
  std::vector<PodSpec> pods;
  for (int i = 0; i < n; ++i) {
    PodSpec p = Pod(owner + "-" + std::to_string(i), Res({{"cpu", "1"}}), owner);
    p.claim_refs.push_back(dra::PodClaimRef{"gpu", "", owner + "-gpu", ""});
    p.devices = devices;
    pods.push_back(std::move(p));
  }
  return pods;
}

int NodesOf(const ScaleUpPlan& plan, const std::string& group) {
  for (const GroupPlan& g : plan.groups) {
    if (g.group_id == group) return g.new_nodes();
  }
  return 0;
}

TEST_CASE("Eight pods claiming one H100 each need one 8-GPU node from a pool at zero", "[dra]") {
  const ScaleUpPlan plan =
      Plan(ClaimingPods(8, Claim("gpu.nvidia.com", 1)),
           {Group("cpu", Res({{"cpu", "96"}, {"memory", "1Ti"}, {"pods", "110"}}), 10, 0.5),
            DraGroup("h100", H100Slice("template"), 30)});
  CHECK(plan.unschedulable.empty());
  CHECK(NodesOf(plan, "h100") == 1);
  CHECK(NodesOf(plan, "cpu") == 0);
  CHECK(plan.total_new_nodes() == 1);
}

TEST_CASE("Nine one-GPU claims take a second node", "[dra]") {
  const ScaleUpPlan plan = Plan(ClaimingPods(9, Claim("gpu.nvidia.com", 1)),
                                {DraGroup("h100", H100Slice("template"), 30)});
  CHECK(NodesOf(plan, "h100") == 2);
}

TEST_CASE("Fourteen 1g MIG claims need two single-A100 MIG nodes", "[dra]") {
  const auto one_g =
      Claim("mig.nvidia.com", 1,
            {CompiledSelector("device.attributes['gpu.nvidia.com'].profile == '1g.5gb'")});
  const ScaleUpPlan plan =
      Plan(ClaimingPods(14, one_g), {DraGroup("a100-mig", A100MigSlice("t"), 3)});
  CHECK(plan.unschedulable.empty());
  CHECK(NodesOf(plan, "a100-mig") == 2);
  // The 7g partition overlaps every 1g: seven 1g claims and one 7g claim need two nodes.
  std::vector<PodSpec> mixed = ClaimingPods(7, one_g);
  for (PodSpec& p : ClaimingPods(
           1,
           Claim("mig.nvidia.com", 1,
                 {CompiledSelector("device.attributes['gpu.nvidia.com'].profile == '7g.40gb'")}),
           "big")) {
    mixed.push_back(std::move(p));
  }
  CHECK(NodesOf(Plan(mixed, {DraGroup("a100-mig", A100MigSlice("t"), 3)}), "a100-mig") == 2);
}

TEST_CASE("Claims for two GPUs in one NVLink domain fit two per domain", "[dra]") {
  const auto pair = Claim("gpu.nvidia.com", 2, {}, "gpu.nvidia.com/nvlinkDomain");
  CHECK(NodesOf(Plan(ClaimingPods(4, pair), {DraGroup("h100", H100Slice("t"), 30)}), "h100") == 1);
  // Three GPUs in one domain of four: one claim per domain, so two per node.
  const auto three = Claim("gpu.nvidia.com", 3, {}, "gpu.nvidia.com/nvlinkDomain");
  CHECK(NodesOf(Plan(ClaimingPods(4, three), {DraGroup("h100", H100Slice("t"), 30)}), "h100") == 2);
}

TEST_CASE("A claim no pool can satisfy is unschedulable, naming the selector", "[dra]") {
  const ScaleUpPlan plan =
      Plan(ClaimingPods(
               1, Claim("gpu.nvidia.com", 1,
                        {CompiledSelector(
                            "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H200'")})),
           {DraGroup("h100", H100Slice("t"), 30)});
  REQUIRE(plan.unschedulable.size() == 1);
  const std::string why = plan.unschedulable[0].reasons->at("h100");
  INFO(why);
  CHECK(why.find("no device of class gpu.nvidia.com matches "
                 "`device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H200'`") !=
        std::string::npos);
}

Node ExistingH100(const std::string& name, int allocated) {
  Node n;
  n.name = name;
  n.allocatable = Res({{"cpu", "96"}, {"memory", "1Ti"}, {"pods", "110"}});
  n.devices = std::make_shared<const dra::NodeDevices>(dra::AssemblePools({H100Slice(name).get()}));
  auto held = std::make_shared<std::vector<dra::AllocatedDevice>>();
  for (int i = 0; i < allocated; ++i)
    held->push_back({"gpu", kDriver, name, "gpu-" + std::to_string(i), false});
  n.device_allocations = held;
  return n;
}

TEST_CASE("Free devices on a node that exists are used before a new node", "[dra]") {
  std::vector<Node> nodes;
  nodes.push_back(ExistingH100("gpu-node-1", 6));
  const ScaleUpPlan plan = Plan(ClaimingPods(3, Claim("gpu.nvidia.com", 1)),
                                {DraGroup("h100", H100Slice("t"), 30)}, std::move(nodes));
  CHECK(plan.on_existing.size() == 2);  // gpu-6 and gpu-7 are free
  CHECK(NodesOf(plan, "h100") == 1);
}

TEST_CASE("Pods sharing one claim go where its devices are", "[dra]") {
  auto devices = std::make_shared<dra::PodDevices>();
  dra::PodClaim claim;
  claim.name = "shared";
  claim.claim_key = "default/shared-gpus";
  claim.shared = true;
  claim.spec = Claim("gpu.nvidia.com", 8);
  devices->claims.push_back(claim);
  devices->classes = NvidiaClasses();
  std::vector<PodSpec> pods;
  for (int i = 0; i < 3; ++i) {
    PodSpec p = Pod("worker-" + std::to_string(i), Res({{"cpu", "40"}}), "workers");
    p.claim_refs.push_back(dra::PodClaimRef{"shared", "shared-gpus", "", ""});
    p.devices = devices;
    pods.push_back(std::move(p));
  }
  // The claim's 8 GPUs are one node's: the first pod takes them, the second (cpu allowing)
  // joins it, and the third, with no cpu left there, cannot use the claim anywhere else.
  const ScaleUpPlan plan = Plan(pods, {DraGroup("h100", H100Slice("t"), 30)});
  CHECK(NodesOf(plan, "h100") == 1);
  REQUIRE(plan.unschedulable.size() == 1);
  CHECK(plan.unschedulable[0].reasons->at("h100").find("gets its devices on node") !=
        std::string::npos);
}

TEST_CASE("A claim already allocated pins its pod to the node its devices are on", "[dra]") {
  std::vector<Node> nodes;
  nodes.push_back(ExistingH100("gpu-node-1", 0));
  nodes.push_back(ExistingH100("gpu-node-2", 0));
  auto devices = std::make_shared<dra::PodDevices>();
  dra::PodClaim claim;
  claim.name = "gpu";
  claim.claim_key = "default/made";
  claim.spec = Claim("gpu.nvidia.com", 1);
  auto allocation = std::make_shared<dra::ClaimAllocation>();
  allocation->devices.push_back({"gpu", kDriver, "gpu-node-2", "gpu-0", false});
  allocation->node_selector = NodeSelector{
      {NodeSelectorTerm{{}, {Requirement{"metadata.name", SelectorOp::kIn, {"gpu-node-2"}}}}}};
  claim.allocation = allocation;
  devices->claims.push_back(claim);
  devices->classes = NvidiaClasses();
  PodSpec p = Pod("pinned", Res({{"cpu", "1"}}));
  p.devices = devices;
  const ScaleUpPlan plan = Plan({p}, {}, std::move(nodes));
  REQUIRE(plan.on_existing.size() == 1);
  CHECK(plan.on_existing[0].node == "gpu-node-2");
}

TEST_CASE("A GPU template's slice is what NVIDIA's DRA driver publishes", "[dra]") {
  GpuHardware hw{GpuVendor::kNvidia, "NVIDIA-H100-80GB-HBM3", 8, 81559, "550.54.15"};
  const dra::ResourceSlice s = dra::GpuTemplateSlice(hw, dra::kNvidiaDriver, "t");
  const size_t gpus = 8;
  REQUIRE(s.devices.size() > gpus);  // the GPUs, then their MIG partitions (H100 has MIG)
  const dra::Device& gpu = s.devices[3];
  CHECK(gpu.name == "gpu-3");
  CHECK(std::get<std::string>(*gpu.Attribute("productName", kDriver)) == "NVIDIA H100 80GB HBM3");
  CHECK(std::get<std::string>(*gpu.Attribute("architecture", kDriver)) == "Hopper");
  CHECK(std::get<cel::Semver>(*gpu.Attribute("cudaComputeCapability", kDriver)).major == 9);
  CHECK(std::get<cel::Semver>(*gpu.Attribute("driverVersion", kDriver)).minor == 54);
  CHECK(gpu.capacity.at(kDriver).at("memory") == *Quantity::Parse("81559Mi"));
  CHECK(s.counter_sets.size() == gpus);
  // An L4 has no MIG: its GPUs, nothing else.
  GpuHardware l4{GpuVendor::kNvidia, "NVIDIA-L4", 1, 23034, ""};
  const dra::ResourceSlice one = dra::GpuTemplateSlice(l4, dra::kNvidiaDriver, "t");
  REQUIRE(one.devices.size() == 1);
  CHECK(one.devices[0].Attribute("driverVersion", kDriver) == nullptr);  // unknown: not guessed
  CHECK(one.counter_sets.empty());
  // Another driver gets cluster-autoscaler's bare shape.
  const dra::ResourceSlice bare = dra::GpuTemplateSlice(l4, "gpu.example.com", "t");
  CHECK(std::get<std::string>(*bare.devices[0].Attribute("type", "gpu.example.com")) == "gpu");
  CHECK(bare.devices[0].Attribute("productName", "gpu.example.com") == nullptr);
}

TEST_CASE("A MIG pool at zero, derived from its template, packs 1g claims seven to a GPU",
          "[dra]") {
  NodeGroupSpec g = Group("a100", Res({{"cpu", "96"}, {"memory", "1Ti"}, {"pods", "110"}}), 10, 4);
  g.node_template.labels["nvidia.com/gpu.product"] = "NVIDIA-A100-SXM4-80GB";
  g.node_template.labels["nvidia.com/gpu.count"] = "1";
  g.node_template.annotations[std::string(dra::kDraDriverAnnotation)] = "gpu.nvidia.com";
  REQUIRE(dra::DeriveTemplateSlices(g.node_template, "a100").ok());
  REQUIRE(g.node_template.resource_slices.size() == 1);
  const auto one_g =
      Claim("mig.nvidia.com", 1,
            {CompiledSelector("device.attributes['gpu.nvidia.com'].profile == '1g.10gb'")});
  CHECK(NodesOf(Plan(ClaimingPods(14, one_g), {g}), "a100") == 2);
  CHECK(NodesOf(Plan(ClaimingPods(15, one_g), {g}), "a100") == 3);
  const auto seven_g =
      Claim("mig.nvidia.com", 1,
            {CompiledSelector("device.attributes['gpu.nvidia.com'].profile == '7g.80gb'")});
  std::vector<PodSpec> mixed = ClaimingPods(1, seven_g, "big");
  for (PodSpec& p : ClaimingPods(1, one_g)) mixed.push_back(std::move(p));
  CHECK(NodesOf(Plan(mixed, {g}), "a100") == 2);
  // A whole GPU and a partition of it cannot both be given.
  std::vector<PodSpec> whole = ClaimingPods(1, Claim("gpu.nvidia.com", 1), "whole");
  for (PodSpec& p : ClaimingPods(1, one_g)) whole.push_back(std::move(p));
  CHECK(NodesOf(Plan(whole, {g}), "a100") == 2);
}

TEST_CASE("A template naming a DRA driver but no GPUs is refused", "[dra]") {
  NodeTemplate t;
  t.allocatable = Res({{"cpu", "8"}});
  t.annotations[std::string(dra::kDraDriverAnnotation)] = "gpu.nvidia.com";
  const absl::Status st = dra::DeriveTemplateSlices(t, "node group x: template");
  REQUIRE_FALSE(st.ok());
  CHECK(std::string(st.message()).find("node group x: template") == 0);
}

}  // namespace
}  // namespace gpua::testing
