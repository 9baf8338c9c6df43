// Whether a node's NVIDIA driver runs a pod's CUDA version. A pod states the CUDA version its
// image needs with the annotation gpu-autoscaler.io/cuda-version ("12.4"); a pool whose driver
// is older is not chosen for it, with a reason that says which driver it would need.
#ifndef GPUA_ESTIMATOR_GPU_CUDA_COMPAT_H_
#define GPUA_ESTIMATOR_GPU_CUDA_COMPAT_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpua {

inline constexpr absl::string_view kAnnotationCudaVersion = "gpu-autoscaler.io/cuda-version";

// The oldest driver for a CUDA version: by NVIDIA's release-notes table, or, with minor
// version compatibility, the oldest of its major release (12.x: 525.60.13, 13.x: 580).
absl::StatusOr<std::string> MinimumDriver(absl::string_view cuda, bool minor_version_compat);

// Why `driver` cannot run `cuda` ("driver 535.104.05 too old for CUDA 12.4 (needs >=
// 550.54.14)"), nullopt when it can; an unparseable version is an error naming it.
absl::StatusOr<std::optional<std::string>> CheckDriver(absl::string_view driver,
                                                       absl::string_view cuda,
                                                       bool minor_version_compat);

// Dotted numeric versions: negative, zero or positive as a < b, a == b, a > b.
absl::StatusOr<int> CompareVersions(absl::string_view a, absl::string_view b);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_GPU_CUDA_COMPAT_H_
