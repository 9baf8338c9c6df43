#include "cloudproviders/simulated/simulated_node.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "cloudproviders/slice_proto.h"
#include "estimator/dra/template_slices.h"
#include "estimator/gpu/gpu_inventory_reader.h"
#include "estimator/gpu/gpu_resource.h"

namespace gpua {
namespace {

nlohmann::json Resources(const ResourceList& list) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, q] : list) out[name] = q.ToString();
  return out;
}

}  // namespace

ResourceList AdvertisedAllocatable(const NodeTemplate& t,
                                   const std::optional<GpuInventory>& inventory,
                                   absl::string_view mig_layout, bool gpus_ready) {
  // A pool whose GPUs are DRA devices advertises none: its drivers publish slices instead.
  if (!inventory.has_value() || dra::GpusAreDevices(!t.resource_slices.empty(), t.allocatable)) {
    return t.allocatable;
  }
  // GPUs: the device plugin's, none until it runs.
  if (!gpus_ready) return inventory->WithoutGpus(t.allocatable);
  return inventory->NodeAllocatable(t.allocatable, mig_layout);
}

std::string SimulatedNodeName(const std::string& provider_id) {
  std::string name = provider_id;
  absl::StrReplaceAll({{"sim://", ""}, {"/", "-"}}, &name);
  return name;
}

nlohmann::json NewNodeFor(const NodeTemplate& t, const std::string& name,
                          const std::string& provider_id) {
  nlohmann::json labels = {{"kubernetes.io/hostname", name}};
  for (const auto& [k, v] : t.labels) labels[k] = v;
  nlohmann::json taints = nlohmann::json::array();
  for (const Taint& taint : t.taints) {
    taints.push_back({{"key", taint.key},
                      {"value", taint.value},
                      {"effect", std::string(TaintEffectName(taint.effect))}});
  }
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", {{"providerID", provider_id}, {"taints", taints}}}};
}

nlohmann::json NodeStatusFor(const NodeTemplate& t, absl::string_view mig_layout, bool gpus_ready) {
  auto gpus = ReadGpuInventory(t.labels, t.annotations, t.allocatable, "template");
  const std::optional<GpuInventory> inventory =
      gpus.ok() && gpus->has_value() ? std::optional<GpuInventory>(**gpus) : std::nullopt;
  const ResourceList allocatable = AdvertisedAllocatable(t, inventory, mig_layout, gpus_ready);
  return {{"allocatable", Resources(allocatable)},
          {"capacity", Resources(allocatable)},
          {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}};
}

std::string PublishedPoolName(absl::string_view node, absl::string_view template_pool) {
  return absl::StrCat(node, "-", template_pool);
}

std::vector<dra::ResourceSlice> PublishedSlices(const NodeTemplate& t, const std::string& node) {
  std::vector<dra::ResourceSlice> slices;
  for (size_t i = 0; i < t.resource_slices.size(); ++i) {
    dra::ResourceSlice s = *t.resource_slices[i];
    s.name = absl::StrCat(node, "-", i);
    s.pool = PublishedPoolName(node, t.resource_slices[i]->pool);
    s.node_name = node;
    s.generation = 1;
    if (!s.counter_sets.empty() && !s.devices.empty()) {
      // Since 1.35 a slice holds shared counters or devices, not both (the API server
      // refuses both): a partitionable pool's counters go in a slice of their own.
      dra::ResourceSlice counters = s;
      counters.name += "-counters";
      counters.devices.clear();
      s.counter_sets.clear();
      slices.push_back(std::move(counters));
    }
    // A slice holds at most 128 devices, 64 where any takes counters or has taints.
    const bool small = std::any_of(s.devices.begin(), s.devices.end(), [](const dra::Device& d) {
      return !d.consumes_counters.empty() || !d.taints.empty();
    });
    const size_t most = small ? 64 : 128;
    if (s.devices.size() <= most) {
      slices.push_back(std::move(s));
      continue;
    }
    for (size_t from = 0, part = 0; from < s.devices.size(); from += most, ++part) {
      dra::ResourceSlice chunk = s;
      chunk.name = absl::StrCat(s.name, "-", part);
      const size_t to = std::min(s.devices.size(), from + most);
      chunk.devices.assign(s.devices.begin() + static_cast<std::ptrdiff_t>(from),
                           s.devices.begin() + static_cast<std::ptrdiff_t>(to));
      slices.push_back(std::move(chunk));
    }
  }
  absl::flat_hash_map<std::string, int64_t> per_pool;
  for (const dra::ResourceSlice& s : slices) ++per_pool[s.pool];
  for (dra::ResourceSlice& s : slices) s.slice_count = per_pool[s.pool];
  return slices;
}

std::vector<nlohmann::json> SlicesFor(const NodeTemplate& t, const std::string& node) {
  std::vector<nlohmann::json> out;
  for (const dra::ResourceSlice& s : PublishedSlices(t, node))
    out.push_back(ResourceSliceToJson(s));
  return out;
}

}  // namespace gpua
