#include "autoscaler/controller/spot/spot_capacity.h"

#include "absl/strings/match.h"

namespace gpua {

bool OnSpotCapacity(const Labels& labels) {
  static constexpr struct {
    absl::string_view key;
    absl::string_view value;  // compared ignoring case: EKS writes SPOT, Karpenter spot
  } kSpotLabels[] = {
      {"eks.amazonaws.com/capacityType", "spot"},
      {"karpenter.sh/capacity-type", "spot"},
      {"cloud.google.com/gke-spot", "true"},
      {"cloud.google.com/gke-preemptible", "true"},
      {"kubernetes.azure.com/scalesetpriority", "spot"},
      {"node.kubernetes.io/lifecycle", "spot"},
  };
  for (const auto& [key, value] : kSpotLabels) {
    auto it = labels.find(key);
    if (it != labels.end() && absl::EqualsIgnoreCase(it->second, value)) return true;
  }
  return false;
}

}  // namespace gpua
