// A core/v1 ConfigMap: where the autoscaler's status is written (and read back).
#ifndef GPUA_KUBEOBJECTS_CONFIG_MAP_H_
#define GPUA_KUBEOBJECTS_CONFIG_MAP_H_

#include <string>

#include "absl/status/statusor.h"
#include "estimator/labels.h"
#include "kubeobjects/json_reader.h"

namespace gpua {

struct ConfigMapObject {
  std::string namespace_name;
  std::string name;
  Labels data;
  Labels annotations;  // the controller keeps intent there (the MIG layouts on their way)
  std::string resource_version;
};
absl::StatusOr<ConfigMapObject> DecodeConfigMap(const JsonReader& object);

}  // namespace gpua

#endif  // GPUA_KUBEOBJECTS_CONFIG_MAP_H_
