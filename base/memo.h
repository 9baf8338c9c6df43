// A value worked out from the object that holds it, once, the first time it is asked for.
// The controller's cached objects are immutable and shared between loops, so what is read
// off them (a node's GPU inventory, a pod's request vector) need not be read every loop.
// A copy starts empty: the object it belongs to is copied to be changed.
#ifndef GPUA_BASE_MEMO_H_
#define GPUA_BASE_MEMO_H_

#include <optional>
#include <utility>

#include "absl/base/call_once.h"

namespace gpua {

template <typename T>
class Memo {
 public:
  Memo() = default;
  Memo(const Memo&) {}
  Memo& operator=(const Memo&) {
    state_.emplace();
    return *this;
  }

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
  mutable std::optional<State> state_{std::in_place};
};

}  // namespace gpua

#endif  // GPUA_BASE_MEMO_H_
