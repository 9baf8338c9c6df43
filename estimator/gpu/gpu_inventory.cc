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

// Where a setting was found, for errors: "annotation gpu-autoscaler.io/gpu-count".
struct Setting {
  std::string value;
  std::string source;
};

class InventoryReader {
 public:
  InventoryReader(const Labels& labels, const Labels& annotations, const ResourceList& allocatable,
                  absl::string_view what)
      : labels_(labels), annotations_(annotations), allocatable_(allocatable), what_(what) {}

  absl::StatusOr<std::optional<GpuInventory>> Read();

 private:
  // Our annotation first, then the labels in order.
  std::optional<Setting> Find(absl::string_view annotation,
                              std::initializer_list<absl::string_view> labels) const {
    const std::string key = absl::StrCat(kAnnotationPrefix, annotation);
    if (auto it = annotations_.find(key); it != annotations_.end()) {
      return Setting{it->second, absl::StrCat("annotation ", key)};
    }
    for (absl::string_view label : labels) {
      if (auto it = labels_.find(label); it != labels_.end()) {
        return Setting{it->second, absl::StrCat("label ", label)};
      }
    }
    return std::nullopt;
  }

  absl::Status Error(absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(what_, ": ", message));
  }

  absl::StatusOr<int64_t> Int(const std::optional<Setting>& s, int64_t fallback, int64_t min,
                              int64_t max) const {
    if (!s.has_value()) return fallback;
    int64_t v = 0;
    if (!absl::SimpleAtoi(s->value, &v) || v < min || v > max) {
      return Error(absl::StrCat(s->source, ": \"", s->value, "\" is not a whole number from ", min,
                                " to ", max));
    }
    return v;
  }

  // Whether allocatable has a GPU resource of this vendor (and kind, when given).
  bool HasGpuResource(GpuVendor vendor, std::optional<GpuResourceKind> kind = {}) const {
    for (const auto& [name, q] : allocatable_) {
      const std::optional<GpuResource> r = ClassifyGpuResource(name);
      if (r.has_value() && r->vendor == vendor && (!kind || r->kind == *kind)) return true;
    }
    return false;
  }

  int64_t Allocatable(absl::string_view name) const { return allocatable_.Get(name).Value(); }

  // The parts as they are read, before they make an inventory.
  struct Draft {
    GpuHardware hardware;
    GpuShares shares;
    bool mig = false;
    AmdPartitions amd;
  };

  absl::StatusOr<std::optional<GpuVendor>> Vendor() const;
  absl::Status ReadSharing(Draft& d) const;
  absl::StatusOr<MigPartitions> ReadMig(const Draft& d) const;
  absl::Status ReadAmd(Draft& d) const;
  absl::StatusOr<int> PhysicalCount(const Draft& d) const;
  absl::Status CheckAgainstAllocatable(const GpuInventory& inv) const;

  const Labels& labels_;
  const Labels& annotations_;
  const ResourceList& allocatable_;
  const std::string what_;
};

absl::StatusOr<std::optional<GpuVendor>> InventoryReader::Vendor() const {
  if (auto v = Find("gpu-vendor", {})) {
    if (v->value == "nvidia") return GpuVendor::kNvidia;
    if (v->value == "amd") return GpuVendor::kAmd;
    return Error(absl::StrCat(v->source, ": \"", v->value, "\" (expected nvidia or amd)"));
  }
  const bool nvidia_labels = std::any_of(labels_.begin(), labels_.end(), [](const auto& kv) {
    return absl::StartsWith(kv.first, "nvidia.com/gpu.") ||
           absl::StartsWith(kv.first, "nvidia.com/mig");
  });
  if (HasGpuResource(GpuVendor::kNvidia) || nvidia_labels ||
      labels_.contains("cloud.google.com/gke-accelerator") || Find("gpu-sharing", {})) {
    return GpuVendor::kNvidia;
  }
  if (HasGpuResource(GpuVendor::kAmd) || Find("amd-partition", {})) return GpuVendor::kAmd;
  return std::optional<GpuVendor>();
}

