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

}  // namespace gpua

#endif  // GPUA_BASE_MEMO_H_
