#include "estimator/dra/device.h"

namespace gpua::dra {

std::pair<std::string, std::string> SplitQualifiedName(absl::string_view qualified,
                                                       absl::string_view default_domain) {
  const size_t slash = qualified.find('/');
  if (slash == absl::string_view::npos) {
    return {std::string(default_domain), std::string(qualified)};
  }
  return {std::string(qualified.substr(0, slash)), std::string(qualified.substr(slash + 1))};
}

const AttributeValue* Device::Attribute(absl::string_view qualified,
                                        absl::string_view driver) const {
  const auto [domain, name] = SplitQualifiedName(qualified, driver);
  auto d = attributes.find(domain);
  if (d == attributes.end()) return nullptr;
  auto a = d->second.find(name);
  return a == d->second.end() ? nullptr : &a->second;
}

size_t NodeDevices::DeviceCount() const {
  size_t n = 0;
  for (const DevicePool& p : pools) n += p.devices.size();
  return n;
}

}  // namespace gpua::dra