absl::Status InventoryReader::ReadSharing(Draft& d) const {
  std::optional<Setting> mode = Find("gpu-sharing", {"nvidia.com/gpu.sharing-strategy"});
  if (!mode.has_value()) {
    if (auto gke = Find("", {"cloud.google.com/gke-gpu-sharing-strategy"})) {
      mode = Setting{gke->value == "time-sharing" ? "time-slicing" : gke->value, gke->source};
    }
  }
  const std::optional<Setting> layouts =
      Find("mig-layouts", {"nvidia.com/mig.config", "cloud.google.com/gke-gpu-partition-size"});
  const bool mig_signs =
      (layouts.has_value() && layouts->value != "all-disabled") ||
      HasGpuResource(GpuVendor::kNvidia, GpuResourceKind::kMigSlice) ||
      std::any_of(labels_.begin(), labels_.end(), [](const auto& kv) {
        return absl::StartsWith(kv.first, "nvidia.com/mig-") && absl::EndsWith(kv.first, ".count");
      });
  const std::string value = mode.has_value() ? mode->value : "none";
  if (value != "none" && value != "time-slicing" && value != "mps" && value != "mig") {
    return Error(
        absl::StrCat(mode->source, ": \"", value, "\" (expected none, time-slicing, mps or mig)"));
  }
  // MIG devices may be time-sliced as well; MPS over MIG we do not model.
  d.mig = value == "mig" || (mig_signs && value != "mps");
  GpuShares& shares = d.shares;
  if (value == "time-slicing") shares.mode = ShareMode::kTimeSlicing;
  if (value == "mps") shares.mode = ShareMode::kMps;
  const std::string named = d.mig ? "mig" : value == "none" ? "exclusive" : value;
  const std::optional<Setting> replicas =
      Find("gpu-replicas",
           {"nvidia.com/gpu.replicas", "cloud.google.com/gke-max-shared-clients-per-gpu"});
  // MPS allows at most 48 clients per GPU; time-slicing has no such limit.
  GPUA_ASSIGN_OR_RETURN(const int64_t r,
                        Int(replicas, 1, 1, shares.mode == ShareMode::kMps ? 48 : 1024));
  shares.replicas = static_cast<int>(r);
  if (d.mig && shares.replicas > 1) shares.mode = ShareMode::kTimeSlicing;
  if (shares.mode != ShareMode::kExclusive && shares.replicas < 2) {
    return Error(absl::StrCat(named, " needs ",
                              replicas ? replicas->source : "gpu-autoscaler.io/gpu-replicas",
                              " of at least 2"));
  }
  if (shares.mode == ShareMode::kExclusive && !d.mig && shares.replicas != 1) {
    return Error(absl::StrCat(replicas->source, " is ", r, " but the GPUs are not shared"));
  }
  const auto flag = [&](absl::string_view annotation) {
    auto s = Find(annotation, {});
    return s.has_value() && absl::AsciiStrToLower(s->value) == "true";
  };
  shares.renamed =
      flag("gpu-renamed") || HasGpuResource(GpuVendor::kNvidia, GpuResourceKind::kSharedGpu) ||
      (HasGpuResource(GpuVendor::kNvidia, GpuResourceKind::kMigSlice) &&
       std::any_of(allocatable_.begin(), allocatable_.end(),
                   [](const auto& kv) { return absl::EndsWith(kv.first, ".shared"); }));
  shares.fail_requests_greater_than_one = flag("gpu-fail-requests-greater-than-one");
  return absl::OkStatus();
}

absl::StatusOr<MigPartitions> InventoryReader::ReadMig(const Draft& d) const {
  MigPartitions mig;
  absl::StatusOr<const MigModel*> model = FindMigModel(d.hardware.model);
  if (!model.ok()) return Error(absl::StrCat("MIG: ", model.status().message()));
  mig.model = *model;
  std::optional<Setting> strategy = Find("mig-strategy", {"nvidia.com/mig.strategy"});
  if (labels_.contains("cloud.google.com/gke-gpu-partition-size") && !strategy) {
    strategy = Setting{"single", "GKE"};
  }
  const std::string s = strategy ? strategy->value : "mixed";
  if (s != "single" && s != "mixed") {
    return Error(absl::StrCat(strategy->source, ": \"", s, "\" (expected single or mixed)"));
  }
  mig.mixed = s == "mixed";
  if (auto names = Find("mig-layouts", {"nvidia.com/mig.config"})) {
    for (absl::string_view name : absl::StrSplit(names->value, ',', absl::SkipWhitespace())) {
      name = absl::StripAsciiWhitespace(name);
      absl::StatusOr<MigLayout> layout = FindNamedLayout(**model, name);
      if (!layout.ok()) return Error(absl::StrCat(names->source, ": ", layout.status().message()));
      mig.layouts.push_back({std::string(name), *std::move(layout)});
    }
  } else if (auto size = Find("", {"cloud.google.com/gke-gpu-partition-size"})) {
    absl::StatusOr<MigLayout> layout = FindNamedLayout(**model, absl::StrCat("all-", size->value));
    if (!layout.ok()) return Error(absl::StrCat(size->source, ": ", layout.status().message()));
    mig.layouts.push_back({absl::StrCat("all-", size->value), *std::move(layout)});
  } else {
    // GPU Feature Discovery's per-node device counts: nvidia.com/mig-3g.40gb.count.
    MigLayout per_gpu;
    for (const auto& [key, value] : labels_) {
      absl::string_view profile = key;
      if (!absl::ConsumePrefix(&profile, "nvidia.com/mig-") ||
          !absl::ConsumeSuffix(&profile, ".count")) {
        continue;
      }
      GPUA_ASSIGN_OR_RETURN(const int64_t n,
                            Int(Setting{value, absl::StrCat("label ", key)}, 0, 0, 1 << 20));
      if (d.hardware.count <= 0 || n % d.hardware.count != 0) {
        return Error(absl::StrCat("label ", key, ": ", n, " devices do not split evenly over ",
                                  d.hardware.count, " GPU(s)"));
      }
      const std::string name = absl::StrReplaceAll(profile, {{".me", "+me"}});
      per_gpu.insert(per_gpu.end(), static_cast<size_t>(n / d.hardware.count), name);
    }
    if (per_gpu.empty()) {
      return Error(
          "a MIG pool needs its layout: annotation gpu-autoscaler.io/mig-layouts, "
          "label nvidia.com/mig.config or nvidia.com/mig-<profile>.count labels");
    }
    mig.layouts.push_back({"labelled", std::move(per_gpu)});
  }
  for (const NamedMigLayout& l : mig.layouts) {
    if (absl::Status v = ValidateLayout(**model, l.per_gpu); !v.ok()) {
      return Error(absl::StrCat("MIG layout ", l.name, ": ", v.message()));
    }
  }
  return mig;
}

