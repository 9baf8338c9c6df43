#include "estimator/resource_list.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpua {
namespace {

int Rank(absl::string_view name) {
  if (name == kResourceCpu) return 0;
  if (name == kResourceMemory) return 1;
  if (name == kResourceEphemeralStorage) return 2;
  return 3;
}

}  // namespace

bool ResourceNameLess(absl::string_view a, absl::string_view b) {
  const int ra = Rank(a);
  const int rb = Rank(b);
  if (ra != rb) return ra < rb;
  return a < b;
}

std::string Insufficiency::Message() const {
  return absl::StrCat("Insufficient ", resource, " (requested ", requested.ToString(), ", free ",
                      free.ToString(), ")");
}

ResourceList::ResourceList(std::initializer_list<Entry> entries) {
  for (const Entry& e : entries) Set(e.first, e.second);
}

bool IsExtendedResource(absl::string_view name) {
  const size_t slash = name.find('/');
  if (slash == absl::string_view::npos) return false;  // cpu, memory, hugepages-1Gi, ...
  const absl::string_view domain = name.substr(0, slash);
  if (domain == "kubernetes.io" || absl::EndsWith(domain, ".kubernetes.io")) return false;
  return !absl::StartsWith(name, "requests.");
}

absl::StatusOr<ResourceList> ResourceList::Parse(
    const std::vector<std::pair<std::string, std::string>>& entries, absl::string_view field_path) {
  ResourceList list;
  for (const auto& [name, text] : entries) {
    if (name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(field_path, ": a resource has an empty name"));
    }
    absl::StatusOr<Quantity> q = Quantity::Parse(text);
    if (!q.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(field_path, "[", name, "]: ", q.status().message()));
    }
    list.Set(name, *q);
  }
  return list;
}

std::vector<ResourceList::Entry>::iterator ResourceList::LowerBound(absl::string_view name) {
  return std::lower_bound(
      entries_.begin(), entries_.end(), name,
      [](const Entry& e, absl::string_view n) { return ResourceNameLess(e.first, n); });
}

std::vector<ResourceList::Entry>::const_iterator ResourceList::Find(absl::string_view name) const {
  // A pod's or node's list holds a handful of names: comparing for equality, which mostly
  // stops at the length, beats ordering by rank and name.
  constexpr size_t kScanned = 8;
  if (entries_.size() <= kScanned) {
    return std::find_if(entries_.begin(), entries_.end(),
                        [&](const Entry& e) { return e.first == name; });
  }
  auto it = std::lower_bound(
      entries_.begin(), entries_.end(), name,
      [](const Entry& e, absl::string_view n) { return ResourceNameLess(e.first, n); });
  return (it != entries_.end() && it->first == name) ? it : entries_.end();
}

Quantity ResourceList::Get(absl::string_view name) const {
  auto it = Find(name);
  return it == entries_.end() ? Quantity() : it->second;
}

bool ResourceList::Has(absl::string_view name) const { return Find(name) != entries_.end(); }

void ResourceList::Set(absl::string_view name, Quantity value) {
  auto it = LowerBound(name);
  if (it != entries_.end() && it->first == name) {
    it->second = value;
  } else {
    entries_.insert(it, Entry(std::string(name), value));
  }
}

template <typename Op>
void ResourceList::Combine(const ResourceList& other, Op op) {
  for (const auto& [name, value] : other.entries_) {
    auto it = LowerBound(name);
    if (it == entries_.end() || it->first != name) {
      it = entries_.insert(it, Entry(name, Quantity()));
    }
    op(it->second, value);
  }
}

ResourceList& ResourceList::operator+=(const ResourceList& other) {
  Combine(other, [](Quantity& mine, const Quantity& theirs) { mine += theirs; });
  return *this;
}

ResourceList& ResourceList::operator-=(const ResourceList& other) {
  Combine(other, [](Quantity& mine, const Quantity& theirs) { mine -= theirs; });
  return *this;
}

void ResourceList::MaxWith(const ResourceList& other) {
  Combine(other, [](Quantity& mine, const Quantity& theirs) {
    if (theirs > mine) mine = theirs;
  });
}

std::optional<Insufficiency> ResourceList::FirstInsufficient(const ResourceList& free) const {
  for (const auto& [name, requested] : entries_) {
    if (requested.Sign() <= 0) continue;
    const Quantity available = free.Get(name);
    if (requested > available) return Insufficiency{name, requested, available};
  }
  return std::nullopt;
}

std::string ResourceList::ToString() const {
  return absl::StrJoin(entries_, ", ", [](std::string* out, const Entry& e) {
    absl::StrAppend(out, e.first, ": ", e.second.ToString());
  });
}

bool operator==(const ResourceList& a, const ResourceList& b) {
  // Absent and zero mean the same.
  for (const auto& [name, value] : a.entries_) {
    if (b.Get(name) != value) return false;
  }
  for (const auto& [name, value] : b.entries_) {
    if (a.Get(name) != value) return false;
  }
  return true;
}

}  // namespace gpua
