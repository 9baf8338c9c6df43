// The simulated DRA allocation on one node, against hand cases: counts, All, firstAvailable,
// matchAttribute, MIG counters, admin access, taints, and the words of each refusal.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "estimator/dra/allocator.h"

namespace gpua::dra {
namespace {

constexpr char kDriver[] = "gpu.nvidia.com";

DeviceSelector Selector(const std::string& expression) {
  DeviceSelector s;
  s.expression = expression;
  absl::StatusOr<cel::Program> p = cel::Program::Compile(expression);
  if (p.ok()) {
    s.program = std::make_shared<const cel::Program>(*std::move(p));
  } else {
    s.error = p.status();
  }
  return s;
}

DeviceClasses Classes() {
  DeviceClasses classes;
  classes["gpu.nvidia.com"] =
      DeviceClass{"gpu.nvidia.com", {Selector("device.driver == 'gpu.nvidia.com'")}, ""};
  classes["mig.nvidia.com"] =
      DeviceClass{"mig.nvidia.com",
                  {Selector("device.driver == 'gpu.nvidia.com' && "
                            "device.attributes['gpu.nvidia.com'].type == 'mig'")},
                  ""};
  return classes;
}

Device Gpu(int index, const std::string& product, const std::string& domain) {
  Device d;
  d.name = "gpu-" + std::to_string(index);
  d.attributes[kDriver]["type"] = std::string("gpu");
  d.attributes[kDriver]["productName"] = product;
  d.attributes[kDriver]["index"] = int64_t{index};
  d.attributes[kDriver]["nvlinkDomain"] = domain;
  d.capacity[kDriver]["memory"] = *Quantity::Parse("80Gi");
  return d;
}

std::shared_ptr<const NodeDevices> EightH100() {
  auto nd = std::make_shared<NodeDevices>();
  DevicePool pool{kDriver, "node-a", 1, {}, {}};
  for (int i = 0; i < 8; ++i)
    pool.devices.push_back(Gpu(i, "NVIDIA H100 80GB HBM3", i < 4 ? "a" : "b"));
  nd->pools.push_back(std::move(pool));
  return nd;
}

// One A100 whose 8 memory slices are counters; a 7g partition consumes all of them, each 1g
// one slice of its own.
std::shared_ptr<const NodeDevices> MigGpu() {
  auto nd = std::make_shared<NodeDevices>();
  DevicePool pool{kDriver, "node-m", 1, {}, {}};
  CounterSet set{"gpu-0-counter-set", {}};
  for (int s = 0; s < 8; ++s)
    set.counters["memory-slice-" + std::to_string(s)] = Quantity::FromUnits(1);
  pool.counter_sets.push_back(set);
  auto mig = [&](const std::string& name, const std::string& profile, int start, int size) {
    Device d;
    d.name = name;
    d.attributes[kDriver]["type"] = std::string("mig");
    d.attributes[kDriver]["profile"] = profile;
    CounterConsumption use{"gpu-0-counter-set", {}};
    for (int s = start; s < start + size; ++s)
      use.counters["memory-slice-" + std::to_string(s)] = Quantity::FromUnits(1);
    d.consumes_counters.push_back(use);
    pool.devices.push_back(d);
  };
  mig("gpu-0-mig-7g", "7g.80gb", 0, 8);
  for (int s = 0; s < 7; ++s) mig("gpu-0-mig-1g-" + std::to_string(s), "1g.10gb", s, 1);
  nd->pools.push_back(std::move(pool));
  return nd;
}

ExactRequest Exact(const std::string& cls, int64_t count,
                   std::vector<DeviceSelector> selectors = {}) {
  ExactRequest e;
  e.device_class_name = cls;
  e.count = count;
  e.selectors = std::move(selectors);
  return e;
}

ClaimSpec OneRequest(const std::string& name, ExactRequest e) {
  ClaimSpec spec;
  spec.requests.push_back(DeviceRequest{name, {std::move(e)}, false});
  return spec;
}

std::vector<std::string> Names(const DeviceUse& use, const std::vector<DevicePick>& picks) {
  std::vector<std::string> out;
  for (const DevicePick& p : picks)
    out.push_back(use.devices().pools[p.ref.pool].devices[p.ref.device].name);
  return out;
}

absl::StatusOr<std::vector<std::vector<DevicePick>>> Run(
    const std::vector<const ClaimSpec*>& claims, const DeviceUse& use) {
  static const DeviceClasses classes = Classes();
  MatchCache cache;
  return Allocate(AllocationRequest{claims, &classes}, use, &cache);
}

TEST_CASE("An exact count takes the first free devices in order") {
  DeviceUse use(EightH100());
  const ClaimSpec two = OneRequest("gpu", Exact("gpu.nvidia.com", 2));
  auto picks = Run({&two}, use);
  REQUIRE(picks.ok());
  CHECK(Names(use, (*picks)[0]) == std::vector<std::string>{"gpu-0", "gpu-1"});
  use.Take((*picks)[0]);
  auto next = Run({&two}, use);
  REQUIRE(next.ok());
  CHECK(Names(use, (*next)[0]) == std::vector<std::string>{"gpu-2", "gpu-3"});
  CHECK(use.AllocatedDevices() == 2);
  use.Release((*picks)[0]);
  CHECK(use.AllocatedDevices() == 0);
}

TEST_CASE("Too few free devices is refused with how many are free") {
  DeviceUse use(EightH100());
  const ClaimSpec seven = OneRequest("gpu", Exact("gpu.nvidia.com", 7));
  auto picks = Run({&seven}, use);
  REQUIRE(picks.ok());
  use.Take((*picks)[0]);
  const ClaimSpec two = OneRequest("gpu", Exact("gpu.nvidia.com", 2));
  auto refused = Run({&two}, use);
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(refused.status().message()) ==
        "request gpu: 2 devices of class gpu.nvidia.com needed, 1 free");
}

TEST_CASE("A pod's claims are allocated together, backtracking across them") {
  DeviceUse use(EightH100());
  const ClaimSpec six = OneRequest("a", Exact("gpu.nvidia.com", 6));
  const ClaimSpec three = OneRequest("b", Exact("gpu.nvidia.com", 3));
  CHECK_FALSE(Run({&six, &three}, use).ok());
  const ClaimSpec two = OneRequest("b", Exact("gpu.nvidia.com", 2));
  auto picks = Run({&six, &two}, use);
  REQUIRE(picks.ok());
  CHECK((*picks)[1].size() == 2);
}

TEST_CASE("All takes every matching device, and none if one is in use") {
  DeviceUse use(EightH100());
  ExactRequest all = Exact("gpu.nvidia.com", 0);
  all.mode = AllocationMode::kAll;
  const ClaimSpec every = OneRequest("gpu", all);
  auto picks = Run({&every}, use);
  REQUIRE(picks.ok());
  CHECK((*picks)[0].size() == 8);
  const ClaimSpec one = OneRequest("x", Exact("gpu.nvidia.com", 1));
  use.Take((*Run({&one}, use))[0]);
  auto refused = Run({&every}, use);
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(refused.status().message()).find("all 8 devices") != std::string::npos);
}

