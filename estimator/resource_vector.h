// Resources as flat integer vectors for the packing hot path: one slot per resource name
// in a catalog, cpu in millicores and everything else in whole units, as kube-scheduler
// counts them (both rounded up).
#ifndef GPUA_ESTIMATOR_RESOURCE_VECTOR_H_
#define GPUA_ESTIMATOR_RESOURCE_VECTOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "estimator/resource_list.h"

namespace gpua {

using ResourceVector = absl::InlinedVector<int64_t, 8>;

class ResourceCatalog {
 public:
  static constexpr int kCpu = 0;
  static constexpr int kMemory = 1;
  static constexpr int kEphemeralStorage = 2;
  static constexpr int kPods = 3;
  static constexpr int kNvidiaGpu = 4;
  // The slots above are the same in every catalog.
  static constexpr int kFixedSlots = 5;

  ResourceCatalog();

  // The vector of `list` in any catalog when all its names have fixed slots, else nullopt:
  // worked out once per pod, not once per snapshot.
  static std::optional<ResourceVector> FixedVector(const ResourceList& list);
  // The fixed slot of `name`, or -1.
  static int FixedSlot(absl::string_view name);

  // The slot of `name`, added if new; slots never move.
  int Intern(absl::string_view name);
  size_t size() const { return names_.size(); }
  const std::string& Name(int slot) const { return names_[slot]; }
  // GPU resources (gpu/gpu_resource.h) weigh first when ordering pods and judging waste.
  bool IsGpu(int slot) const { return gpu_[slot]; }

  ResourceVector ToVector(const ResourceList& list);
  // The amount in a slot as a Quantity, for messages.
  Quantity ToQuantity(int slot, int64_t amount) const;

 private:
  std::vector<std::string> names_;
  std::vector<bool> gpu_;
  absl::flat_hash_map<std::string, int> slots_;
};

inline int64_t At(const ResourceVector& v, size_t slot) { return slot < v.size() ? v[slot] : 0; }
void AddInto(ResourceVector& into, const ResourceVector& add, int64_t times = 1);
void SubtractFrom(ResourceVector& from, const ResourceVector& sub, int64_t times = 1);
// Whether one `request` fits in `free`: CopiesThatFit(request, free, 1) > 0 without dividing.
bool Fits(const ResourceVector& request, const ResourceVector& free);
// How many copies of `request` fit in `free` (capped at `cap`).
int64_t CopiesThatFit(const ResourceVector& request, const ResourceVector& free, int64_t cap);
// The first slot, in kube-scheduler's order of resource names, where request exceeds free.
int FirstShortSlot(const ResourceCatalog& catalog, const ResourceVector& request,
                   const ResourceVector& free);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_RESOURCE_VECTOR_H_
