// The one rule for "is this resource a GPU?", pinned name by name.
#include "estimator/gpu/gpu_resource.h"

#include <catch2/catch.hpp>

namespace gpua {
namespace {

TEST_CASE("every GPU resource name is recognised with its vendor and kind", "[gpu][resource]") {
  struct Case {
    const char* name;
    GpuVendor vendor;
    GpuResourceKind kind;
  };
  const Case cases[] = {
      {"nvidia.com/gpu", GpuVendor::kNvidia, GpuResourceKind::kWholeGpu},
      {"nvidia.com/gpu.shared", GpuVendor::kNvidia, GpuResourceKind::kSharedGpu},
      {"nvidia.com/mig-1g.10gb", GpuVendor::kNvidia, GpuResourceKind::kMigSlice},
      {"nvidia.com/mig-3g.40gb", GpuVendor::kNvidia, GpuResourceKind::kMigSlice},
      {"nvidia.com/mig-1g.6gb.me", GpuVendor::kNvidia, GpuResourceKind::kMigSlice},
      {"nvidia.com/mig-1g.10gb.shared", GpuVendor::kNvidia, GpuResourceKind::kMigSlice},
      {"nvidia.com/mig-1c.3g.40gb", GpuVendor::kNvidia, GpuResourceKind::kMigSlice},
      {"amd.com/gpu", GpuVendor::kAmd, GpuResourceKind::kWholeGpu},
      {"amd.com/cpx_nps4", GpuVendor::kAmd, GpuResourceKind::kAmdPartition},
      {"amd.com/dpx_nps1", GpuVendor::kAmd, GpuResourceKind::kAmdPartition},
      {"gpu.intel.com/i915", GpuVendor::kIntel, GpuResourceKind::kWholeGpu},
      {"gpu.intel.com/xe", GpuVendor::kIntel, GpuResourceKind::kWholeGpu},
      {"habana.ai/gaudi", GpuVendor::kHabana, GpuResourceKind::kWholeGpu},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::optional<GpuResource> r = ClassifyGpuResource(c.name);
    REQUIRE(r.has_value());
    CHECK(r->vendor == c.vendor);
    CHECK(r->kind == c.kind);
    CHECK(IsGpuResource(c.name));
  }
}

TEST_CASE("names that only look like GPUs are not GPUs", "[gpu][resource]") {
  for (const char* name :
       {"nvidia.com/foo", "example.com/gpu", "nvidia.com/gpu.product", "nvidia.com/gpux",
        "nvidia.com/mig-", "nvidia.com/mig-big", "nvidia.com/mig-1g", "amd.com/xilinx_u30",
        "amd.com/cpx", "gpu.intel.com/millicores", "gpu.intel.com/memory.max", "cpu", "memory",
        "pods", "ephemeral-storage", "hugepages-2Mi", ""}) {
    INFO(name);
    CHECK_FALSE(IsGpuResource(name));
  }
}

TEST_CASE("the GPU part of a list keeps exactly its GPU resources", "[gpu][resource]") {
  const ResourceList all = {{"cpu", Quantity::FromUnits(8)},
                            {"nvidia.com/gpu", Quantity::FromUnits(4)},
                            {"nvidia.com/foo", Quantity::FromUnits(1)},
                            {"habana.ai/gaudi", Quantity::FromUnits(8)}};
  const ResourceList gpus = GpuPart(all);
  CHECK(gpus.size() == 2);
  CHECK(gpus.Get("nvidia.com/gpu") == Quantity::FromUnits(4));
  CHECK(gpus.Get("habana.ai/gaudi") == Quantity::FromUnits(8));
}

}  // namespace
}  // namespace gpua
