#include "estimator/resource_vector.h"

#include <algorithm>
#include <limits>

#include "absl/strings/match.h"
#include "estimator/gpu/gpu_resource.h"

namespace gpua {

namespace {

// In slot order: every catalog starts with these.
constexpr absl::string_view kFixedNames[ResourceCatalog::kFixedSlots] = {
    kResourceCpu, kResourceMemory, kResourceEphemeralStorage, kResourcePods, kResourceNvidiaGpu};

// cpu in millicores, everything else in whole units.
void Put(ResourceVector& v, int slot, const Quantity& quantity) {
  if (v.size() <= static_cast<size_t>(slot)) v.resize(slot + 1, 0);
  v[slot] = slot == ResourceCatalog::kCpu ? quantity.MilliValue() : quantity.Value();
}

}  // namespace

ResourceCatalog::ResourceCatalog() {
  for (absl::string_view name : kFixedNames) Intern(name);
}

int ResourceCatalog::FixedSlot(absl::string_view name) {
  const absl::string_view* fixed = std::find(std::begin(kFixedNames), std::end(kFixedNames), name);
  return fixed == std::end(kFixedNames) ? -1 : static_cast<int>(fixed - std::begin(kFixedNames));
}

std::optional<ResourceVector> ResourceCatalog::FixedVector(const ResourceList& list) {
  ResourceVector v;
  for (const auto& [name, quantity] : list) {
    const int slot = FixedSlot(name);
    if (slot < 0) return std::nullopt;
    Put(v, slot, quantity);
  }
  return v;
}

int ResourceCatalog::Intern(absl::string_view name) {
  auto [it, inserted] = slots_.try_emplace(name, static_cast<int>(names_.size()));
  if (inserted) {
    names_.emplace_back(name);
    gpu_.push_back(IsGpuResource(name));
  }
  return it->second;
}

ResourceVector ResourceCatalog::ToVector(const ResourceList& list) {
  ResourceVector v;
  for (const auto& [name, quantity] : list) {
    Put(v, Intern(name), quantity);
  }
  return v;
}

Quantity ResourceCatalog::ToQuantity(int slot, int64_t amount) const {
  if (slot == kCpu) return Quantity::FromMilli(amount);
  if (slot == kMemory || slot == kEphemeralStorage ||
      absl::StartsWith(names_[slot], "hugepages-")) {
    return Quantity::FromUnits(amount, QuantityFormat::kBinarySI);
  }
  return Quantity::FromUnits(amount);
}

void AddInto(ResourceVector& into, const ResourceVector& add, int64_t times) {
  if (into.size() < add.size()) into.resize(add.size(), 0);
  for (size_t i = 0; i < add.size(); ++i) into[i] += add[i] * times;
}

void SubtractFrom(ResourceVector& from, const ResourceVector& sub, int64_t times) {
  if (from.size() < sub.size()) from.resize(sub.size(), 0);
  for (size_t i = 0; i < sub.size(); ++i) from[i] -= sub[i] * times;
}

bool Fits(const ResourceVector& request, const ResourceVector& free) {
  for (size_t i = 0; i < request.size(); ++i) {
    if (request[i] > 0 && At(free, i) < request[i]) return false;
  }
  return true;
}

int64_t CopiesThatFit(const ResourceVector& request, const ResourceVector& free, int64_t cap) {
  int64_t copies = cap;
  for (size_t i = 0; i < request.size() && copies > 0; ++i) {
    if (request[i] <= 0) continue;
    const int64_t have = At(free, i);
    copies = have < request[i] ? 0 : std::min(copies, have / request[i]);
  }
  return copies;
}

int FirstShortSlot(const ResourceCatalog& catalog, const ResourceVector& request,
                   const ResourceVector& free) {
  int best = -1;
  for (size_t i = 0; i < request.size(); ++i) {
    if (request[i] <= 0 || request[i] <= At(free, i)) continue;
    if (best < 0 || ResourceNameLess(catalog.Name(static_cast<int>(i)), catalog.Name(best))) {
      best = static_cast<int>(i);
    }
  }
  return best;
}

}  // namespace gpua
