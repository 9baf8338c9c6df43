#include "cloudproviders/slice_proto.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kubeobjects/json_reader.h"
#include "kubeobjects/resource_slices.h"

namespace gpua {
namespace {

using nlohmann::json;

void PutAttribute(const dra::AttributeValue& v, resourcev1::DeviceAttribute* out) {
  struct Writer {
    resourcev1::DeviceAttribute* out;
    void operator()(int64_t i) const { out->set_int_(i); }
    void operator()(bool b) const { out->set_bool_(b); }
    void operator()(const std::string& s) const { out->set_string(s); }
    void operator()(const cel::Semver& s) const { out->set_version(s.ToString()); }
  };
  std::visit(Writer{out}, v);
}

// The attribute's name as the driver writes it: unqualified in its own domain.
std::string WireName(const std::string& domain, const std::string& name,
                     const std::string& driver) {
  return domain == driver ? name : absl::StrCat(domain, "/", name);
}

template <typename Map>
json Counters(const Map& counters) {
  json out = json::object();
  for (const auto& [name, c] : counters) out[name] = {{"value", c.value().string()}};
  return out;
}

// The slice in its JSON shape, so it is checked by the one decoder every slice goes through.
json ToJson(const resourcev1::ResourceSlice& s) {
  const auto& spec = s.spec();
  json devices = json::array();
  for (const resourcev1::Device& d : spec.devices()) {
    json attributes = json::object();
    for (const auto& [name, a] : d.attributes()) {
      json value = json::object();
      if (a.has_int_()) value["int"] = a.int_();
      if (a.has_bool_()) value["bool"] = a.bool_();
      if (a.has_string()) value["string"] = a.string();
      if (a.has_version()) value["version"] = a.version();
      attributes[name] = std::move(value);
    }
    json capacity = json::object();
    for (const auto& [name, c] : d.capacity()) capacity[name] = {{"value", c.value().string()}};
    json consumes = json::array();
    for (const auto& c : d.consumescounters()) {
      consumes.push_back({{"counterSet", c.counterset()}, {"counters", Counters(c.counters())}});
    }
    json taints = json::array();
    for (const auto& t : d.taints()) {
      taints.push_back({{"key", t.key()}, {"value", t.value()}, {"effect", t.effect()}});
    }
    // Empty lists are left out, as the API server's own answers leave them: it reads a list
    // that is there, however empty, as set (and refuses sharedCounters beside devices).
    json device = {{"name", d.name()}};
    if (!attributes.empty()) device["attributes"] = std::move(attributes);
    if (!capacity.empty()) device["capacity"] = std::move(capacity);
    if (!consumes.empty()) device["consumesCounters"] = std::move(consumes);
    if (!taints.empty()) device["taints"] = std::move(taints);
    if (d.allowmultipleallocations()) device["allowMultipleAllocations"] = true;
    devices.push_back(std::move(device));
  }
  json counter_sets = json::array();
  for (const auto& c : spec.sharedcounters()) {
    counter_sets.push_back({{"name", c.name()}, {"counters", Counters(c.counters())}});
  }
  json out_spec = {
      {"driver", spec.driver()},
      {"pool",
       {{"name", spec.pool().name()},
        {"generation", spec.pool().generation()},
        {"resourceSliceCount",
         spec.pool().has_resourceslicecount() ? spec.pool().resourceslicecount() : 1}}},
  };
  if (!devices.empty()) out_spec["devices"] = std::move(devices);
  if (!counter_sets.empty()) out_spec["sharedCounters"] = std::move(counter_sets);
  if (!spec.nodename().empty()) out_spec["nodeName"] = spec.nodename();
  if (spec.allnodes()) out_spec["allNodes"] = true;
  if (spec.perdevicenodeselection()) out_spec["perDeviceNodeSelection"] = true;
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", s.metadata().name()}}},
          {"spec", std::move(out_spec)}};
}

}  // namespace

resourcev1::ResourceSlice ResourceSliceToProto(const dra::ResourceSlice& slice) {
  resourcev1::ResourceSlice out;
  out.mutable_metadata()->set_name(slice.name);
  auto* spec = out.mutable_spec();
  spec->set_driver(slice.driver);
  spec->mutable_pool()->set_name(slice.pool);
  spec->mutable_pool()->set_generation(slice.generation);
  spec->mutable_pool()->set_resourceslicecount(slice.slice_count);
  if (!slice.node_name.empty()) spec->set_nodename(slice.node_name);
  if (slice.all_nodes) spec->set_allnodes(true);
  if (slice.per_device_node_selection) spec->set_perdevicenodeselection(true);
  for (const dra::Device& d : slice.devices) {
    resourcev1::Device* wire = spec->add_devices();
    wire->set_name(d.name);
    for (const auto& [domain, attributes] : d.attributes) {
      for (const auto& [name, value] : attributes) {
        PutAttribute(value, &(*wire->mutable_attributes())[WireName(domain, name, slice.driver)]);
      }
    }
    for (const auto& [domain, capacities] : d.capacity) {
      for (const auto& [name, q] : capacities) {
        (*wire->mutable_capacity())[WireName(domain, name, slice.driver)]
            .mutable_value()
            ->set_string(q.ToString());
      }
    }
    for (const dra::CounterConsumption& c : d.consumes_counters) {
      auto* use = wire->add_consumescounters();
      use->set_counterset(c.counter_set);
      for (const auto& [name, q] : c.counters) {
        (*use->mutable_counters())[name].mutable_value()->set_string(q.ToString());
      }
    }
    for (const dra::DeviceTaint& t : d.taints) {
      auto* taint = wire->add_taints();
      taint->set_key(t.key);
      taint->set_value(t.value);
      taint->set_effect(t.effect);
    }
    if (d.allow_multiple_allocations) wire->set_allowmultipleallocations(true);
  }
  for (const dra::CounterSet& c : slice.counter_sets) {
    auto* set = spec->add_sharedcounters();
    set->set_name(c.name);
    for (const auto& [name, q] : c.counters) {
      (*set->mutable_counters())[name].mutable_value()->set_string(q.ToString());
    }
  }
  return out;
}

nlohmann::json ResourceSliceToJson(const dra::ResourceSlice& slice) {
  return ToJson(ResourceSliceToProto(slice));
}

absl::StatusOr<dra::ResourceSlice> ResourceSliceFromBytes(const std::string& bytes,
                                                          absl::string_view what) {
  resourcev1::ResourceSlice wire;
  if (!wire.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a protobuf-serialized k8s.io.api.resource.v1.ResourceSlice"));
  }
  // A plugin need not name a template's slice: no API server will see it.
  if (wire.metadata().name().empty()) wire.mutable_metadata()->set_name("template-slice");
  const json object = ToJson(wire);
  absl::StatusOr<dra::ResourceSlice> slice = DecodeResourceSlice(JsonReader(object));
  if (!slice.ok())
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", slice.status().message()));
  return slice;
}

}  // namespace gpua
