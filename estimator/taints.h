// Node taints and the pod tolerations that admit them (kube-scheduler's TaintToleration).
#ifndef GPUA_ESTIMATOR_TAINTS_H_
#define GPUA_ESTIMATOR_TAINTS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpua {

enum class TaintEffect { kNoSchedule, kPreferNoSchedule, kNoExecute };

absl::StatusOr<TaintEffect> ParseTaintEffect(absl::string_view text);
absl::string_view TaintEffectName(TaintEffect effect);

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;
  // "{nvidia.com/gpu: present}", as kube-scheduler words it.
  std::string ToString() const;
  friend bool operator==(const Taint&, const Taint&) = default;
  friend auto operator<=>(const Taint&, const Taint&) = default;
};

struct Toleration {
  enum class Op { kEqual, kExists };
  std::string key;  // empty with Exists: tolerates every taint
  Op op = Op::kEqual;
  std::string value;
  std::optional<TaintEffect> effect;  // absent: every effect
  // tolerationSeconds only bounds eviction, never scheduling, so it is not kept.

  bool Tolerates(const Taint& taint) const;
  friend bool operator==(const Toleration&, const Toleration&) = default;
  friend auto operator<=>(const Toleration&, const Toleration&) = default;
};

// The first taint with effect NoSchedule or NoExecute that no toleration admits, or null.
// PreferNoSchedule never blocks scheduling.
const Taint* FirstUntoleratedTaint(const std::vector<Taint>& taints,
                                   const std::vector<Toleration>& tolerations);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_TAINTS_H_
