// An ordered map of strings (labels, annotations, node selectors) kept as one sorted array
// that copies share until one of them changes. Pods of one controller carry the same labels
// and node selector: with StringMapInterner they hold one copy between them, which is what
// lets the informer cache a 100,000-pod cluster in a few hundred MiB, and a copy (a node
// template's labels onto each simulated node) costs a reference count, not a tree.
#ifndef GPUA_ESTIMATOR_STRING_MAP_H_
#define GPUA_ESTIMATOR_STRING_MAP_H_

#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace gpua {

class StringMap {
 public:
  using value_type = std::pair<std::string, std::string>;
  using const_iterator = std::vector<value_type>::const_iterator;
  using iterator = const_iterator;

  StringMap() = default;
  // On a repeated key the first value stays, as std::map's constructors do.
  StringMap(std::initializer_list<value_type> entries);
  template <typename It>
  StringMap(It first, It last) {
    std::vector<value_type> entries;
    for (; first != last; ++first) entries.emplace_back(first->first, first->second);
    Assign(std::move(entries));
  }

  const_iterator begin() const { return entries().begin(); }
  const_iterator end() const { return entries().end(); }
  size_t size() const { return entries().size(); }
  bool empty() const { return entries().empty(); }

  const_iterator find(absl::string_view key) const;
  bool contains(absl::string_view key) const { return find(key) != end(); }
  size_t count(absl::string_view key) const { return contains(key) ? 1 : 0; }
  // Throws std::out_of_range for a missing key, as std::map::at.
  const std::string& at(absl::string_view key) const;

  // Adds the entry unless the key is there already.
  std::pair<const_iterator, bool> emplace(std::string key, std::string value);
  void insert_or_assign(absl::string_view key, std::string value);
  // The value for `key`, added empty if missing. The reference is good until this map is
  // next changed or copied.
  std::string& operator[](absl::string_view key);
  size_t erase(absl::string_view key);

  friend bool operator==(const StringMap& a, const StringMap& b);

 private:
  friend class StringMapInterner;
  using Entries = std::vector<value_type>;

  const Entries& entries() const;
  // The entries, copied first when another map shares them.
  Entries& Mutable();
  void Assign(Entries entries);

  std::shared_ptr<const Entries> entries_;  // null: empty
};

// Hands out one shared copy of each distinct map it is given. Safe to share between
// threads. Copies nobody uses any more are let go as the pool grows.
class StringMapInterner {
 public:
  StringMap Intern(StringMap map);
  size_t size() const;

 private:
  using Stored = std::shared_ptr<const StringMap::Entries>;
  struct Hash {
    using is_transparent = void;
    size_t operator()(const Stored& s) const;
  };
  struct Eq {
    using is_transparent = void;
    bool operator()(const Stored& a, const Stored& b) const { return *a == *b; }
  };

  mutable absl::Mutex mu_;
  absl::flat_hash_set<Stored, Hash, Eq> pool_ ABSL_GUARDED_BY(mu_);
  size_t purge_at_ ABSL_GUARDED_BY(mu_) = 1024;
};

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_STRING_MAP_H_
