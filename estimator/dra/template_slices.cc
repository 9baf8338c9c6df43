#include "estimator/dra/template_slices.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "estimator/gpu/gpu_inventory_reader.h"
#include "estimator/gpu/gpu_resource.h"
#include "estimator/gpu/mig_geometry.h"

namespace gpua::dra {
namespace {

struct Generation {
  const char* product;  // a substring of the product name; the first match wins
  const char* architecture;
  const char* compute_capability;
};

// NVIDIA's published compute capabilities, most specific names first.
constexpr Generation kGenerations[] = {
    {"GB300", "Blackwell", "10.3.0"},  {"B300", "Blackwell", "10.3.0"},
    {"GB200", "Blackwell", "10.0.0"},  {"B200", "Blackwell", "10.0.0"},
    {"B100", "Blackwell", "10.0.0"},   {"RTX-PRO-6000", "Blackwell", "12.0.0"},
    {"H100", "Hopper", "9.0.0"},       {"H200", "Hopper", "9.0.0"},
    {"H800", "Hopper", "9.0.0"},       {"H20", "Hopper", "9.0.0"},
    {"L40S", "Ada Lovelace", "8.9.0"}, {"L40", "Ada Lovelace", "8.9.0"},
    {"L20", "Ada Lovelace", "8.9.0"},  {"L4", "Ada Lovelace", "8.9.0"},
    {"A100", "Ampere", "8.0.0"},       {"A800", "Ampere", "8.0.0"},
    {"A30", "Ampere", "8.0.0"},        {"A40", "Ampere", "8.6.0"},
    {"A10", "Ampere", "8.6.0"},        {"A16", "Ampere", "8.6.0"},
    {"T4", "Turing", "7.5.0"},         {"V100", "Volta", "7.0.0"},
};

// GPU feature discovery writes NVML's product name with dashes for spaces; where the name has
// dashes of its own, the table says how NVML writes it.
std::string NvmlProductName(const std::string& label) {
  static constexpr std::pair<const char*, const char*> kKnown[] = {
      {"NVIDIA-A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"},
      {"NVIDIA-A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB"},
      {"NVIDIA-A100-PCIE-40GB", "NVIDIA A100-PCIE-40GB"},
      {"Tesla-V100-SXM2-16GB", "Tesla V100-SXM2-16GB"},
      {"Tesla-V100-SXM2-32GB", "Tesla V100-SXM2-32GB"},
  };
  for (const auto& [gfd, nvml] : kKnown) {
    if (label == gfd) return nvml;
  }
  return absl::StrReplaceAll(label, {{"-", " "}});
}

const Generation* GenerationOf(const std::string& product) {
  const std::string upper = absl::AsciiStrToUpper(absl::StrReplaceAll(product, {{" ", "-"}}));
  for (const Generation& g : kGenerations) {
    if (absl::StrContains(upper, g.product)) return &g;
  }
  return nullptr;
}

Quantity Mib(int64_t mib) {
  return Quantity::FromUnits(mib * 1024 * 1024, QuantityFormat::kBinarySI);
}

// The attributes NVIDIA's driver gives a GPU and each of its MIG devices alike.
void CommonAttributes(const GpuHardware& hw, absl::flat_hash_map<std::string, AttributeValue>& a) {
  a["productName"] = NvmlProductName(hw.model);
  a["brand"] = std::string(absl::StartsWith(hw.model, "Tesla") ? "Tesla" : "Nvidia");
  if (const Generation* g = GenerationOf(hw.model)) {
    a["architecture"] = std::string(g->architecture);
    a["cudaComputeCapability"] = *cel::Semver::Parse(g->compute_capability);
  }
  if (absl::StatusOr<cel::Semver> v = cel::Semver::Parse(hw.driver_version); v.ok()) {
    a["driverVersion"] = *std::move(v);
  }
}

// "3g.40gb" -> 40 GiB; 0 when the name does not say.
int64_t ProfileMemoryMib(const std::string& profile) {
  const size_t dot = profile.find('.');
  const size_t gb = profile.find("gb");
  int64_t n = 0;
  if (dot == std::string::npos || gb == std::string::npos || gb <= dot ||
      !absl::SimpleAtoi(profile.substr(dot + 1, gb - dot - 1), &n)) {
    return 0;
  }
  return n * 1024;
}

void AddMigDevices(const GpuHardware& hw, const MigModel& model, int gpu, ResourceSlice& s) {
  const std::string set = absl::StrCat("gpu-", gpu, "-counter-set");
  CounterSet counters{set, {}};
  for (int m = 0; m < model.memory_slices; ++m) {
    counters.counters[absl::StrCat("memory-slice-", m)] = Quantity::FromUnits(1);
  }
  counters.counters["compute-slices"] = Quantity::FromUnits(model.compute_slices);
  counters.counters["media-extensions"] = Quantity::FromUnits(1);
  // The whole GPU takes every counter: while any partition is given, it cannot be.
  CounterConsumption whole{set, counters.counters};
  s.devices[static_cast<size_t>(gpu)].consumes_counters.push_back(std::move(whole));
  s.counter_sets.push_back(std::move(counters));
  for (const MigProfile& p : model.profiles) {
    for (int start : p.starts) {
      Device d;
      d.name = absl::StrCat("gpu-", gpu, "-mig-",
                            absl::StrReplaceAll(p.name, {{".", ""}, {"+", "-"}}), "-", start);
      auto& a = d.attributes[std::string(kNvidiaDriver)];
      a["type"] = std::string("mig");
      a["profile"] = p.name;
      a["parentIndex"] = int64_t{gpu};
      CommonAttributes(hw, a);
      if (const int64_t mib = ProfileMemoryMib(p.name); mib > 0) {
        d.capacity[std::string(kNvidiaDriver)]["memory"] = Mib(mib);
      }
      CounterConsumption use{set, {}};
      for (int m = start; m < start + p.memory_slices; ++m) {
        use.counters[absl::StrCat("memory-slice-", m)] = Quantity::FromUnits(1);
      }
      use.counters["compute-slices"] = Quantity::FromUnits(p.compute_slices);
      if (p.media_extensions) use.counters["media-extensions"] = Quantity::FromUnits(1);
      d.consumes_counters.push_back(std::move(use));
      s.devices.push_back(std::move(d));
    }
  }
}

}  // namespace

ResourceSlice GpuTemplateSlice(const GpuHardware& hw, absl::string_view driver,
                               const std::string& node_name) {
  ResourceSlice s;
  s.name = absl::StrCat(node_name, "-", driver);
  s.driver = std::string(driver);
  s.pool = node_name;
  s.generation = 1;
  s.slice_count = 1;
  s.node_name = node_name;
  const bool nvidia = driver == kNvidiaDriver;
  for (int i = 0; i < hw.count; ++i) {
    Device d;
    d.name = absl::StrCat("gpu-", i);
    auto& a = d.attributes[std::string(driver)];
    a["type"] = std::string("gpu");
    if (nvidia) {
      a["index"] = int64_t{i};
      a["minor"] = int64_t{i};
      CommonAttributes(hw, a);
      if (hw.memory_mib > 0) d.capacity[std::string(driver)]["memory"] = Mib(hw.memory_mib);
    }
    s.devices.push_back(std::move(d));
  }
  if (!nvidia) return s;
  absl::StatusOr<const MigModel*> mig = FindMigModel(hw.model);
  if (mig.ok()) {
    for (int i = 0; i < hw.count; ++i) AddMigDevices(hw, **mig, i, s);
  }
  return s;
}

bool GpusAreDevices(bool publishes_devices, const ResourceList& allocatable) {
  return publishes_devices && !AsksForGpus(allocatable);
}

bool IsGpuDriver(absl::string_view driver) { return absl::StartsWith(driver, "gpu."); }

int WholeGpuDevices(const std::vector<std::shared_ptr<const ResourceSlice>>& slices) {
  int typed = 0;
  int untyped = 0;
  bool any_type = false;
  for (const auto& s : slices) {
    if (!IsGpuDriver(s->driver)) continue;
    for (const Device& d : s->devices) {
      const AttributeValue* type = d.Attribute("type", s->driver);
      if (type != nullptr) {
        any_type = true;
        const std::string* name = std::get_if<std::string>(type);
        typed += name != nullptr && *name == "gpu" ? 1 : 0;
      } else if (d.consumes_counters.empty()) {
        ++untyped;
      }
    }
  }
  return any_type ? typed : untyped;
}

absl::Status DeriveTemplateSlices(NodeTemplate& t, absl::string_view where) {
  auto it = t.annotations.find(kDraDriverAnnotation);
  if (it == t.annotations.end() || !t.resource_slices.empty()) return absl::OkStatus();
  const std::string driver = it->second;
  if (driver.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": annotation ", kDraDriverAnnotation, " is empty"));
  }
  absl::StatusOr<std::optional<GpuInventory>> gpus =
      ReadGpuInventory(t.labels, t.annotations, t.allocatable, where);
  if (!gpus.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(gpus.status().message(), " (annotation ",
                                                   kDraDriverAnnotation, " publishes them)"));
  }
  if (!gpus->has_value() || (*gpus)->physical_count() <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": annotation ", kDraDriverAnnotation,
        " names a DRA driver but the template has no GPUs to publish: set the GPU count "
        "(label nvidia.com/gpu.count, annotation gpu-autoscaler.io/gpu-count, or allocatable)"));
  }
  t.resource_slices.push_back(std::make_shared<const ResourceSlice>(
      GpuTemplateSlice((*gpus)->hardware(), driver, t.name.empty() ? "template" : t.name)));
  t.allocatable = (*gpus)->WithoutGpus(t.allocatable);
  return absl::OkStatus();
}

}  // namespace gpua::dra
