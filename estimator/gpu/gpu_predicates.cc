#include "estimator/gpu/gpu_predicates.h"

#include "absl/strings/str_cat.h"
#include "estimator/gpu/cuda_compat.h"

namespace gpua {
namespace {

// The most shares of `names` any one container asks for.
int64_t LargestShareRequest(const PodSpec& pod, const std::vector<std::string>& names) {
  int64_t most = 0;
  for (const std::string& name : names) {
    most = std::max(most, pod.largest_container_request.Get(name).Value());
  }
  return most;
}

bool AsksForAny(const PodSpec& pod, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (pod.requests.Get(name).Sign() > 0) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> CheckGpuFit(const PodSpec& pod, const GpuInventory& gpus,
                                       const GpuPolicy& policy) {
  // Computed once: the names come from the inventory's advertised resources.
  const std::vector<std::string>& names = gpus.ResourceNames();
  if (!AsksForAny(pod, names)) return std::nullopt;
  const int64_t shares = LargestShareRequest(pod, names);
  const GpuShares& sharing = gpus.shares();
  if (sharing.mode == ShareMode::kTimeSlicing && sharing.fail_requests_greater_than_one &&
      shares > 1) {
    return absl::StrCat(
        "time-sliced GPUs with failRequestsGreaterThanOne take one share per "
        "container; a container asks for ",
        shares);
  }
  if (sharing.mode == ShareMode::kMps) {
    if (shares > 1) {
      return absl::StrCat("MPS GPUs take one share per container; a container asks for ", shares);
    }
    if (pod.gpu_memory_mib > 0 && gpus.memory_mib() > 0 &&
        pod.gpu_memory_mib > gpus.memory_mib() / sharing.replicas) {
      return absl::StrCat("needs ", pod.gpu_memory_mib, " MiB of GPU memory; an MPS share of a ",
                          gpus.memory_mib(), " MiB GPU split ", sharing.replicas, " ways has ",
                          gpus.memory_mib() / sharing.replicas, " MiB");
    }
  }
  if (!pod.cuda_version.empty() && gpus.vendor() == GpuVendor::kNvidia &&
      !gpus.driver_version().empty()) {
    absl::StatusOr<std::optional<std::string>> too_old =
        CheckDriver(gpus.driver_version(), pod.cuda_version, policy.cuda_minor_version_compat);
    if (!too_old.ok()) return std::string(too_old.status().message());
    if (too_old->has_value()) return **too_old;
  }
  return std::nullopt;
}

}  // namespace gpua