TEST_CASE("firstAvailable falls back to the next sub-request in order") {
  DeviceUse use(EightH100());
  ClaimSpec spec;
  ExactRequest h200 =
      Exact("gpu.nvidia.com", 1,
            {Selector("device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H200'")});
  h200.name = "h200";
  ExactRequest h100 = Exact(
      "gpu.nvidia.com", 2,
      {Selector("device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA H100')")});
  h100.name = "h100";
  spec.requests.push_back(DeviceRequest{"gpu", {h200, h100}, true});
  auto picks = Run({&spec}, use);
  REQUIRE(picks.ok());
  REQUIRE((*picks)[0].size() == 2);
  CHECK((*picks)[0][0].request == "gpu/h100");
}

TEST_CASE("A selector no device matches is named in the refusal") {
  DeviceUse use(EightH100());
  const ClaimSpec spec = OneRequest(
      "gpu", Exact("gpu.nvidia.com", 1,
                   {Selector("device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H200'")}));
  auto refused = Run({&spec}, use);
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(refused.status().message()) ==
        "request gpu: no device of class gpu.nvidia.com matches "
        "`device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H200'`");
}

TEST_CASE("A selector that cannot be evaluated fails the request, naming the expression") {
  DeviceUse use(EightH100());
  const ClaimSpec runtime = OneRequest(
      "gpu",
      Exact("gpu.nvidia.com", 1, {Selector("device.attributes['gpu.nvidia.com'].uuid == 'x'")}));
  auto refused = Run({&runtime}, use);
  REQUIRE_FALSE(refused.ok());
  CHECK(
      std::string(refused.status().message())
          .find("selector `device.attributes['gpu.nvidia.com'].uuid == 'x'`: no such key: uuid") !=
      std::string::npos);
  const ClaimSpec syntax = OneRequest("gpu", Exact("gpu.nvidia.com", 1, {Selector("device.(")}));
  CHECK(std::string(Run({&syntax}, use).status().message()).find("selector `device.(`") !=
        std::string::npos);
  const ClaimSpec missing = OneRequest("gpu", Exact("tpu.example.com", 1));
  CHECK(std::string(Run({&missing}, use).status().message()) ==
        "request gpu: device class tpu.example.com does not exist");
}

