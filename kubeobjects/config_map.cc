#include "kubeobjects/config_map.h"

#include "kubeobjects/object_meta.h"

namespace gpua {

absl::StatusOr<ConfigMapObject> DecodeConfigMap(const JsonReader& object) {
  return DecodeNamed<ConfigMapObject>(object, "ConfigMap", [&](ConfigMapObject& out) {
    absl::StatusOr<Labels> data = object.Field("data").StringMap();
    if (!data.ok()) return data.status();
    out.data = *std::move(data);
    absl::StatusOr<Labels> annotations = object.Field("metadata").Field("annotations").StringMap();
    if (!annotations.ok()) return annotations.status();
    out.annotations = *std::move(annotations);
    return absl::OkStatus();
  });
}

}  // namespace gpua
