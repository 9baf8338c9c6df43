#include "kubeobjects/config_map.h"

#include "kubeobjects/object_meta.h"

namespace gpua {

absl::StatusOr<ConfigMapObject> DecodeConfigMap(const JsonReader& object) {
  return DecodeNamed<ConfigMapObject>(object, "ConfigMap", [&](ConfigMapObject& out) {
    absl::StatusOr<Labels> data = object.Field("data").StringMap();
    if (data.ok()) out.data = *std::move(data);
    return data.status();
  });
}

}  // namespace gpua
