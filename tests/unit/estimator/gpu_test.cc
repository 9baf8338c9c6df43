// GPU sharing: MIG geometry, how a pool's GPUs are read and advertised, the admission rules
// of shared GPUs, CUDA driver checks, and what the estimate makes of them.
#include <catch2/catch.hpp>

#include "estimator/gpu/cuda_compat.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/gpu/gpu_inventory_reader.h"
#include "estimator/gpu/gpu_predicates.h"
#include "estimator/gpu/mig_geometry.h"
#include "test_util.h"

namespace gpua {
namespace {

using testing::Pod;
using testing::Res;

const MigModel& Model(const std::string& name) { return **FindMigModel(name); }

TEST_CASE("MIG placement: which devices fit together on one GPU", "[gpu][mig]") {
  const MigModel& a100 = Model("A100-40GB");
  CHECK(ValidateLayout(a100, {"4g.20gb", "3g.20gb"}).ok());
  CHECK(!ValidateLayout(a100, {"4g.20gb", "4g.20gb"}).ok());
  CHECK(ValidateLayout(a100, MigLayout(7, "1g.5gb")).ok());
  CHECK_THAT(std::string(ValidateLayout(a100, MigLayout(8, "1g.5gb")).message()),
             Catch::Contains("at most 7 1g.5gb"));
  // 3g must take the upper half for two 2g to fit below it.
  CHECK(ValidateLayout(a100, {"3g.20gb", "2g.10gb", "2g.10gb"}).ok());
  CHECK(!ValidateLayout(a100, {"3g.20gb", "3g.20gb", "1g.5gb"}).ok());
  CHECK(ValidateLayout(a100, {"2g.10gb", "2g.10gb", "2g.10gb", "1g.5gb"}).ok());
  CHECK(!ValidateLayout(a100, {"7g.40gb", "1g.5gb"}).ok());
  CHECK(!ValidateLayout(a100, {"1g.5gb+me", "1g.5gb+me"}).ok());
  CHECK_THAT(std::string(ValidateLayout(a100, {"1g.10gb+me"}).message()),
             Catch::Contains("does not exist on A100-40GB"));
  const MigModel& a30 = Model("A30-24GB");
  CHECK(ValidateLayout(a30, {"2g.12gb", "2g.12gb"}).ok());
  CHECK(!ValidateLayout(a30, {"4g.24gb", "1g.6gb"}).ok());
}

TEST_CASE("every named layout of every model is valid, all-balanced is NVIDIA's", "[gpu][mig]") {
  for (const MigModel& m : MigModels()) {
    for (const NamedMigLayout& l : NamedLayouts(m)) {
      INFO(m.name << " " << l.name);
      CHECK(ValidateLayout(m, l.per_gpu).ok());
    }
  }
  CHECK(*FindNamedLayout(Model("H100-80GB"), "all-balanced") ==
        MigLayout{"1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb"});
  CHECK(*FindNamedLayout(Model("H200-141GB"), "all-1g.18gb") == MigLayout(7, "1g.18gb"));
}

TEST_CASE("GPU products map to their MIG geometry, the most specific name first", "[gpu][mig]") {
  CHECK((*FindMigModel("NVIDIA-H100-80GB-HBM3"))->name == "H100-80GB");
  CHECK((*FindMigModel("NVIDIA-H100-NVL"))->name == "H100-NVL-94GB");
  CHECK((*FindMigModel("NVIDIA-A100-SXM4-40GB"))->name == "A100-40GB");
  CHECK(FindMigModel("NVIDIA-L4").status().code() == absl::StatusCode::kNotFound);
  CHECK(MigResourceName("1g.10gb+me") == "nvidia.com/mig-1g.10gb.me");
}

GpuInventory Read(const Labels& labels, const Labels& annotations, const ResourceList& alloc) {
  auto inv = ReadGpuInventory(labels, annotations, alloc, "node group g: template");
  INFO((inv.ok() ? "" : std::string(inv.status().message())));
  REQUIRE(inv.ok());
  REQUIRE(inv->has_value());
  return **inv;
}

std::string ReadError(const Labels& labels, const Labels& annotations, const ResourceList& alloc) {
  auto inv = ReadGpuInventory(labels, annotations, alloc, "node group g: template");
  REQUIRE(!inv.ok());
  return std::string(inv.status().message());
}

TEST_CASE("time-slicing from GPU Feature Discovery labels: GPUs x replicas shares",
          "[gpu][inventory]") {
  const Labels gfd = {{"nvidia.com/gpu.product", "NVIDIA-L4"},
                      {"nvidia.com/gpu.count", "2"},
                      {"nvidia.com/gpu.replicas", "4"},
                      {"nvidia.com/gpu.sharing-strategy", "time-slicing"}};
  GpuInventory inv = Read(gfd, {}, Res({{"cpu", "16"}}));
  CHECK(inv.sharing() == GpuSharing::kTimeSlicing);
  CHECK(inv.Advertised() == Res({{"nvidia.com/gpu", "8"}}));
  inv = Read(gfd, {}, Res({{"nvidia.com/gpu.shared", "8"}}));
  CHECK(inv.shares().renamed);
  CHECK(inv.Advertised() == Res({{"nvidia.com/gpu.shared", "8"}}));
  // The labels say 8 shares; the template says 2: reported, not guessed.
  CHECK_THAT(ReadError(gfd, {}, Res({{"nvidia.com/gpu", "2"}})),
             Catch::Contains("node group g: template: allocatable nvidia.com/gpu is 2 but its GPU "
                             "labels say 8"));
  CHECK_THAT(ReadError({{"nvidia.com/gpu.sharing-strategy", "time-slicing"},
                        {"nvidia.com/gpu.count", "1"}},
                       {}, {}),
             Catch::Contains("time-slicing needs gpu-autoscaler.io/gpu-replicas of at least 2"));
}

TEST_CASE("our annotations describe a pool at zero and win over labels", "[gpu][inventory]") {
  GpuInventory inv = Read({{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}},
                          {{"gpu-autoscaler.io/gpu-count", "8"},
                           {"gpu-autoscaler.io/gpu-sharing", "mps"},
                           {"gpu-autoscaler.io/gpu-replicas", "4"},
                           {"gpu-autoscaler.io/gpu-memory-mib", "81920"},
                           {"gpu-autoscaler.io/driver-version", "550.54.15"}},
                          {});
  CHECK(inv.sharing() == GpuSharing::kMps);
  CHECK(inv.memory_mib() == 81920);
  CHECK(inv.Advertised() == Res({{"nvidia.com/gpu", "32"}}));
  CHECK_THAT(
      ReadError(
          {{"nvidia.com/gpu.count", "1"}},
          {{"gpu-autoscaler.io/gpu-sharing", "mps"}, {"gpu-autoscaler.io/gpu-replicas", "64"}}, {}),
      Catch::Contains("gpu-replicas: \"64\" is not a whole number from 1 to 48"));
  CHECK(Read({{"nvidia.com/gpu.count", "1"}},
             {{"gpu-autoscaler.io/gpu-sharing", "time-slicing"},
              {"gpu-autoscaler.io/gpu-replicas", "64"}},
             {})
            .shares()
            .replicas == 64);
  CHECK_THAT(ReadError({}, {{"gpu-autoscaler.io/gpu-sharing", "sometimes"}}, {}),
             Catch::Contains("annotation gpu-autoscaler.io/gpu-sharing: \"sometimes\""));
  CHECK_THAT(
      ReadError({}, {{"gpu-autoscaler.io/gpu-count", "lots"}}, Res({{"nvidia.com/gpu", "1"}})),
      Catch::Contains("gpu-autoscaler.io/gpu-count: \"lots\" is not a whole number"));
}

TEST_CASE("MIG pools advertise per profile (mixed) or as nvidia.com/gpu (single)",
          "[gpu][inventory][mig]") {
  const Labels h100 = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
                       {"nvidia.com/gpu.count", "8"}};
  GpuInventory mixed =
      Read(h100, {{"gpu-autoscaler.io/mig-layouts", "all-balanced"}}, Res({{"cpu", "190"}}));
  CHECK(mixed.sharing() == GpuSharing::kMig);
  CHECK(!mixed.reconfigurable());
  CHECK(mixed.Advertised(&mixed.mig_layouts()[0]) == Res({{"nvidia.com/mig-1g.10gb", "16"},
                                                          {"nvidia.com/mig-2g.20gb", "8"},
                                                          {"nvidia.com/mig-3g.40gb", "8"}}));
  Labels single_labels = h100;
  single_labels["nvidia.com/mig.strategy"] = "single";
  single_labels["nvidia.com/mig.config"] = "all-1g.10gb";
  GpuInventory single = Read(single_labels, {}, Res({{"nvidia.com/gpu", "56"}}));
  CHECK(!single.mig()->mixed);
  CHECK(single.Advertised(&single.mig_layouts()[0]) == Res({{"nvidia.com/gpu", "56"}}));
  // GPU Feature Discovery's device counts give the layout of a running node.
  Labels counted = h100;
  counted["nvidia.com/mig-3g.40gb.count"] = "16";
  GpuInventory from_counts = Read(counted, {}, Res({{"nvidia.com/mig-3g.40gb", "16"}}));
  CHECK(from_counts.mig_layouts()[0].per_gpu == MigLayout{"3g.40gb", "3g.40gb"});
  counted["nvidia.com/mig-4g.40gb.count"] = "8";
  CHECK_THAT(ReadError(counted, {}, {}), Catch::Contains("overlap"));
  CHECK_THAT(ReadError(h100, {{"gpu-autoscaler.io/mig-layouts", "all-9g.99gb"}}, {}),
             Catch::Contains("no MIG layout named \"all-9g.99gb\""));
  GpuInventory reconfigurable =
      Read(h100, {{"gpu-autoscaler.io/mig-layouts", "all-1g.10gb, all-3g.40gb, all-7g.80gb"}}, {});
  CHECK(reconfigurable.reconfigurable());
}

TEST_CASE("time-slicing on MIG devices and GKE's labels", "[gpu][inventory][mig]") {
  GpuInventory shared_mig = Read({{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"},
                                  {"nvidia.com/gpu.count", "2"},
                                  {"nvidia.com/gpu.sharing-strategy", "time-slicing"},
                                  {"nvidia.com/gpu.replicas", "2"},
                                  {"nvidia.com/mig.config", "all-3g.40gb"}},
                                 {{"gpu-autoscaler.io/gpu-renamed", "true"}}, {});
  CHECK(shared_mig.sharing() == GpuSharing::kMig);
  // Two axes: the GPUs are cut into MIG devices, and each device is time-sliced.
  REQUIRE(shared_mig.mig() != nullptr);
  CHECK(shared_mig.shares().mode == ShareMode::kTimeSlicing);
  CHECK(shared_mig.shares().replicas == 2);
  CHECK(shared_mig.Advertised(&shared_mig.mig_layouts()[0]) ==
        Res({{"nvidia.com/mig-3g.40gb.shared", "8"}}));
  // A 3g.40gb device is 4 of the A100's 8 memory slices; a unit is half a device.
  CHECK(shared_mig.UnitShares(&shared_mig.mig_layouts()[0])->at("nvidia.com/mig-3g.40gb.shared") ==
        Approx(0.25));
  GpuInventory gke = Read({{"cloud.google.com/gke-accelerator", "nvidia-tesla-a100"},
                           {"cloud.google.com/gke-gpu-partition-size", "1g.5gb"}},
                          {{"gpu-autoscaler.io/gpu-count", "1"}}, Res({{"nvidia.com/gpu", "7"}}));
  CHECK(!gke.mig()->mixed);
  CHECK(gke.Advertised(&gke.mig_layouts()[0]) == Res({{"nvidia.com/gpu", "7"}}));
  GpuInventory gke_ts = Read({{"cloud.google.com/gke-accelerator", "nvidia-l4"},
                              {"cloud.google.com/gke-gpu-sharing-strategy", "time-sharing"},
                              {"cloud.google.com/gke-max-shared-clients-per-gpu", "3"}},
                             {}, Res({{"nvidia.com/gpu", "6"}}));
  CHECK(gke_ts.sharing() == GpuSharing::kTimeSlicing);
  CHECK(gke_ts.physical_count() == 2);
}

TEST_CASE("AMD partitions: per logical GPU, named single or mixed", "[gpu][inventory][amd]") {
  GpuInventory cpx = Read({},
                          {{"gpu-autoscaler.io/gpu-vendor", "amd"},
                           {"gpu-autoscaler.io/gpu-count", "8"},
                           {"gpu-autoscaler.io/amd-partition", "cpx"}},
                          {});
  CHECK(cpx.Advertised() == Res({{"amd.com/gpu", "64"}}));
  GpuInventory mixed = Read({}, {}, Res({{"amd.com/cpx_nps4", "64"}}));
  CHECK(std::get<AmdPartitions>(mixed.partitioning()).per_gpu == 8);
  CHECK(mixed.physical_count() == 8);
  CHECK(mixed.Advertised() == Res({{"amd.com/cpx_nps4", "64"}}));
  const GpuInventory whole = Read({}, {}, Res({{"amd.com/gpu", "8"}}));
  CHECK(whole.sharing() == GpuSharing::kExclusive);
  CHECK(std::holds_alternative<WholeGpus>(whole.partitioning()));
  CHECK(whole.UnitShares()->at("amd.com/gpu") == 1.0);
}

TEST_CASE(
    "what a node of the pool offers: its own resources and the GPUs the inventory "
    "advertises, in the layout its label names",
    "[gpu][inventory][mig]") {
  const GpuInventory a100 =
      Read({{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}, {"nvidia.com/gpu.count", "1"}},
           {{"gpu-autoscaler.io/mig-layouts", "all-1g.10gb,all-7g.80gb"}}, {});
  // A template at zero lists the GPU as a whole; the node comes up in MIG devices.
  const ResourceList tmpl = Res({{"cpu", "32"}, {"nvidia.com/gpu", "1"}});
  CHECK(a100.NodeAllocatable(tmpl, "all-7g.80gb") ==
        Res({{"cpu", "32"}, {"nvidia.com/mig-7g.80gb", "1"}}));
  CHECK(a100.NodeAllocatable(tmpl, "all-1g.10gb") ==
        Res({{"cpu", "32"}, {"nvidia.com/mig-1g.10gb", "7"}}));
  // No layout label, or one the pool does not know: the pool's first layout.
  CHECK(a100.NodeAllocatable(tmpl, "") == a100.NodeAllocatable(tmpl, "all-1g.10gb"));
  CHECK(a100.LayoutNamed("all-2g.20gb")->name == "all-1g.10gb");
  CHECK(a100.ResourceNames() ==
        std::vector<std::string>{"nvidia.com/mig-1g.10gb", "nvidia.com/mig-7g.80gb"});
  // Copies are of one reading: the advertised lists are shared, not worked out again.
  const GpuInventory copy = a100;
  CHECK(copy.SharedAdvertised(&a100.mig_layouts()[1]) ==
        a100.SharedAdvertised(&a100.mig_layouts()[1]));
}

TEST_CASE("shared GPUs refuse what the device plugin would refuse at admission",
          "[gpu][predicates]") {
  GpuInventory ts = Read({{"nvidia.com/gpu.count", "1"}},
                         {{"gpu-autoscaler.io/gpu-sharing", "time-slicing"},
                          {"gpu-autoscaler.io/gpu-replicas", "4"},
                          {"gpu-autoscaler.io/gpu-fail-requests-greater-than-one", "true"}},
                         {});
  PodSpec two = Pod("two", Res({{"nvidia.com/gpu", "2"}}));
  two.largest_container_request = two.requests;
  CHECK_THAT(*CheckGpuFit(two, ts, {}), Catch::Contains("failRequestsGreaterThanOne"));
  PodSpec one = Pod("one", Res({{"nvidia.com/gpu", "1"}}));
  one.largest_container_request = one.requests;
  CHECK(!CheckGpuFit(one, ts, {}));

  GpuInventory mps =
      Read({{"nvidia.com/gpu.count", "1"}, {"nvidia.com/gpu.memory", "81920"}},
           {{"gpu-autoscaler.io/gpu-sharing", "mps"}, {"gpu-autoscaler.io/gpu-replicas", "4"}}, {});
  one.gpu_memory_mib = 30 * 1024;
  CHECK_THAT(*CheckGpuFit(one, mps, {}),
             Catch::Contains("needs 30720 MiB of GPU memory; an MPS share of a 81920 MiB GPU split "
                             "4 ways has 20480 MiB"));
  one.gpu_memory_mib = 16 * 1024;
  CHECK(!CheckGpuFit(one, mps, {}));
  CHECK_THAT(*CheckGpuFit(two, mps, {}), Catch::Contains("MPS GPUs take one share per container"));
}

TEST_CASE("a driver too old for the pod's CUDA is refused with the driver it needs",
          "[gpu][cuda]") {
  CHECK(**CheckDriver("535.104.05", "12.4", false) ==
        "driver 535.104.05 too old for CUDA 12.4 (needs >= 550.54.14)");
  CHECK(!CheckDriver("550.54.14", "12.4", false)->has_value());
  CHECK(!CheckDriver("535.104.05", "12.4", true)->has_value());  // minor version compatibility
  CHECK(**CheckDriver("575.51.03", "13.0", true) ==
        "driver 575.51.03 too old for CUDA 13.0 (needs >= 580)");
  CHECK(*MinimumDriver("12.7", false) == "570.26");  // the next release's driver
  CHECK(!CheckDriver("535", "twelve", false).ok());
}

TEST_CASE("GPU utilization is measured in physical GPUs, whatever the sharing",
          "[gpu][utilization]") {
  GpuInventory ts = Read(
      {{"nvidia.com/gpu.count", "2"}},
      {{"gpu-autoscaler.io/gpu-sharing", "time-slicing"}, {"gpu-autoscaler.io/gpu-replicas", "4"}},
      {});
  CHECK(PhysicalGpuUtilization(ts, nullptr, Res({{"cpu", "2"}})) == 0);  // idle GPU node
  CHECK(PhysicalGpuUtilization(ts, nullptr, Res({{"nvidia.com/gpu", "4"}})) == Approx(0.5));
  GpuInventory mig =
      Read({{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}, {"nvidia.com/gpu.count", "8"}},
           {{"gpu-autoscaler.io/mig-layouts", "all-balanced"}}, {});
  // Two 3g devices are 4/8 of a GPU each: one GPU of eight.
  CHECK(PhysicalGpuUtilization(mig, &mig.mig_layouts()[0],
                               Res({{"nvidia.com/mig-3g.40gb", "2"}})) == Approx(1.0 / 8));
  CHECK(PhysicalGpuUtilization(mig, &mig.mig_layouts()[0], {}) == 0);
}

NodeGroupSpec SharedL4Pool(const std::string& id, int replicas) {
  NodeGroupSpec g =
      testing::Group(id, Res({{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "110"}}), 10, 1.0);
  g.node_template.labels = {{"nvidia.com/gpu.product", "NVIDIA-L4"}, {"nvidia.com/gpu.count", "1"}};
  if (replicas > 1) {
    g.node_template.labels["nvidia.com/gpu.sharing-strategy"] = "time-slicing";
    g.node_template.labels["nvidia.com/gpu.replicas"] = std::to_string(replicas);
  }
  return g;
}

TEST_CASE("four pods asking for one time-sliced share each need one GPU, not four nodes",
          "[gpu][estimate]") {
  std::vector<PodSpec> pods;
  for (int i = 0; i < 4; ++i)
    pods.push_back(
        Pod("infer-" + std::to_string(i), Res({{"cpu", "1"}, {"nvidia.com/gpu", "1"}}), "infer"));
  ScaleUpPlan shared = testing::Plan(pods, {SharedL4Pool("l4-shared", 4)});
  REQUIRE(shared.groups.size() == 1);
  CHECK(shared.groups[0].new_nodes() == 1);
  ScaleUpPlan exclusive = testing::Plan(pods, {SharedL4Pool("l4", 1)});
  CHECK(exclusive.groups[0].new_nodes() == 4);
}

TEST_CASE("a reconfigurable MIG pool gives each new node the layout its pods need",
          "[gpu][estimate][mig]") {
  NodeGroupSpec pool = testing::Group("h100-mig", Res({{"cpu", "190"}, {"pods", "110"}}), 10, 40);
  pool.node_template.labels = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
                               {"nvidia.com/gpu.count", "8"}};
  pool.node_template.annotations = {
      {"gpu-autoscaler.io/mig-layouts", "all-1g.10gb,all-3g.40gb,all-7g.80gb"}};
  std::vector<PodSpec> pods;
  for (int i = 0; i < 16; ++i) {
    pods.push_back(Pod("m-" + std::to_string(i), Res({{"nvidia.com/mig-3g.40gb", "1"}}), "m"));
  }
  pods.push_back(Pod("big", Res({{"nvidia.com/mig-7g.80gb", "1"}}), "big"));
  ScaleUpPlan plan = testing::Plan(pods, {pool});
  REQUIRE(plan.groups.size() == 1);
  REQUIRE(plan.groups[0].new_nodes() == 2);
  CHECK(plan.groups[0].nodes[0].mig_layout == "all-7g.80gb");
  CHECK(plan.groups[0].nodes[1].mig_layout == "all-3g.40gb");
  CHECK(plan.groups[0].nodes[1].pods.size() == 16);
  CHECK(plan.unschedulable.empty());
}

TEST_CASE("a lone MIG pod opens a node whose spare slices serve every profile, not only its own",
          "[gpu][estimate][mig]") {
  NodeGroupSpec pool = testing::Group("h100-mig", Res({{"cpu", "190"}, {"pods", "110"}}), 10, 40);
  pool.node_template.labels = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
                               {"nvidia.com/gpu.count", "8"},
                               {"nvidia.com/mig.strategy", "mixed"}};
  pool.node_template.annotations = {
      {"gpu-autoscaler.io/mig-layouts", "all-1g.10gb,all-2g.20gb,all-3g.40gb,all-balanced"}};
  // One 1g notebook uses as much GPU on any layout; on all-1g.10gb the next 2g or 3g notebook
  // would need a node of its own.
  ScaleUpPlan one =
      testing::Plan({Pod("nb", Res({{"nvidia.com/mig-1g.10gb", "1"}}), "nb")}, {pool});
  REQUIRE(one.groups.size() == 1);
  REQUIRE(one.groups[0].new_nodes() == 1);
  CHECK(one.groups[0].nodes[0].mig_layout == "all-balanced");
  // Fifty 1g jobs use more GPU on all-1g.10gb (56 slices a node against 16): that layout wins.
  std::vector<PodSpec> batch;
  for (int i = 0; i < 50; ++i) {
    batch.push_back(Pod("b-" + std::to_string(i), Res({{"nvidia.com/mig-1g.10gb", "1"}}), "b"));
  }
  ScaleUpPlan many = testing::Plan(batch, {pool});
  REQUIRE(many.groups.size() == 1);
  REQUIRE(many.groups[0].new_nodes() == 1);
  CHECK(many.groups[0].nodes[0].mig_layout == "all-1g.10gb");
}

