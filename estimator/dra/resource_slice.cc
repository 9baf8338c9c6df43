#include "estimator/dra/resource_slice.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"

namespace gpua::dra {

NodeDevices AssemblePools(const std::vector<const ResourceSlice*>& slices) {
  // (driver, pool) in order, so pools are walked as the scheduler walks them.
  std::map<std::pair<std::string, std::string>, std::vector<const ResourceSlice*>> pools;
  for (const ResourceSlice* s : slices) pools[{s->driver, s->pool}].push_back(s);
  NodeDevices out;
  for (auto& [key, members] : pools) {
    int64_t newest = 0;
    for (const ResourceSlice* s : members) newest = std::max(newest, s->generation);
    std::vector<const ResourceSlice*> current;
    for (const ResourceSlice* s : members) {
      if (s->generation == newest) current.push_back(s);
    }
    // Slices of one generation agree on the count; the largest is the safe reading.
    int64_t expected = 0;
    for (const ResourceSlice* s : current) expected = std::max(expected, s->slice_count);
    if (static_cast<int64_t>(current.size()) < expected) {
      out.incomplete.push_back(absl::StrCat(key.first, "/", key.second));
      continue;
    }
    std::sort(current.begin(), current.end(),
              [](const ResourceSlice* a, const ResourceSlice* b) { return a->name < b->name; });
    DevicePool pool{key.first, key.second, newest, {}, {}};
    for (const ResourceSlice* s : current) {
      pool.devices.insert(pool.devices.end(), s->devices.begin(), s->devices.end());
      pool.counter_sets.insert(pool.counter_sets.end(), s->counter_sets.begin(),
                               s->counter_sets.end());
    }
    out.pools.push_back(std::move(pool));
  }
  return out;
}

NodePools::NodePools(const std::vector<std::shared_ptr<const ResourceSlice>>& slices) {
  absl::flat_hash_map<std::string, std::vector<const ResourceSlice*>> local;
  absl::flat_hash_map<std::string, bool> other_pools;
  for (const auto& s : slices) {
    if (s->node_local()) {
      local[s->node_name].push_back(s.get());
    } else {
      other_pools[absl::StrCat(s->driver, "/", s->pool)] = true;
    }
  }
  unsupported_pools_ = static_cast<int>(other_pools.size());
  for (auto& [node, list] : local) {
    by_node_[node] = std::make_shared<const NodeDevices>(AssemblePools(list));
  }
}

std::shared_ptr<const NodeDevices> AssembleShared(
    const std::vector<std::shared_ptr<const ResourceSlice>>& slices) {
  if (slices.empty()) return nullptr;
  std::vector<const ResourceSlice*> raw;
  raw.reserve(slices.size());
  for (const auto& s : slices) raw.push_back(s.get());
  return std::make_shared<const NodeDevices>(AssemblePools(raw));
}

std::shared_ptr<const NodeDevices> NodePools::ForNode(const std::string& node_name) const {
  auto it = by_node_.find(node_name);
  return it == by_node_.end() ? nullptr : it->second;
}

}  // namespace gpua::dra