absl::Status InventoryReader::ReadAmd(Draft& d) const {
  static const std::map<std::string, int> kPartitions = {
      {"spx", 1}, {"dpx", 2}, {"qpx", 4}, {"cpx", 8}};
  auto partition = Find("amd-partition", {});
  std::string mode = partition ? absl::AsciiStrToLower(partition->value) : "";
  std::string memory = "nps1";
  if (auto m = Find("amd-memory-partition", {})) memory = absl::AsciiStrToLower(m->value);
  for (const auto& [name, q] : allocatable_) {  // amd.com/cpx_nps4: mixed naming
    if (ClassifyGpuResource(name) != GpuResource{GpuVendor::kAmd, GpuResourceKind::kAmdPartition}) {
      continue;
    }
    absl::string_view rest = name;
    absl::ConsumePrefix(&rest, "amd.com/");
    std::vector<std::string> parts = absl::StrSplit(rest, '_');
    if (parts.size() == 2 && kPartitions.contains(parts[0])) {
      mode = parts[0];
      memory = parts[1];
      d.amd.resource = std::string(rest);
    }
  }
  if (auto naming = Find("amd-naming", {}); naming && naming->value == "mixed") {
    d.amd.resource = absl::StrCat(mode.empty() ? "spx" : mode, "_", memory);
  }
  if (mode.empty()) mode = "spx";
  auto it = kPartitions.find(mode);
  if (it == kPartitions.end()) {
    return Error(
        absl::StrCat(partition->source, ": \"", mode, "\" (expected spx, dpx, qpx or cpx)"));
  }
  d.amd.per_gpu = it->second;
  return absl::OkStatus();
}

absl::StatusOr<int> InventoryReader::PhysicalCount(const Draft& d) const {
  if (auto count = Find("gpu-count", {"nvidia.com/gpu.count"})) {
    GPUA_ASSIGN_OR_RETURN(const int64_t n, Int(count, 0, 1, 1024));
    return static_cast<int>(n);
  }
  // From what is advertised: only plain resources divide back into physical GPUs.
  int64_t advertised = 0;
  int per_gpu = 1;
  if (d.hardware.vendor == GpuVendor::kAmd) {
    advertised = d.amd.resource.empty() ? Allocatable(kAmdGpu)
                                        : Allocatable(absl::StrCat("amd.com/", d.amd.resource));
    per_gpu = d.amd.per_gpu;
  } else if (!d.mig) {
    advertised = Allocatable(d.shares.renamed ? "nvidia.com/gpu.shared" : kNvidiaGpu);
    per_gpu = d.shares.replicas;
  }
  if (advertised <= 0 || advertised % per_gpu != 0) {
    return Error("cannot tell how many GPUs it has: set annotation gpu-autoscaler.io/gpu-count");
  }
  return static_cast<int>(advertised / per_gpu);
}

