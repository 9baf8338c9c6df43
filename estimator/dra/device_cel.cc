#include "estimator/dra/device_cel.h"

#include <memory>
#include <optional>
#include <utility>

namespace gpua::dra {
namespace {

// One domain's attributes or capacities.
template <typename T>
class DomainObject : public cel::Object {
 public:
  explicit DomainObject(const absl::flat_hash_map<std::string, T>* values) : values_(values) {}
  std::optional<cel::Value> Field(absl::string_view name) const override {
    if (values_ == nullptr) return std::nullopt;
    auto it = values_->find(name);
    if (it == values_->end()) return std::nullopt;
    return Convert(it->second);
  }
  std::string TypeName() const override { return "map"; }

 private:
  static cel::Value Convert(const AttributeValue& v) { return AttributeToCel(v); }
  static cel::Value Convert(const Quantity& q) { return cel::Value::MakeQuantity(q); }
  const absl::flat_hash_map<std::string, T>* values_;
};

// device.attributes or device.capacity: every domain is present, the ones the device lacks
// empty.
template <typename T>
class DomainsObject : public cel::Object {
 public:
  explicit DomainsObject(const ByDomain<T>* domains) : domains_(domains) {}
  std::optional<cel::Value> Field(absl::string_view domain) const override {
    auto it = domains_->find(domain);
    return cel::Value::MakeObject(
        std::make_shared<DomainObject<T>>(it == domains_->end() ? nullptr : &it->second));
  }
  std::string TypeName() const override { return "map"; }

 private:
  const ByDomain<T>* domains_;
};

class DeviceObject : public cel::Object {
 public:
  DeviceObject(const Device* device, std::string driver)
      : device_(device), driver_(std::move(driver)) {}
  std::optional<cel::Value> Field(absl::string_view name) const override {
    if (name == "driver") return cel::Value::String(driver_);
    if (name == "attributes") {
      return cel::Value::MakeObject(
          std::make_shared<DomainsObject<AttributeValue>>(&device_->attributes));
    }
    if (name == "capacity") {
      return cel::Value::MakeObject(std::make_shared<DomainsObject<Quantity>>(&device_->capacity));
    }
    if (name == "allowMultipleAllocations") {
      return cel::Value::Bool(device_->allow_multiple_allocations);
    }
    return std::nullopt;
  }
  std::string TypeName() const override { return "device"; }

 private:
  const Device* device_;
  std::string driver_;
};

}  // namespace

cel::Value AttributeToCel(const AttributeValue& v) {
  struct Converter {
    cel::Value operator()(int64_t i) const { return cel::Value::Int(i); }
    cel::Value operator()(bool b) const { return cel::Value::Bool(b); }
    cel::Value operator()(const std::string& s) const { return cel::Value::String(s); }
    cel::Value operator()(const cel::Semver& s) const { return cel::Value::MakeSemver(s); }
  };
  return std::visit(Converter{}, v);
}

cel::Bindings DeviceBindings(const Device& device, const std::string& driver) {
  return {{"device", cel::Value::MakeObject(std::make_shared<DeviceObject>(&device, driver))}};
}

}  // namespace gpua::dra
