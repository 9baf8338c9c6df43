#ifndef GPUA_ESTIMATOR_GPU_INVENTORY_MEMO_H_
#define GPUA_ESTIMATOR_GPU_INVENTORY_MEMO_H_

#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/labels.h"
#include "estimator/resource_list.h"

namespace gpua {

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
  void Add(const std::string& key, const std::optional<GpuInventory>& reading) {
    if (readings_.size() >= kMaxReadings) readings_.clear();
    readings_.emplace(key, reading);
  }

 private:
  static constexpr size_t kMaxReadings = 4096;
  absl::flat_hash_map<std::string, std::optional<GpuInventory>> readings_;
};

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_GPU_INVENTORY_MEMO_H_
