#include "kubeobjects/resource_slices.h"

#include <string>
#include <utility>

#include "base/status_macros.h"
#include "kubeobjects/object_meta.h"
#include "kubeobjects/selectors.h"

namespace gpua {
namespace {

absl::StatusOr<dra::AttributeValue> DecodeAttribute(const JsonReader& a) {
  int set = 0;
  dra::AttributeValue out;
  if (a.Has("int")) {
    GPUA_ASSIGN_OR_RETURN(int64_t i, a.Field("int").Int());
    out = i;
    ++set;
  }
  if (a.Has("bool")) {
    GPUA_ASSIGN_OR_RETURN(bool b, a.Field("bool").Bool());
    out = b;
    ++set;
  }
  if (a.Has("string")) {
    GPUA_ASSIGN_OR_RETURN(std::string s, a.Field("string").String());
    out = std::move(s);
    ++set;
  }
  if (a.Has("version")) {
    GPUA_ASSIGN_OR_RETURN(std::string v, a.Field("version").String());
    absl::StatusOr<cel::Semver> parsed = cel::Semver::Parse(v);
    if (!parsed.ok()) return a.Field("version").Error(parsed.status().message());
    out = *std::move(parsed);
    ++set;
  }
  if (set != 1) return a.Error("exactly one of int, bool, string and version must be set");
  return out;
}

// A quantity written as a string ("80Gi") or a number.
absl::StatusOr<Quantity> ReadQuantity(const JsonReader& value) {
  if (value.IsNull()) return value.Error("missing");
  absl::StatusOr<Quantity> q = value.type() == JsonReader::Type::kString
                                   ? Quantity::Parse(value.StringView().value_or(""))
                                   : absl::StatusOr<Quantity>(absl::InvalidArgumentError(""));
  if (!q.ok() && value.type() == JsonReader::Type::kInteger) {
    GPUA_ASSIGN_OR_RETURN(int64_t units, value.Int());
    q = Quantity::FromUnits(units);
  }
  if (!q.ok())
    return value.Error(q.status().message().empty() ? "not a quantity" : q.status().message());
  if (q->Sign() < 0) return value.Error("must not be negative");
  return q;
}

// A map of {value: quantity} (capacities and counters).
absl::StatusOr<absl::flat_hash_map<std::string, Quantity>> DecodeAmounts(const JsonReader& map) {
  absl::flat_hash_map<std::string, Quantity> out;
  GPUA_RETURN_IF_ERROR(map.ForEachMember([&](absl::string_view name, const JsonReader& c) {
    GPUA_ASSIGN_OR_RETURN(Quantity q, ReadQuantity(c.Field("value")));
    out[std::string(name)] = q;
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<dra::CounterSet>> DecodeCounterSets(const JsonReader& list) {
  std::vector<dra::CounterSet> out;
  GPUA_RETURN_IF_ERROR(list.ForEach([&](const JsonReader& s) -> absl::Status {
    dra::CounterSet set;
    GPUA_ASSIGN_OR_RETURN(set.name, s.Field("name").String());
    if (set.name.empty()) return s.Field("name").Error("missing");
    GPUA_ASSIGN_OR_RETURN(set.counters, DecodeAmounts(s.Field("counters")));
    out.push_back(std::move(set));
    return absl::OkStatus();
  }));
  return out;
}

absl::Status DecodeDeviceFields(const JsonReader& d, const std::string& driver,
                                dra::Device& device) {
  GPUA_RETURN_IF_ERROR(
      d.Field("attributes")
          .ForEachMember([&](absl::string_view name, const JsonReader& a) -> absl::Status {
            GPUA_ASSIGN_OR_RETURN(dra::AttributeValue v, DecodeAttribute(a));
            auto [domain, local] = dra::SplitQualifiedName(name, driver);
            device.attributes[domain][local] = std::move(v);
            return absl::OkStatus();
          }));
  GPUA_ASSIGN_OR_RETURN(auto capacity, DecodeAmounts(d.Field("capacity")));
  for (auto& [name, q] : capacity) {
    auto [domain, local] = dra::SplitQualifiedName(name, driver);
    device.capacity[domain][local] = q;
  }
  GPUA_RETURN_IF_ERROR(
      d.Field("consumesCounters").ForEach([&](const JsonReader& c) -> absl::Status {
        dra::CounterConsumption use;
        GPUA_ASSIGN_OR_RETURN(use.counter_set, c.Field("counterSet").String());
        if (use.counter_set.empty()) return c.Field("counterSet").Error("missing");
        GPUA_ASSIGN_OR_RETURN(use.counters, DecodeAmounts(c.Field("counters")));
        device.consumes_counters.push_back(std::move(use));
        return absl::OkStatus();
      }));
  GPUA_RETURN_IF_ERROR(d.Field("taints").ForEach([&](const JsonReader& t) -> absl::Status {
    dra::DeviceTaint taint;
    GPUA_ASSIGN_OR_RETURN(taint.key, t.Field("key").String());
    GPUA_ASSIGN_OR_RETURN(taint.value, t.Field("value").String());
    GPUA_ASSIGN_OR_RETURN(taint.effect, t.Field("effect").String());
    if (taint.key.empty()) return t.Field("key").Error("missing");
    device.taints.push_back(std::move(taint));
    return absl::OkStatus();
  }));
  GPUA_ASSIGN_OR_RETURN(device.allow_multiple_allocations,
                        d.Field("allowMultipleAllocations").Bool());
  return absl::OkStatus();
}

absl::Status DecodeSliceSpec(const JsonReader& spec, dra::ResourceSlice& out) {
  if (!spec.IsObject()) return spec.Error("missing or not an object");
  GPUA_ASSIGN_OR_RETURN(out.driver, spec.Field("driver").String());
  if (out.driver.empty()) return spec.Field("driver").Error("missing");
  const JsonReader pool = spec.Field("pool");
  GPUA_ASSIGN_OR_RETURN(out.pool, pool.Field("name").String());
  if (out.pool.empty()) return pool.Field("name").Error("missing");
  GPUA_ASSIGN_OR_RETURN(out.generation, pool.Field("generation").Int());
  GPUA_ASSIGN_OR_RETURN(out.slice_count, pool.Field("resourceSliceCount").Int(1));
  if (out.generation < 0) return pool.Field("generation").Error("must not be negative");
  if (out.slice_count < 1) return pool.Field("resourceSliceCount").Error("must be at least 1");
  GPUA_ASSIGN_OR_RETURN(out.node_name, spec.Field("nodeName").String());
  GPUA_ASSIGN_OR_RETURN(out.all_nodes, spec.Field("allNodes").Bool());
  GPUA_ASSIGN_OR_RETURN(out.per_device_node_selection, spec.Field("perDeviceNodeSelection").Bool());
  if (spec.Has("nodeSelector")) {
    GPUA_ASSIGN_OR_RETURN(out.node_selector, DecodeNodeSelector(spec.Field("nodeSelector")));
  }
  const int placements = (out.node_name.empty() ? 0 : 1) + (out.all_nodes ? 1 : 0) +
                         (out.node_selector ? 1 : 0) + (out.per_device_node_selection ? 1 : 0);
  if (placements != 1) {
    return spec.Error(
        "exactly one of nodeName, nodeSelector, allNodes and perDeviceNodeSelection must be set");
  }
  GPUA_RETURN_IF_ERROR(spec.Field("devices").ForEach([&](const JsonReader& d) -> absl::Status {
    dra::Device device;
    GPUA_ASSIGN_OR_RETURN(device.name, d.Field("name").String());
    if (device.name.empty()) return d.Field("name").Error("missing");
    // v1beta1 keeps a device's fields under `basic`.
    const JsonReader fields = d.Has("basic") ? d.Field("basic") : d;
    GPUA_RETURN_IF_ERROR(DecodeDeviceFields(fields, out.driver, device));
    out.devices.push_back(std::move(device));
    return absl::OkStatus();
  }));
  GPUA_ASSIGN_OR_RETURN(out.counter_sets, DecodeCounterSets(spec.Field("sharedCounters")));
  return absl::OkStatus();
}

struct NamedSlice {
  std::string namespace_name;
  std::string name;
  std::string resource_version;
  dra::ResourceSlice value;
};

}  // namespace

absl::StatusOr<dra::ResourceSlice> DecodeResourceSlice(const JsonReader& object) {
  absl::StatusOr<NamedSlice> named =
      DecodeNamed<NamedSlice>(object, "ResourceSlice", [&](NamedSlice& out) -> absl::Status {
        out.value.name = out.name;
        out.value.resource_version = out.resource_version;
        return DecodeSliceSpec(object.Field("spec"), out.value);
      });
  if (!named.ok()) return named.status();
  return std::move(named->value);
}

}  // namespace gpua
