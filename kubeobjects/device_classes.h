// DeviceClasses (resource.k8s.io v1, v1beta2 and v1beta1 read alike) and the CEL device
// selectors that classes and claims share.
#ifndef GPUA_KUBEOBJECTS_DEVICE_CLASSES_H_
#define GPUA_KUBEOBJECTS_DEVICE_CLASSES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "estimator/dra/claim.h"
#include "kubeobjects/json_reader.h"

namespace gpua {

// selectors: [{cel: {expression}}]. An expression that does not compile is kept with its
// error (see dra::DeviceSelector); a selector without `cel` is an error naming it.
absl::StatusOr<std::vector<dra::DeviceSelector>> DecodeDeviceSelectors(const JsonReader& list);

absl::StatusOr<dra::DeviceClass> DecodeDeviceClass(const JsonReader& object);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_DEVICE_CLASSES_H_
