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

  absl::StatusOr<std::optional<GpuVendor>> Vendor() const;
  absl::Status ReadSharing(GpuInventory& inv) const;
  absl::Status ReadMig(GpuInventory& inv) const;
  absl::Status ReadAmd(GpuInventory& inv) const;
  absl::StatusOr<int> PhysicalCount(const GpuInventory& inv) const;
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

absl::Status InventoryReader::ReadSharing(GpuInventory& inv) const {
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
  if (value == "mig" || (mig_signs && (value == "none" || value == "time-slicing"))) {
    inv.sharing = GpuSharing::kMig;
  } else if (value == "time-slicing") {
    inv.sharing = GpuSharing::kTimeSlicing;
  } else if (value == "mps") {
    inv.sharing = GpuSharing::kMps;
  } else if (value != "none") {
    return Error(
        absl::StrCat(mode->source, ": \"", value, "\" (expected none, time-slicing, mps or mig)"));
  }
  const bool shared_mig = inv.sharing == GpuSharing::kMig && value == "time-slicing";
  const std::optional<Setting> replicas =
      Find("gpu-replicas",
           {"nvidia.com/gpu.replicas", "cloud.google.com/gke-max-shared-clients-per-gpu"});
  // MPS allows at most 48 clients per GPU; time-slicing has no such limit.
  GPUA_ASSIGN_OR_RETURN(const int64_t r,
                        Int(replicas, 1, 1, inv.sharing == GpuSharing::kMps ? 48 : 1024));
  inv.replicas = static_cast<int>(r);
  if ((inv.sharing == GpuSharing::kTimeSlicing || inv.sharing == GpuSharing::kMps || shared_mig) &&
      inv.replicas < 2) {
    return Error(absl::StrCat(GpuSharingName(inv.sharing), " needs ",
                              replicas ? replicas->source : "gpu-autoscaler.io/gpu-replicas",
                              " of at least 2"));
  }
  if (inv.sharing == GpuSharing::kExclusive && inv.replicas != 1) {
    return Error(absl::StrCat(replicas->source, " is ", r, " but the GPUs are not shared"));
  }
  const auto flag = [&](absl::string_view annotation) {
    auto s = Find(annotation, {});
    return s.has_value() && absl::AsciiStrToLower(s->value) == "true";
  };
  inv.renamed = flag("gpu-renamed") ||
                HasGpuResource(GpuVendor::kNvidia, GpuResourceKind::kSharedGpu) ||
                (HasGpuResource(GpuVendor::kNvidia, GpuResourceKind::kMigSlice) &&
                 std::any_of(allocatable_.begin(), allocatable_.end(),
                             [](const auto& kv) { return absl::EndsWith(kv.first, ".shared"); }));
  inv.fail_requests_greater_than_one = flag("gpu-fail-requests-greater-than-one");
  return absl::OkStatus();
}

