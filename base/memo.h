// A value worked out from the object that holds it, once, the first time it is asked for.
// The controller's cached objects are immutable and shared between loops, so what is read
// off them (a node's GPU inventory, a pod's request vector) need not be read every loop.
// A copy starts empty: the object it belongs to is copied to be changed.
#ifndef GPUA_BASE_MEMO_H_
#define GPUA_BASE_MEMO_H_

#include <cstddef>
#include <optional>
#include <utility>

#include "absl/base/call_once.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace gpua {

namespace memo_internal {

// A memo's state, made anew by a copy or an assignment rather than copied.
template <typename State>
class FreshOnCopy {
 public:
  FreshOnCopy() = default;
  FreshOnCopy(const FreshOnCopy&) {}
  FreshOnCopy& operator=(const FreshOnCopy&) {
    state_.emplace();
    return *this;
  }
  State& operator*() const { return *state_; }
  State* operator->() const { return &*state_; }

 private:
  mutable std::optional<State> state_{std::in_place};
};

}  // namespace memo_internal

template <typename T>
class Memo {
 public:
  // `compute` runs at most once per memo, also when several threads ask at the same time.
  template <typename Compute>
  const T& Get(Compute&& compute) const {
    absl::call_once(state_->once, [&] { state_->value.emplace(std::forward<Compute>(compute)()); });
    return *state_->value;
  }

 private:
  struct State {
    absl::once_flag once;
    std::optional<T> value;
  };
  memo_internal::FreshOnCopy<State> state_;
};

// A value worked out for a key, kept until it is asked for with another key: for what is read
// off an object with settings that rarely change (the same flags every loop).
template <typename Key, typename T>
class KeyedMemo {
 public:
  // A copy of the value: another thread may replace it once the lock is released. `key` may
  // be of any type that compares with Key and makes one (a std::tie of Key's parts), so a hit
  // copies nothing.
  template <typename Lookup, typename Compute>
  T Get(const Lookup& key, Compute&& compute) const {
    absl::MutexLock lock(&state_->mu);
    if (!state_->last.has_value() || !(state_->last->first == key)) {
      state_->last.emplace(Key(key), std::forward<Compute>(compute)());
    }
    return state_->last->second;
  }

 private:
  struct State {
    absl::Mutex mu;
    std::optional<std::pair<Key, T>> last;
  };
  memo_internal::FreshOnCopy<State> state_;
};

// Values worked out per key, all kept: for what is asked of an object under a handful of keys
// in turn (what a GPU inventory advertises under each MIG layout). At `kMaxKeys` it starts
// again empty, so keys that churn cannot make it grow without bound.
template <typename Key, typename T>
class MemoMap {
 public:
  static constexpr size_t kMaxKeys = 256;

  // `key` may be of any type the map looks up by (a string_view for a string Key).
  // `compute` runs under the lock: it must not ask this memo.
  template <typename Lookup, typename Compute>
  T Get(const Lookup& key, Compute&& compute) const {
    absl::MutexLock lock(&state_->mu);
    auto it = state_->values.find(key);
    if (it != state_->values.end()) return it->second;
    if (state_->values.size() >= kMaxKeys) state_->values.clear();
    return state_->values.emplace(Key(key), std::forward<Compute>(compute)()).first->second;
  }

 private:
  struct State {
    absl::Mutex mu;
    absl::flat_hash_map<Key, T> values;
  };
  memo_internal::FreshOnCopy<State> state_;
};

}  // namespace gpua

#endif  // GPUA_BASE_MEMO_H_