TEST_CASE("a pool whose GPU labels contradict its allocatable plans nothing and says why",
          "[gpu][estimate]") {
  NodeGroupSpec bad = SharedL4Pool("l4-bad", 4);
  bad.node_template.allocatable.Set("nvidia.com/gpu", Quantity::FromUnits(1));
  ScaleUpPlan plan = testing::Plan({Pod("p", Res({{"nvidia.com/gpu", "1"}}), "p")}, {bad});
  CHECK(plan.groups.empty());
  REQUIRE(plan.unschedulable.size() == 1);
  CHECK_THAT(plan.unschedulable[0].reasons->at("l4-bad"),
             Catch::Contains("node group l4-bad: template: allocatable nvidia.com/gpu is 1"));
}

TEST_CASE("a pod whose CUDA is too new for a pool's driver goes to a pool that runs it",
          "[gpu][estimate][cuda]") {
  NodeGroupSpec old_driver = SharedL4Pool("l4-535", 1);
  old_driver.node_template.labels["nvidia.com/cuda.driver-version.full"] = "535.104.05";
  old_driver.price_per_hour = 0.5;
  NodeGroupSpec new_driver = SharedL4Pool("l4-550", 1);
  new_driver.node_template.labels["nvidia.com/cuda.driver-version.full"] = "550.90.07";
  PodSpec pod = Pod("cuda124", Res({{"nvidia.com/gpu", "1"}}), "c");
  pod.cuda_version = "12.4";
  ScaleUpPlan plan = testing::Plan({pod}, {old_driver, new_driver}, {}, "price");
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].group_id == "l4-550");
  pod.cuda_version = "13.0";
  plan = testing::Plan({pod}, {old_driver, new_driver});
  REQUIRE(plan.unschedulable.size() == 1);
  CHECK(plan.unschedulable[0].reasons->at("l4-535") ==
        "driver 535.104.05 too old for CUDA 13.0 (needs >= 580.65.06)");
}

TEST_CASE("free GPUs on a running node with too old a driver do not take a newer CUDA pod",
          "[gpu][estimate][cuda]") {
  Node old;
  old.name = "l4-old";
  old.labels = {{"nvidia.com/gpu.product", "NVIDIA-L4"},
                {"nvidia.com/gpu.count", "1"},
                {"nvidia.com/cuda.driver-version.full", "535.104.05"}};
  old.allocatable = Res({{"cpu", "8"}, {"nvidia.com/gpu", "1"}, {"pods", "110"}});
  NodeGroupSpec pool = SharedL4Pool("l4-550", 1);
  pool.node_template.labels["nvidia.com/cuda.driver-version.full"] = "550.90.07";
  PodSpec pod = Pod("cuda124", Res({{"nvidia.com/gpu", "1"}}), "c");
  pod.cuda_version = "12.4";
  ScaleUpPlan plan = testing::Plan({pod}, {pool}, {old});
  CHECK(plan.on_existing.empty());
  REQUIRE(plan.groups.size() == 1);
  pod.cuda_version = "12.2";
  plan = testing::Plan({pod}, {pool}, {old});
  CHECK(plan.on_existing.size() == 1);
}

}  // namespace
}  // namespace gpua
