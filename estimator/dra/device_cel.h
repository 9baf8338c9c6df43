// A device as a CEL selector sees it: `device.driver`, `device.attributes["domain"].name`,
// `device.capacity["domain"].name` (a quantity) and `device.allowMultipleAllocations`. An
// attribute domain the device does not have reads as empty, so has() on it is false and a
// field of it is a "no such key" error, as in Kubernetes.
#ifndef GPUA_ESTIMATOR_DRA_DEVICE_CEL_H_
#define GPUA_ESTIMATOR_DRA_DEVICE_CEL_H_

#include <string>

#include "absl/status/statusor.h"
#include "estimator/cel/cel_program.h"
#include "estimator/dra/device.h"

namespace gpua::dra {

cel::Value AttributeToCel(const AttributeValue& v);

// The bindings for one device of `driver`'s; the device must outlive them.
cel::Bindings DeviceBindings(const Device& device, const std::string& driver);

}  // namespace gpua::dra

#endif  // GPUA_ESTIMATOR_DRA_DEVICE_CEL_H_
