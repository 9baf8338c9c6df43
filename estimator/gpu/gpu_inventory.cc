#include "estimator/gpu/gpu_inventory.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"

namespace gpua {
namespace {

constexpr absl::string_view kNvidiaGpu = "nvidia.com/gpu";
constexpr absl::string_view kAmdGpu = "amd.com/gpu";

}  // namespace

absl::string_view GpuSharingName(GpuSharing sharing) {
  switch (sharing) {
    case GpuSharing::kExclusive:
      return "exclusive";
    case GpuSharing::kTimeSlicing:
      return "time-slicing";
    case GpuSharing::kMps:
      return "mps";
    case GpuSharing::kMig:
      return "mig";
    case GpuSharing::kAmdPartition:
      return "partition";
  }
  return "unknown";
}

namespace {

// What `count` GPUs advertise, with `layout` for MIG ones: the device plugin's resources.
// One rule, used for a whole node and, with a count of 1, for one GPU's unit shares.
ResourceList AdvertisedBy(const GpuHardware& hw, int count, const GpuPartitioning& partitioning,
                          const GpuShares& shares, const NamedMigLayout* layout) {
  ResourceList out;
  if (const auto* amd = std::get_if<AmdPartitions>(&partitioning)) {
    const std::string name =
        amd->resource.empty() ? std::string(kAmdGpu) : absl::StrCat("amd.com/", amd->resource);
    out.Set(name, Quantity::FromUnits(int64_t{count} * amd->per_gpu));
    return out;
  }
  if (hw.vendor == GpuVendor::kAmd) {
    out.Set(kAmdGpu, Quantity::FromUnits(count));
    return out;
  }
  const auto shared_name = [&](const std::string& name) {
    return shares.replicas > 1 ? absl::StrCat(name, shares.renamed ? ".shared" : "") : name;
  };
  const int64_t units_per_device = int64_t{count} * shares.replicas;
  const auto* mig = std::get_if<MigPartitions>(&partitioning);
  if (mig == nullptr || layout == nullptr) {
    out.Set(shared_name(std::string(kNvidiaGpu)), Quantity::FromUnits(units_per_device));
    return out;
  }
  std::map<std::string, int64_t> per_resource;
  for (const std::string& profile : layout->per_gpu) {
    per_resource[shared_name(mig->mixed ? MigResourceName(profile) : std::string(kNvidiaGpu))] +=
        units_per_device;
  }
  for (const auto& [name, units] : per_resource) out.Set(name, Quantity::FromUnits(units));
  return out;
}

// Per advertised resource, the part of one physical GPU a unit stands for.
std::map<std::string, double> UnitSharesBy(const GpuHardware& hw,
                                           const GpuPartitioning& partitioning,
                                           const GpuShares& shares, const NamedMigLayout* layout) {
  std::map<std::string, double> share;
  const ResourceList one_gpu = AdvertisedBy(hw, 1, partitioning, shares, layout);
  const auto* mig = std::get_if<MigPartitions>(&partitioning);
  if (mig != nullptr && layout != nullptr) {
    // A unit of a MIG resource: its devices' memory slices over the units they advertise.
    std::map<std::string, double> slices;
    for (const std::string& profile : layout->per_gpu) {
      const std::string name = mig->mixed ? MigResourceName(profile) : std::string(kNvidiaGpu);
      const double size = mig->model->Find(profile)->memory_slices;
      slices[shares.replicas > 1 ? absl::StrCat(name, shares.renamed ? ".shared" : "") : name] +=
          size;
    }
    for (const auto& [name, units] : one_gpu) {
      share[name] = slices[name] / static_cast<double>(units.Value()) / mig->model->memory_slices;
    }
    return share;
  }
  for (const auto& [name, units] : one_gpu) share[name] = 1.0 / static_cast<double>(units.Value());
  return share;
}

const std::vector<NamedMigLayout>& NoLayouts() {
  static const std::vector<NamedMigLayout> kNone;
  return kNone;
}

}  // namespace

GpuInventory::GpuInventory(GpuHardware hardware, GpuPartitioning partitioning, GpuShares shares) {
  auto body = std::make_shared<Body>();
  body->hardware = std::move(hardware);
  body->partitioning = std::move(partitioning);
  body->shares = shares;
  std::vector<const NamedMigLayout*> slots = {nullptr};
  if (const auto* mig = std::get_if<MigPartitions>(&body->partitioning)) {
    for (const NamedMigLayout& l : mig->layouts) slots.push_back(&l);
  }
  for (const NamedMigLayout* layout : slots) {
    const auto advertised = std::make_shared<const ResourceList>(AdvertisedBy(
        body->hardware, body->hardware.count, body->partitioning, body->shares, layout));
    body->advertised.push_back(advertised);
    body->unit_shares.push_back(std::make_shared<const std::map<std::string, double>>(
        UnitSharesBy(body->hardware, body->partitioning, body->shares, layout)));
    // A MIG pod asks for its layouts' resources; the no-layout slot is not a node's.
    if (layout == nullptr && slots.size() > 1) continue;
    for (const auto& [name, q] : *advertised) body->resource_names.push_back(name);
  }
  std::sort(body->resource_names.begin(), body->resource_names.end());
  body->resource_names.erase(std::unique(body->resource_names.begin(), body->resource_names.end()),
                             body->resource_names.end());
  body_ = std::move(body);
}

GpuSharing GpuInventory::sharing() const {
  if (mig() != nullptr) return GpuSharing::kMig;
  if (std::holds_alternative<AmdPartitions>(body_->partitioning)) {
    return GpuSharing::kAmdPartition;
  }
  switch (body_->shares.mode) {
    case ShareMode::kTimeSlicing:
      return GpuSharing::kTimeSlicing;
    case ShareMode::kMps:
      return GpuSharing::kMps;
    case ShareMode::kExclusive:
      break;
  }
  return GpuSharing::kExclusive;
}

const std::vector<NamedMigLayout>& GpuInventory::mig_layouts() const {
  const MigPartitions* m = mig();
  return m == nullptr ? NoLayouts() : m->layouts;
}

std::optional<size_t> GpuInventory::SlotOf(const NamedMigLayout* layout) const {
  if (layout == nullptr) return 0;
  const std::vector<NamedMigLayout>& layouts = mig_layouts();
  for (size_t i = 0; i < layouts.size(); ++i) {
    if (&layouts[i] == layout) return i + 1;
  }
  return std::nullopt;
}

ResourceList GpuInventory::Advertised(const NamedMigLayout* layout) const {
  return *SharedAdvertised(layout);
}

std::shared_ptr<const ResourceList> GpuInventory::SharedAdvertised(
    const NamedMigLayout* layout) const {
  if (std::optional<size_t> slot = SlotOf(layout)) return body_->advertised[*slot];
  return std::make_shared<const ResourceList>(AdvertisedBy(
      body_->hardware, body_->hardware.count, body_->partitioning, body_->shares, layout));
}

GpuInventory::Shares GpuInventory::UnitShares(const NamedMigLayout* layout) const {
  if (std::optional<size_t> slot = SlotOf(layout)) return body_->unit_shares[*slot];
  return std::make_shared<const std::map<std::string, double>>(
      UnitSharesBy(body_->hardware, body_->partitioning, body_->shares, layout));
}

ResourceList GpuInventory::WithoutGpus(const ResourceList& allocatable) const {
  ResourceList out;
  for (const auto& [name, q] : allocatable) {
    const std::optional<GpuResource> r = ClassifyGpuResource(name);
    if (!r.has_value() || r->vendor != vendor()) out.Set(name, q);
  }
  return out;
}

const NamedMigLayout* GpuInventory::LayoutNamed(absl::string_view name) const {
  const std::vector<NamedMigLayout>& layouts = mig_layouts();
  for (const NamedMigLayout& l : layouts) {
    if (l.name == name) return &l;
  }
  return layouts.empty() ? nullptr : &layouts[0];
}

ResourceList GpuInventory::NodeAllocatable(const ResourceList& allocatable,
                                           absl::string_view mig_layout) const {
  return WithoutGpus(allocatable) + *SharedAdvertised(LayoutNamed(mig_layout));
}

double PhysicalGpuUtilization(const GpuInventory& gpus, const NamedMigLayout* layout,
                              const ResourceList& requested) {
  if (gpus.physical_count() <= 0) return 0;
  double used = 0;
  for (const auto& [name, share] : *gpus.UnitShares(layout)) {
    used += static_cast<double>(requested.Get(name).Value()) * share;
  }
  return std::min(1.0, used / gpus.physical_count());
}

}  // namespace gpua
