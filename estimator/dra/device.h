// Devices as Dynamic Resource Allocation publishes them (resource.k8s.io ResourceSlices):
// each with attributes and capacities in the domain of the driver or of a standard, the
// counters it consumes from its pool's shared counter sets (a MIG partition consumes its
// parent GPU's), and taints. A node's devices are the complete pools it can reach.
#ifndef GPUA_ESTIMATOR_DRA_DEVICE_H_
#define GPUA_ESTIMATOR_DRA_DEVICE_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "estimator/cel/cel_value.h"
#include "estimator/quantity.h"

namespace gpua::dra {

// DeviceAttribute: exactly one of int, bool, string or version.
using AttributeValue = std::variant<int64_t, bool, std::string, cel::Semver>;

// Attributes and capacities by domain, then name: what CEL's device.attributes["domain"].name
// reads. A name published without a domain belongs to the driver's.
template <typename T>
using ByDomain = absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, T>>;

// Splits "domain/name"; an unqualified name gets `default_domain`.
std::pair<std::string, std::string> SplitQualifiedName(absl::string_view qualified,
                                                       absl::string_view default_domain);

struct DeviceTaint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule or NoExecute keep a device from new allocations; None does not
};

struct CounterConsumption {
  std::string counter_set;
  absl::flat_hash_map<std::string, Quantity> counters;
};

struct Device {
  std::string name;
  ByDomain<AttributeValue> attributes;
  ByDomain<Quantity> capacity;
  std::vector<CounterConsumption> consumes_counters;
  std::vector<DeviceTaint> taints;
  bool allow_multiple_allocations = false;

  // The attribute by its fully qualified name ("gpu.nvidia.com/productName"), or null.
  const AttributeValue* Attribute(absl::string_view qualified, absl::string_view driver) const;
};

struct CounterSet {
  std::string name;
  absl::flat_hash_map<std::string, Quantity> counters;
};

// One driver's pool, whole: every slice of its newest generation was seen.
struct DevicePool {
  std::string driver;
  std::string name;
  int64_t generation = 0;
  std::vector<Device> devices;
  std::vector<CounterSet> counter_sets;
};

// What one node can allocate from: its pools, in the order a scheduler walks them (by driver,
// then pool name), and the pools seen incomplete (a driver still publishing), which offer
// nothing until they are whole.
struct NodeDevices {
  std::vector<DevicePool> pools;
  std::vector<std::string> incomplete;  // "driver/pool"

  size_t DeviceCount() const;
};

}  // namespace gpua::dra

#endif  // GPUA_ESTIMATOR_DRA_DEVICE_H_
