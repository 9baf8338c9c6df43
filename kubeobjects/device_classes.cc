#include "kubeobjects/device_classes.h"

#include <memory>
#include <string>

#include "base/status_macros.h"
#include "kubeobjects/object_meta.h"

namespace gpua {

absl::StatusOr<std::vector<dra::DeviceSelector>> DecodeDeviceSelectors(const JsonReader& list) {
  std::vector<dra::DeviceSelector> out;
  GPUA_RETURN_IF_ERROR(list.ForEach([&](const JsonReader& s) -> absl::Status {
    const JsonReader cel = s.Field("cel");
    if (!cel.IsObject()) return cel.Error("missing: a selector needs a cel expression");
    dra::DeviceSelector selector;
    GPUA_ASSIGN_OR_RETURN(selector.expression, cel.Field("expression").String());
    if (selector.expression.empty()) return cel.Field("expression").Error("missing");
    absl::StatusOr<cel::Program> program = cel::Program::Compile(selector.expression);
    if (program.ok()) {
      selector.program = std::make_shared<const cel::Program>(*std::move(program));
    } else {
      selector.error = program.status();
    }
    out.push_back(std::move(selector));
    return absl::OkStatus();
  }));
  return out;
}

namespace {

// DeviceClass has no namespace; DecodeNamed's fields are kept here for its errors.
struct NamedClass {
  std::string namespace_name;
  std::string name;
  std::string resource_version;
  dra::DeviceClass value;
};

}  // namespace

absl::StatusOr<dra::DeviceClass> DecodeDeviceClass(const JsonReader& object) {
  absl::StatusOr<NamedClass> named =
      DecodeNamed<NamedClass>(object, "DeviceClass", [&](NamedClass& out) -> absl::Status {
        out.value.name = out.name;
        out.value.resource_version = out.resource_version;
        const JsonReader spec = object.Field("spec");
        if (!spec.IsNull() && !spec.IsObject()) return spec.Error("not an object");
        GPUA_ASSIGN_OR_RETURN(out.value.selectors, DecodeDeviceSelectors(spec.Field("selectors")));
        GPUA_ASSIGN_OR_RETURN(out.value.extended_resource_name,
                              spec.Field("extendedResourceName").String());
        return absl::OkStatus();
      });
  if (!named.ok()) return named.status();
  return std::move(named->value);
}

}  // namespace gpua
