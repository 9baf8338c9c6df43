// ResourceSlices as drivers publish them, in resource.k8s.io v1 and v1beta2 (devices with
// their fields inline) and v1beta1 (each device's fields under `basic`).
#ifndef GPUA_KUBEOBJECTS_RESOURCE_SLICES_H_
#define GPUA_KUBEOBJECTS_RESOURCE_SLICES_H_

#include "absl/status/statusor.h"
#include "estimator/dra/resource_slice.h"
#include "kubeobjects/json_reader.h"

namespace gpua {

// Every error names the slice and the field ("ResourceSlice node-a-gpu: spec.devices[2]
// .attributes[cudaComputeCapability]: ..."); a slice that cannot be read whole is refused
// rather than half used (a pool missing a slice is incomplete, so offers nothing).
absl::StatusOr<dra::ResourceSlice> DecodeResourceSlice(const JsonReader& object);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_RESOURCE_SLICES_H_
