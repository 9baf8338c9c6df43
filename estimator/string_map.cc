#include "estimator/string_map.h"

#include <algorithm>
#include <stdexcept>

#include "absl/hash/hash.h"

namespace gpua {
namespace {

bool KeyLess(const StringMap::value_type& e, absl::string_view key) { return e.first < key; }

}  // namespace

StringMap::StringMap(std::initializer_list<value_type> entries) {
  Assign(Entries(entries.begin(), entries.end()));
}

void StringMap::Assign(Entries entries) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const value_type& a, const value_type& b) { return a.first < b.first; });
  entries.erase(
      std::unique(entries.begin(), entries.end(),
                  [](const value_type& a, const value_type& b) { return a.first == b.first; }),
      entries.end());
  if (entries.empty()) {
    entries_.reset();
    return;
  }
  entries_ = std::make_shared<Entries>(std::move(entries));
}

const StringMap::Entries& StringMap::entries() const {
  static const Entries kEmpty;
  return entries_ == nullptr ? kEmpty : *entries_;
}

StringMap::Entries& StringMap::Mutable() {
  if (entries_ == nullptr) {
    entries_ = std::make_shared<Entries>();
  } else if (entries_.use_count() > 1) {
    entries_ = std::make_shared<Entries>(*entries_);
  }
  // Every Entries is made non-const (make_shared<Entries>); only the pointer is to const.
  return const_cast<Entries&>(*entries_);
}

StringMap::const_iterator StringMap::find(absl::string_view key) const {
  const Entries& e = entries();
  auto it = std::lower_bound(e.begin(), e.end(), key, KeyLess);
  return it != e.end() && it->first == key ? it : e.end();
}

const std::string& StringMap::at(absl::string_view key) const {
  auto it = find(key);
  if (it == end()) throw std::out_of_range(std::string(key));
  return it->second;
}

std::pair<StringMap::const_iterator, bool> StringMap::emplace(std::string key, std::string value) {
  if (auto it = find(key); it != end()) return {it, false};
  Entries& e = Mutable();
  auto at = std::lower_bound(e.begin(), e.end(), key, KeyLess);
  at = e.emplace(at, std::move(key), std::move(value));
  return {at, true};
}

void StringMap::insert_or_assign(absl::string_view key, std::string value) {
  (*this)[key] = std::move(value);
}

std::string& StringMap::operator[](absl::string_view key) {
  Entries& e = Mutable();
  auto at = std::lower_bound(e.begin(), e.end(), key, KeyLess);
  if (at == e.end() || at->first != key) at = e.emplace(at, std::string(key), std::string());
  return at->second;
}

size_t StringMap::erase(absl::string_view key) {
  if (!contains(key)) return 0;
  Entries& e = Mutable();
  e.erase(std::lower_bound(e.begin(), e.end(), key, KeyLess));
  if (e.empty()) entries_.reset();
  return 1;
}

bool operator==(const StringMap& a, const StringMap& b) {
  return a.entries_ == b.entries_ || a.entries() == b.entries();
}

size_t StringMapInterner::Hash::operator()(const Stored& s) const { return absl::HashOf(*s); }

StringMap StringMapInterner::Intern(StringMap map) {
  if (map.entries_ == nullptr) return map;
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = pool_.insert(map.entries_);
  if (!inserted) {
    map.entries_ = *it;
    return map;
  }
  if (pool_.size() >= purge_at_) {
    // Let go of copies only the pool still holds (their pods are gone).
    absl::erase_if(pool_, [](const Stored& s) { return s.use_count() == 1; });
    purge_at_ = std::max<size_t>(1024, 2 * pool_.size());
  }
  return map;
}

size_t StringMapInterner::size() const {
  absl::MutexLock lock(&mu_);
  return pool_.size();
}

}  // namespace gpua
