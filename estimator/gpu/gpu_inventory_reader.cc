#include "estimator/gpu/gpu_inventory_reader.h"

#include <algorithm>
#include <initializer_list>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "estimator/gpu/inventory_memo.h"

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

bool LabelsNameGpus(const Labels& labels) {
  return std::any_of(labels.begin(), labels.end(), [](const auto& kv) {
    return absl::StartsWith(kv.first, "nvidia.com/gpu.") ||
           absl::StartsWith(kv.first, "amd.com/gpu.") ||
           absl::StartsWith(kv.first, "beta.amd.com/gpu.");
  });
}

absl::StatusOr<std::optional<GpuInventory>> ReadGpuInventory(const Labels& labels,
                                                             const Labels& annotations,
                                                             const ResourceList& allocatable,
                                                             absl::string_view what) {
  thread_local InventoryMemo memo;
  std::string key = InventoryMemo::Key(labels, annotations, allocatable);
  if (const std::optional<GpuInventory>* known = memo.Find(key)) return *known;
  absl::StatusOr<std::optional<GpuInventory>> read =
      InventoryReader(labels, annotations, allocatable, what).Read();
  if (read.ok()) memo.Add(key, *read);
  return read;
}

}  // namespace gpua