absl::Status InventoryReader::ReadMig(GpuInventory& inv) const {
  absl::StatusOr<const MigModel*> model = FindMigModel(inv.model);
  if (!model.ok()) return Error(absl::StrCat("MIG: ", model.status().message()));
  inv.mig_model = *model;
  std::optional<Setting> strategy = Find("mig-strategy", {"nvidia.com/mig.strategy"});
  if (labels_.contains("cloud.google.com/gke-gpu-partition-size") && !strategy) {
    strategy = Setting{"single", "GKE"};
  }
  const std::string s = strategy ? strategy->value : "mixed";
  if (s != "single" && s != "mixed") {
    return Error(absl::StrCat(strategy->source, ": \"", s, "\" (expected single or mixed)"));
  }
  inv.mig_mixed = s == "mixed";
  if (auto names = Find("mig-layouts", {"nvidia.com/mig.config"})) {
    for (absl::string_view name : absl::StrSplit(names->value, ',', absl::SkipWhitespace())) {
      name = absl::StripAsciiWhitespace(name);
      absl::StatusOr<MigLayout> layout = FindNamedLayout(**model, name);
      if (!layout.ok()) return Error(absl::StrCat(names->source, ": ", layout.status().message()));
      inv.mig_layouts.push_back({std::string(name), *std::move(layout)});
    }
  } else if (auto size = Find("", {"cloud.google.com/gke-gpu-partition-size"})) {
    absl::StatusOr<MigLayout> layout = FindNamedLayout(**model, absl::StrCat("all-", size->value));
    if (!layout.ok()) return Error(absl::StrCat(size->source, ": ", layout.status().message()));
    inv.mig_layouts.push_back({absl::StrCat("all-", size->value), *std::move(layout)});
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
      if (inv.physical_count <= 0 || n % inv.physical_count != 0) {
        return Error(absl::StrCat("label ", key, ": ", n, " devices do not split evenly over ",
                                  inv.physical_count, " GPU(s)"));
      }
      const std::string name = absl::StrReplaceAll(profile, {{".me", "+me"}});
      per_gpu.insert(per_gpu.end(), static_cast<size_t>(n / inv.physical_count), name);
    }
    if (per_gpu.empty()) {
      return Error(
          "a MIG pool needs its layout: annotation gpu-autoscaler.io/mig-layouts, "
          "label nvidia.com/mig.config or nvidia.com/mig-<profile>.count labels");
    }
    inv.mig_layouts.push_back({"labelled", std::move(per_gpu)});
  }
  for (const NamedMigLayout& l : inv.mig_layouts) {
    if (absl::Status v = ValidateLayout(**model, l.per_gpu); !v.ok()) {
      return Error(absl::StrCat("MIG layout ", l.name, ": ", v.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status InventoryReader::ReadAmd(GpuInventory& inv) const {
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
      inv.amd_partition_resource = std::string(rest);
    }
  }
  if (auto naming = Find("amd-naming", {}); naming && naming->value == "mixed") {
    inv.amd_partition_resource = absl::StrCat(mode.empty() ? "spx" : mode, "_", memory);
  }
  if (mode.empty()) mode = "spx";
  auto it = kPartitions.find(mode);
  if (it == kPartitions.end()) {
    return Error(
        absl::StrCat(partition->source, ": \"", mode, "\" (expected spx, dpx, qpx or cpx)"));
  }
  inv.amd_partitions = it->second;
  if (inv.amd_partitions > 1 || !inv.amd_partition_resource.empty()) {
    inv.sharing = GpuSharing::kAmdPartition;
  }
  return absl::OkStatus();
}

absl::StatusOr<int> InventoryReader::PhysicalCount(const GpuInventory& inv) const {
  if (auto count = Find("gpu-count", {"nvidia.com/gpu.count"})) {
    GPUA_ASSIGN_OR_RETURN(const int64_t n, Int(count, 0, 1, 1024));
    return static_cast<int>(n);
  }
  // From what is advertised: only plain resources divide back into physical GPUs.
  int64_t advertised = 0;
  int per_gpu = 1;
  if (inv.vendor == GpuVendor::kAmd) {
    advertised = inv.amd_partition_resource.empty()
                     ? Allocatable(kAmdGpu)
                     : Allocatable(absl::StrCat("amd.com/", inv.amd_partition_resource));
    per_gpu = inv.amd_partitions;
  } else if (inv.sharing != GpuSharing::kMig) {
    advertised = Allocatable(inv.renamed ? "nvidia.com/gpu.shared" : kNvidiaGpu);
    per_gpu = inv.replicas;
  }
  if (advertised <= 0 || advertised % per_gpu != 0) {
    return Error("cannot tell how many GPUs it has: set annotation gpu-autoscaler.io/gpu-count");
  }
  return static_cast<int>(advertised / per_gpu);
}

absl::Status InventoryReader::CheckAgainstAllocatable(const GpuInventory& inv) const {
  if (inv.reconfigurable()) return absl::OkStatus();  // the layout is chosen per node
  const ResourceList expected =
      inv.Advertised(inv.LayoutNamed(""));
  for (const auto& [name, q] : allocatable_) {
    const std::optional<GpuResource> r = ClassifyGpuResource(name);
    if (!r.has_value() || r->vendor != inv.vendor) continue;
    if (expected.Get(name) != q) {
      return Error(absl::StrCat("allocatable ", name, " is ", q.ToString(),
                                " but its GPU labels say ", expected.Get(name).ToString(), " (",
                                inv.physical_count, " ", inv.model, ", ",
                                GpuSharingName(inv.sharing),
                                inv.replicas > 1 ? absl::StrCat(" x", inv.replicas) : "", ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<GpuInventory>> InventoryReader::Read() {
  GPUA_ASSIGN_OR_RETURN(std::optional<GpuVendor> vendor, Vendor());
  if (!vendor.has_value()) return std::optional<GpuInventory>();
  GpuInventory inv;
  inv.vendor = *vendor;
  if (auto model =
          Find("gpu-model", {"nvidia.com/gpu.product", "cloud.google.com/gke-accelerator"})) {
    inv.model = model->value;
  }
  if (inv.vendor == GpuVendor::kAmd) {
    GPUA_RETURN_IF_ERROR(ReadAmd(inv));
  } else {
    GPUA_RETURN_IF_ERROR(ReadSharing(inv));
  }
  GPUA_ASSIGN_OR_RETURN(inv.physical_count, PhysicalCount(inv));
  if (inv.sharing == GpuSharing::kMig) GPUA_RETURN_IF_ERROR(ReadMig(inv));
  GPUA_ASSIGN_OR_RETURN(inv.memory_mib,
                        Int(Find("gpu-memory-mib", {"nvidia.com/gpu.memory"}), 0, 0, 1 << 30));
  if (auto driver = Find("driver-version", {"nvidia.com/cuda.driver-version.full"})) {
    inv.driver_version = driver->value;
  }
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

ResourceList GpuInventory::Advertised(const NamedMigLayout* layout) const {
  ResourceList out;
  const std::string shared = renamed ? ".shared" : "";
  if (vendor == GpuVendor::kAmd) {
    const std::string name = amd_partition_resource.empty()
                                 ? std::string(kAmdGpu)
                                 : absl::StrCat("amd.com/", amd_partition_resource);
    out.Set(name, Quantity::FromUnits(int64_t{physical_count} * amd_partitions));
    return out;
  }
  if (sharing != GpuSharing::kMig || layout == nullptr) {
    const int64_t units = int64_t{physical_count} * replicas;
    out.Set(replicas > 1 ? absl::StrCat(kNvidiaGpu, shared) : std::string(kNvidiaGpu),
            Quantity::FromUnits(units));
    return out;
  }
  std::map<std::string, int64_t> per_resource;
  for (const std::string& profile : layout->per_gpu) {
    const std::string name = mig_mixed ? MigResourceName(profile) : std::string(kNvidiaGpu);
    per_resource[replicas > 1 ? absl::StrCat(name, shared) : name] +=
        int64_t{physical_count} * replicas;
  }
  for (const auto& [name, units] : per_resource) out.Set(name, Quantity::FromUnits(units));
  return out;
}

const std::vector<std::string>& GpuInventory::ResourceNames() const {
  return resource_names.Get([&] {
    std::vector<std::string> names;
    if (sharing == GpuSharing::kMig) {
      for (const NamedMigLayout& l : mig_layouts) {
        for (const auto& [name, q] : Advertised(&l)) names.push_back(name);
      }
    } else {
      for (const auto& [name, q] : Advertised()) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  });
}

namespace {

std::map<std::string, double> ComputeUnitShares(const GpuInventory& gpus,
                                                const NamedMigLayout* layout) {
  std::map<std::string, double> share;
  if (gpus.sharing == GpuSharing::kMig && layout != nullptr) {
    GpuInventory one = gpus;  // units and memory slices of a single GPU
    one.physical_count = 1;
    std::map<std::string, double> slices;
    for (const std::string& profile : layout->per_gpu) {
      const std::string name = gpus.mig_mixed ? MigResourceName(profile) : std::string(kNvidiaGpu);
      const double size = gpus.mig_model->Find(profile)->memory_slices;
      slices[gpus.replicas > 1 ? absl::StrCat(name, gpus.renamed ? ".shared" : "") : name] += size;
    }
    for (const auto& [name, units] : one.Advertised(layout)) {
      share[name] =
          slices[name] / static_cast<double>(units.Value()) / gpus.mig_model->memory_slices;
    }
    return share;
  }
  const double per_gpu = gpus.vendor == GpuVendor::kAmd ? gpus.amd_partitions : gpus.replicas;
  for (const auto& [name, units] : gpus.Advertised(layout)) share[name] = 1.0 / per_gpu;
  return share;
}

}  // namespace

int GpuInventory::LayoutIndex(const NamedMigLayout* layout) const {
  if (layout == nullptr) return -1;
  for (size_t i = 0; i < mig_layouts.size(); ++i) {
    if (&mig_layouts[i] == layout) return static_cast<int>(i);
  }
  return -2;
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
    if (!r.has_value() || r->vendor != vendor) out.Set(name, q);
  }
  return out;
}

const NamedMigLayout* GpuInventory::LayoutNamed(absl::string_view name) const {
  for (const NamedMigLayout& l : mig_layouts) {
    if (l.name == name) return &l;
  }
  return mig_layouts.empty() ? nullptr : &mig_layouts[0];
}

std::shared_ptr<const ResourceList> GpuInventory::SharedAdvertised(
    const NamedMigLayout* layout) const {
  const auto compute = [&] { return std::make_shared<const ResourceList>(Advertised(layout)); };
  const int index = LayoutIndex(layout);
  return index < -1 ? compute() : advertised.Get(index, compute);
}

GpuInventory::Shares GpuInventory::UnitShares(const NamedMigLayout* layout) const {
  const auto compute = [&] {
    return std::make_shared<const std::map<std::string, double>>(ComputeUnitShares(*this, layout));
  };
  const int index = LayoutIndex(layout);  // kept only for no layout or one of its own
  return index < -1 ? compute() : unit_shares.Get(index, compute);
}

double PhysicalGpuUtilization(const GpuInventory& gpus, const NamedMigLayout* layout,
                              const ResourceList& requested) {
  if (gpus.physical_count <= 0) return 0;
  double used = 0;
  for (const auto& [name, share] : *gpus.UnitShares(layout)) {
    used += static_cast<double>(requested.Get(name).Value()) * share;
  }
  return std::min(1.0, used / gpus.physical_count);
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