absl::Status InventoryReader::CheckAgainstAllocatable(const GpuInventory& inv) const {
  if (inv.reconfigurable()) return absl::OkStatus();  // the layout is chosen per node
  const ResourceList expected = inv.Advertised(inv.LayoutNamed(""));
  for (const auto& [name, q] : allocatable_) {
    const std::optional<GpuResource> r = ClassifyGpuResource(name);
    if (!r.has_value() || r->vendor != inv.vendor()) continue;
    if (expected.Get(name) != q) {
      return Error(absl::StrCat(
          "allocatable ", name, " is ", q.ToString(), " but its GPU labels say ",
          expected.Get(name).ToString(), " (", inv.physical_count(), " ", inv.model(), ", ",
          GpuSharingName(inv.sharing()),
          inv.shares().replicas > 1 ? absl::StrCat(" x", inv.shares().replicas) : "", ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<GpuInventory>> InventoryReader::Read() {
  GPUA_ASSIGN_OR_RETURN(std::optional<GpuVendor> vendor, Vendor());
  if (!vendor.has_value()) return std::optional<GpuInventory>();
  Draft d;
  d.hardware.vendor = *vendor;
  if (auto model =
          Find("gpu-model", {"nvidia.com/gpu.product", "cloud.google.com/gke-accelerator"})) {
    d.hardware.model = model->value;
  }
  if (d.hardware.vendor == GpuVendor::kAmd) {
    GPUA_RETURN_IF_ERROR(ReadAmd(d));
  } else {
    GPUA_RETURN_IF_ERROR(ReadSharing(d));
  }
  GPUA_ASSIGN_OR_RETURN(d.hardware.count, PhysicalCount(d));
  GpuPartitioning partitioning = WholeGpus{};
  if (d.mig) {
    GPUA_ASSIGN_OR_RETURN(partitioning, ReadMig(d));
  } else if (d.amd.per_gpu > 1 || !d.amd.resource.empty()) {
    partitioning = d.amd;
  }
  GPUA_ASSIGN_OR_RETURN(d.hardware.memory_mib,
                        Int(Find("gpu-memory-mib", {"nvidia.com/gpu.memory"}), 0, 0, 1 << 30));
  if (auto driver = Find("driver-version", {"nvidia.com/cuda.driver-version.full"})) {
    d.hardware.driver_version = driver->value;
  }
  GpuInventory inv(std::move(d.hardware), std::move(partitioning), d.shares);
  GPUA_RETURN_IF_ERROR(CheckAgainstAllocatable(inv));
  return std::optional<GpuInventory>(std::move(inv));
}

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
  const auto shared_name = [&](std::string name) {
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

bool LabelsNameGpus(const Labels& labels) {
  return std::any_of(labels.begin(), labels.end(), [](const auto& kv) {
    return absl::StartsWith(kv.first, "nvidia.com/gpu.") ||
           absl::StartsWith(kv.first, "amd.com/gpu.") ||
           absl::StartsWith(kv.first, "beta.amd.com/gpu.");
  });
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

namespace {

// The controller reads each node's inventory several times a loop, and the nodes of a pool
// read alike; reading parses MIG layouts. So each thread remembers its successful readings,
// keyed by everything the reader may look at: the labels (less the hostname, which only
// makes every node's key differ), our annotations (InventoryReader reads no other) and
// allocatable. Errors are not remembered: they name `what`.
class InventoryMemo {
 public:
  static std::string Key(const Labels& labels, const Labels& annotations,
                         const ResourceList& allocatable) {
    std::string key;
    const auto add = [&key](absl::string_view k, absl::string_view v) {
      absl::StrAppend(&key, k, "\x1f", v, "\x1e");
    };
    for (const auto& [k, v] : labels) {
      if (k != "kubernetes.io/hostname") add(k, v);
    }
    key += '\x1d';
    for (const auto& [k, v] : annotations) {
      if (absl::StartsWith(k, kAnnotationPrefix)) add(k, v);
    }
    key += '\x1d';
    for (const auto& [name, q] : allocatable) {
      const Quantity::Nanos nanos = q.nanos();
      absl::StrAppend(&key, name, "\x1f");
      key.append(reinterpret_cast<const char*>(&nanos), sizeof(nanos));
    }
    return key;
  }
  const std::optional<GpuInventory>* Find(const std::string& key) const {
    auto it = readings_.find(key);
    return it == readings_.end() ? nullptr : &it->second;
  }
  void Add(std::string key, const std::optional<GpuInventory>& reading) {
    if (readings_.size() >= kMaxReadings) readings_.clear();
    readings_.emplace(std::move(key), reading);
  }

 private:
  static constexpr size_t kMaxReadings = 4096;
  absl::flat_hash_map<std::string, std::optional<GpuInventory>> readings_;
};

}  // namespace

absl::StatusOr<std::optional<GpuInventory>> ReadGpuInventory(const Labels& labels,
                                                             const Labels& annotations,
                                                             const ResourceList& allocatable,
                                                             absl::string_view what) {
  thread_local InventoryMemo memo;
  std::string key = InventoryMemo::Key(labels, annotations, allocatable);
  if (const std::optional<GpuInventory>* known = memo.Find(key)) return *known;
  absl::StatusOr<std::optional<GpuInventory>> read =
      InventoryReader(labels, annotations, allocatable, what).Read();
  if (read.ok()) memo.Add(std::move(key), *read);
  return read;
}

}  // namespace gpua