TEST_CASE("matchAttribute keeps a request's devices in one NVLink domain") {
  DeviceUse use(EightH100());
  const ClaimSpec one = OneRequest("x", Exact("gpu.nvidia.com", 3));
  use.Take((*Run({&one}, use))[0]);  // gpu-0..2 taken: domain a has one left
  ClaimSpec pair = OneRequest("gpu", Exact("gpu.nvidia.com", 2));
  pair.constraints.push_back(DeviceConstraint{{"gpu"}, "gpu.nvidia.com/nvlinkDomain"});
  auto picks = Run({&pair}, use);
  REQUIRE(picks.ok());
  CHECK(Names(use, (*picks)[0]) == std::vector<std::string>{"gpu-4", "gpu-5"});
  ClaimSpec five = OneRequest("gpu", Exact("gpu.nvidia.com", 5));
  five.constraints.push_back(DeviceConstraint{{}, "gpu.nvidia.com/nvlinkDomain"});
  auto refused = Run({&five}, use);
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(refused.status().message())
            .find("no 5 devices of class gpu.nvidia.com share one value of "
                  "gpu.nvidia.com/nvlinkDomain") != std::string::npos);
}

TEST_CASE("MIG partitions share their GPU's counters") {
  DeviceUse use(MigGpu());
  auto profile = [](const std::string& p) {
    return Selector("device.attributes['gpu.nvidia.com'].profile == '" + p + "'");
  };
  const ClaimSpec small = OneRequest("mig", Exact("mig.nvidia.com", 1, {profile("1g.10gb")}));
  const ClaimSpec whole = OneRequest("mig", Exact("mig.nvidia.com", 1, {profile("7g.80gb")}));
  auto first = Run({&small}, use);
  REQUIRE(first.ok());
  use.Take((*first)[0]);
  auto refused = Run({&whole}, use);
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(refused.status().message()) ==
        "request mig: no free device of class mig.nvidia.com matches "
        "`device.attributes['gpu.nvidia.com'].profile == '7g.80gb'` (2 of the node's 8 devices "
        "are in use)");
  for (int i = 1; i < 7; ++i) {
    auto next = Run({&small}, use);
    REQUIRE(next.ok());
    use.Take((*next)[0]);
  }
  CHECK_FALSE(Run({&small}, use).ok());  // seven 1g partitions: the GPU is full
  CHECK(use.CounterUtilization() == Approx(7.0 / 8.0));
  use.Release((*first)[0]);
  CHECK(Run({&small}, use).ok());
}

TEST_CASE("Admin access reaches devices in use and takes nothing") {
  DeviceUse use(EightH100());
  ExactRequest all = Exact("gpu.nvidia.com", 0);
  all.mode = AllocationMode::kAll;
  const ClaimSpec every = OneRequest("gpu", all);
  use.Take((*Run({&every}, use))[0]);
  all.admin_access = true;
  const ClaimSpec monitor = OneRequest("monitor", all);
  auto picks = Run({&monitor}, use);
  REQUIRE(picks.ok());
  CHECK((*picks)[0].size() == 8);
  const size_t before = use.AllocatedDevices();
  use.Take((*picks)[0]);
  CHECK(use.AllocatedDevices() == before);
}

TEST_CASE("A tainted device is out unless the request tolerates its taint") {
  auto nd = std::make_shared<NodeDevices>(*EightH100());
  for (Device& d : nd->pools[0].devices)
    d.taints.push_back(DeviceTaint{"nvidia.com/xid", "79", "NoSchedule"});
  nd->pools[0].devices[7].taints.clear();
  DeviceUse use(nd);
  const ClaimSpec two = OneRequest("gpu", Exact("gpu.nvidia.com", 2));
  CHECK_FALSE(Run({&two}, use).ok());
  ExactRequest tolerant = Exact("gpu.nvidia.com", 2);
  tolerant.tolerations.push_back(DeviceToleration{"nvidia.com/xid", "Exists", "", ""});
  const ClaimSpec tolerating = OneRequest("gpu", tolerant);
  CHECK(Run({&tolerating}, use).ok());
}

}  // namespace
}  // namespace gpua::dra
