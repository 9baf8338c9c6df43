#include "estimator/taints.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace gpua {

absl::StatusOr<TaintEffect> ParseTaintEffect(absl::string_view text) {
  if (text == "NoSchedule") return TaintEffect::kNoSchedule;
  if (text == "PreferNoSchedule") return TaintEffect::kPreferNoSchedule;
  if (text == "NoExecute") return TaintEffect::kNoExecute;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown taint effect \"", text, "\" (expected NoSchedule, PreferNoSchedule, NoExecute)"));
}

absl::string_view TaintEffectName(TaintEffect effect) {
  switch (effect) {
    case TaintEffect::kNoSchedule:
      return "NoSchedule";
    case TaintEffect::kPreferNoSchedule:
      return "PreferNoSchedule";
    case TaintEffect::kNoExecute:
      return "NoExecute";
  }
  return "?";
}

std::string Taint::ToString() const {
  return value.empty() ? absl::StrCat("{", key, ": }") : absl::StrCat("{", key, ": ", value, "}");
}

bool Toleration::Tolerates(const Taint& taint) const {
  if (effect.has_value() && *effect != taint.effect) return false;
  if (key.empty()) return op == Op::kExists;  // the API allows an empty key only with Exists
  if (key != taint.key) return false;
  return op == Op::kExists || value == taint.value;
}

const Taint* FirstUntoleratedTaint(const std::vector<Taint>& taints,
                                   const std::vector<Toleration>& tolerations) {
  for (const Taint& taint : taints) {
    if (taint.effect == TaintEffect::kPreferNoSchedule) continue;
    const bool tolerated = std::any_of(tolerations.begin(), tolerations.end(),
                                       [&](const Toleration& t) { return t.Tolerates(taint); });
    if (!tolerated) return &taint;
  }
  return nullptr;
}

}  // namespace gpua
