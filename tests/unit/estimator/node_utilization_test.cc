// How used a node is, as scale-down judges it: GPU nodes by their GPUs, in physical GPUs;
// other nodes by the larger of cpu and memory.
#include "estimator/node_utilization.h"

#include <catch2/catch.hpp>

#include "estimator/gpu/gpu_inventory.h"
#include "estimator/gpu/gpu_inventory_reader.h"
#include "tests/unit/estimator/test_util.h"

namespace gpua {
namespace {

using testing::Pod;
using testing::Res;

GpuInventory Inventory(const Labels& labels, const Labels& annotations) {
  auto inv = ReadGpuInventory(labels, annotations, {}, "test node");
  REQUIRE(inv.ok());
  REQUIRE(inv->has_value());
  return **inv;
}

TEST_CASE("a GPU node whose GPU work has ended is idle, whatever small cpu pods remain",
          "[utilization][gpu]") {
  const GpuInventory h100 = Inventory(
      {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}, {"nvidia.com/gpu.count", "8"}}, {});
  const ResourceList alloc = Res({{"cpu", "190"}, {"memory", "1900Gi"}, {"nvidia.com/gpu", "8"}});
  const PodSpec logs = Pod("logs", Res({{"cpu", "150"}, {"memory", "64Gi"}}), "logs");
  const PodSpec train = Pod("train", Res({{"nvidia.com/gpu", "2"}}), "train");
  NodeUtilization u = ComputeUtilization(alloc, &h100, nullptr, {{&logs}}, false);
  CHECK(u.gpu_node);
  CHECK(u.cpu == Approx(150.0 / 190));
  CHECK(u.value() == 0);
  u = ComputeUtilization(alloc, &h100, nullptr, {{&logs}, {&train}}, false);
  CHECK(u.value() == Approx(0.25));
}

TEST_CASE("time-sliced shares and MIG slices count for the part of a GPU they use",
          "[utilization][gpu]") {
  const GpuInventory shared = Inventory(
      {{"nvidia.com/gpu.count", "2"}},
      {{"gpu-autoscaler.io/gpu-sharing", "time-slicing"}, {"gpu-autoscaler.io/gpu-replicas", "4"}});
  const PodSpec one_share = Pod("infer", Res({{"nvidia.com/gpu", "1"}}), "infer");
  CHECK(ComputeUtilization({}, &shared, nullptr, {{&one_share}}, false).value() == Approx(1.0 / 8));
  const GpuInventory mig = Inventory(
      {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}, {"nvidia.com/gpu.count", "8"}},
      {{"gpu-autoscaler.io/mig-layouts", "all-balanced"}});
  const PodSpec slice = Pod("nb", Res({{"nvidia.com/mig-3g.40gb", "2"}}), "nb");
  CHECK(ComputeUtilization({}, &mig, &mig.mig_layouts()[0], {{&slice}}, false).value() ==
        Approx(1.0 / 8));
}

TEST_CASE("a cpu node is as used as the larger of cpu and memory, DaemonSets as the group says",
          "[utilization]") {
  const ResourceList alloc = Res({{"cpu", "64"}, {"memory", "256Gi"}});
  const PodSpec api = Pod("api", Res({{"cpu", "16"}, {"memory", "128Gi"}}), "api");
  const PodSpec agent = Pod("agent", Res({{"cpu", "16"}}), "agent");
  NodeUtilization u =
      ComputeUtilization(alloc, nullptr, nullptr, {{&api}, {&agent, /*daemonset=*/true}}, false);
  CHECK_FALSE(u.gpu_node);
  CHECK(u.cpu == Approx(0.5));
  CHECK(u.value() == Approx(0.5));  // memory, 128 of 256
  u = ComputeUtilization(alloc, nullptr, nullptr, {{&api}, {&agent, true}}, true);
  CHECK(u.cpu == Approx(0.25));
}

TEST_CASE("pods with and without unusual resources are summed alike", "[utilization]") {
  const GpuInventory l4 =
      Inventory({{"nvidia.com/gpu.product", "NVIDIA-L4"}, {"nvidia.com/gpu.count", "4"}}, {});
  const ResourceList alloc = Res({{"cpu", "8"}, {"memory", "32Gi"}, {"nvidia.com/gpu", "4"}});
  const PodSpec plain = Pod("plain", Res({{"cpu", "2"}, {"nvidia.com/gpu", "1"}}), "a");
  const PodSpec odd = Pod("odd",
                          Res({{"cpu", "1500m"},
                               {"memory", "8Gi"},
                               {"nvidia.com/gpu", "2"},
                               {"example.com/fpga", "1"}}),
                          "b");
  const NodeUtilization u = ComputeUtilization(alloc, &l4, nullptr, {{&plain}, {&odd}}, false);
  CHECK(u.gpu == Approx(0.75));
  CHECK(u.cpu == Approx(3.5 / 8));
  CHECK(u.memory == Approx(0.25));
}

}  // namespace
}  // namespace gpua
