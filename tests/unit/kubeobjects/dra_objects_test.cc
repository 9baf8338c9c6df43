// DeviceClasses, ResourceSlices, ResourceClaims, their templates and a pod's claims, decoded
// from the JSON shapes resource.k8s.io v1 and v1beta1 write, then put together and
// allocated as the scheduler would; and every malformed field refused with its name.
#include "kubeobjects/dra_objects.h"

#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "estimator/dra/allocator.h"
#include "estimator/dra/pod_claims.h"
#include "kubeobjects/device_classes.h"
#include "kubeobjects/pods.h"
#include "kubeobjects/resource_claims.h"
#include "kubeobjects/resource_slices.h"

namespace gpua {
namespace {

using nlohmann::json;

// A slice as NVIDIA's DRA driver publishes a node's GPUs: one pool per node.
json GpuSlice(const std::string& node, int gpus, int generation = 1, int count = 1,
              const std::string& suffix = "") {
  json devices = json::array();
  for (int i = 0; i < gpus; ++i) {
    devices.push_back(
        {{"name", "gpu-" + std::to_string(i)},
         {"attributes",
          {{"type", {{"string", "gpu"}}},
           {"productName", {{"string", "NVIDIA H100 80GB HBM3"}}},
           {"architecture", {{"string", "Hopper"}}},
           {"cudaComputeCapability", {{"version", "9.0.0"}}},
           {"driverVersion", {{"version", "550.54.15"}}},
           {"index", {{"int", i}}},
           {"resource.kubernetes.io/pcieRoot", {{"string", i < 4 ? "pci0" : "pci1"}}}}},
         {"capacity", {{"memory", {{"value", "80Gi"}}}}}});
  }
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", node + "-gpu.nvidia.com" + suffix}}},
          {"spec",
           {{"driver", "gpu.nvidia.com"},
            {"nodeName", node},
            {"pool", {{"name", node}, {"generation", generation}, {"resourceSliceCount", count}}},
            {"devices", devices}}}};
}

json GpuClass() {
  return json::parse(R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
    "metadata": {"name": "gpu.nvidia.com"},
    "spec": {"selectors": [{"cel": {"expression":
      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}}],
      "extendedResourceName": "nvidia.com/gpu"}})");
}

json TwoGpuTemplate() {
  return json::parse(R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "two-gpus", "namespace": "ml"},
    "spec": {"spec": {"devices": {
      "requests": [{"name": "gpus", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 2,
        "selectors": [{"cel": {"expression":
          "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"}}]}}],
      "constraints": [{"requests": ["gpus"], "matchAttribute": "resource.kubernetes.io/pcieRoot"}]
    }}}})");
}

std::string ErrorOf(const absl::Status& st) { return std::string(st.message()); }

TEST_CASE("A v1 slice decodes to devices with qualified attributes and capacity") {
  absl::StatusOr<dra::ResourceSlice> slice = DecodeResourceSlice(JsonReader(GpuSlice("node-a", 8)));
  REQUIRE(slice.ok());
  CHECK(slice->driver == "gpu.nvidia.com");
  CHECK(slice->node_name == "node-a");
  REQUIRE(slice->devices.size() == 8);
  const dra::Device& d = slice->devices[5];
  CHECK(std::get<std::string>(*d.Attribute("productName", "gpu.nvidia.com")) ==
        "NVIDIA H100 80GB HBM3");
  CHECK(std::get<std::string>(*d.Attribute("resource.kubernetes.io/pcieRoot", "gpu.nvidia.com")) ==
        "pci1");
  CHECK(std::get<cel::Semver>(*d.Attribute("gpu.nvidia.com/driverVersion", "x")).major == 550);
  CHECK(d.capacity.at("gpu.nvidia.com").at("memory") == *Quantity::Parse("80Gi"));
}

TEST_CASE("A v1beta1 slice keeps each device's fields under basic, with MIG counters") {
  const json slice = json::parse(R"({
    "apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice",
    "metadata": {"name": "node-m-gpu"},
    "spec": {"driver": "gpu.nvidia.com", "nodeName": "node-m",
      "pool": {"name": "node-m", "generation": 3, "resourceSliceCount": 1},
      "sharedCounters": [{"name": "gpu-0-counter-set", "counters": {
        "memory-slice-0": {"value": "1"}, "memory-slice-1": {"value": "1"}}}],
      "devices": [
        {"name": "gpu-0-mig-1g", "basic": {"attributes": {"profile": {"string": "1g.10gb"}},
          "consumesCounters": [{"counterSet": "gpu-0-counter-set",
            "counters": {"memory-slice-0": {"value": "1"}}}]}},
        {"name": "gpu-0-mig-2g", "basic": {"attributes": {"profile": {"string": "2g.20gb"}},
          "consumesCounters": [{"counterSet": "gpu-0-counter-set",
            "counters": {"memory-slice-0": {"value": "1"}, "memory-slice-1": {"value": "1"}}}]}}
      ]}})");
  absl::StatusOr<dra::ResourceSlice> s = DecodeResourceSlice(JsonReader(slice));
  REQUIRE(s.ok());
  REQUIRE(s->devices.size() == 2);
  CHECK(s->devices[1].consumes_counters[0].counters.size() == 2);
  REQUIRE(s->counter_sets.size() == 1);
  CHECK(s->counter_sets[0].counters.at("memory-slice-1") == Quantity::FromUnits(1));
}

TEST_CASE("A pool counts only when every slice of its newest generation is seen") {
  auto decode = [](const json& j) {
    return std::make_shared<const dra::ResourceSlice>(*DecodeResourceSlice(JsonReader(j)));
  };
  // node-a: generation 2 in two slices, only one seen; an old generation-1 slice lingers.
  // node-b: complete.
  dra::NodePools pools(
      {decode(GpuSlice("node-a", 4, 2, 2, "-0")), decode(GpuSlice("node-a", 8, 1, 1, "-old")),
       decode(GpuSlice("node-b", 4, 1, 2, "-0")), decode(GpuSlice("node-b", 4, 1, 2, "-1"))});
  auto a = pools.ForNode("node-a");
  REQUIRE(a != nullptr);
  CHECK(a->pools.empty());
  CHECK(a->incomplete == std::vector<std::string>{"gpu.nvidia.com/node-a"});
  auto b = pools.ForNode("node-b");
  REQUIRE(b != nullptr);
  REQUIRE(b->pools.size() == 1);
  CHECK(b->DeviceCount() == 8);
  CHECK(pools.ForNode("node-c") == nullptr);
}

TEST_CASE("Decoded class, template and slices allocate as the scheduler would") {
  absl::StatusOr<dra::DeviceClass> cls = DecodeDeviceClass(JsonReader(GpuClass()));
  REQUIRE(cls.ok());
  CHECK(cls->extended_resource_name == "nvidia.com/gpu");
  absl::StatusOr<dra::ResourceClaimTemplate> tmpl =
      DecodeResourceClaimTemplate(JsonReader(TwoGpuTemplate()));
  REQUIRE(tmpl.ok());
  dra::DeviceClasses classes{{cls->name, *cls}};
  auto slice = std::make_shared<const dra::ResourceSlice>(
      *DecodeResourceSlice(JsonReader(GpuSlice("n", 8))));
  dra::NodePools pools({slice});
  dra::DeviceUse use(pools.ForNode("n"));
  dra::MatchCache cache;
  for (int round = 0; round < 4; ++round) {
    auto picks = dra::Allocate(dra::AllocationRequest{{tmpl->spec.get()}, &classes}, use, &cache);
    REQUIRE(picks.ok());
    use.Take((*picks)[0]);
  }
  auto full = dra::Allocate(dra::AllocationRequest{{tmpl->spec.get()}, &classes}, use, &cache);
  REQUIRE_FALSE(full.ok());
  CHECK(
      ErrorOf(full.status()) ==
      "request gpus: no free device of class gpu.nvidia.com: 8 of the node's 8 devices are in use");
}

TEST_CASE("A claim with its allocation, and a v1beta1 request with fields inline") {
  const json claim = json::parse(R"({
    "apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
    "metadata": {"name": "shared-gpu", "namespace": "ml", "uid": "u1"},
    "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu.nvidia.com",
      "allocationMode": "ExactCount", "count": 1}]}},
    "status": {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.nvidia.com", "pool": "node-a", "device": "gpu-3"}]},
      "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node-a"]}]}]}},
      "reservedFor": [{"resource": "pods", "name": "p", "uid": "pod-1"}]}})");
  absl::StatusOr<dra::ResourceClaim> c = DecodeResourceClaim(JsonReader(claim));
  REQUIRE(c.ok());
  CHECK(c->Key() == "ml/shared-gpu");
  REQUIRE(c->spec->requests.size() == 1);
  CHECK(c->spec->requests[0].alternatives[0].device_class_name == "gpu.nvidia.com");
  REQUIRE(c->allocation != nullptr);
  CHECK(c->allocation->devices[0].device == "gpu-3");
  CHECK(c->allocation->node_selector->Matches({}, "node-a"));
  CHECK(c->reserved_for == std::vector<std::string>{"pod-1"});
}

TEST_CASE("firstAvailable sub-requests keep their order and names") {
  const json claim = json::parse(R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
    "metadata": {"name": "c", "namespace": "ml"},
    "spec": {"devices": {"requests": [{"name": "gpu", "firstAvailable": [
      {"name": "big", "deviceClassName": "gpu.nvidia.com", "count": 1},
      {"name": "small", "deviceClassName": "mig.nvidia.com", "count": 2,
       "tolerations": [{"key": "nvidia.com/xid", "operator": "Exists", "effect": "NoSchedule"}]}]}]}}})");
  absl::StatusOr<dra::ResourceClaim> c = DecodeResourceClaim(JsonReader(claim));
  REQUIRE(c.ok());
  const dra::DeviceRequest& r = c->spec->requests[0];
  CHECK(r.first_available);
  REQUIRE(r.alternatives.size() == 2);
  CHECK(r.alternatives[1].name == "small");
  CHECK(r.alternatives[1].count == 2);
  CHECK(r.alternatives[1].tolerations[0].Tolerates("nvidia.com/xid", "79", "NoSchedule"));
}

TEST_CASE("A pod's claims: by name, by template, and the claim made for it") {
  const json pod = json::parse(R"({
    "metadata": {"name": "trainer", "namespace": "ml"},
    "spec": {"containers": [{"name": "c"}], "resourceClaims": [
      {"name": "gpus", "resourceClaimTemplateName": "two-gpus"},
      {"name": "shared", "resourceClaimName": "shared-gpu"}]},
    "status": {"resourceClaimStatuses": [{"name": "gpus", "resourceClaimName": "trainer-gpus-x7k"}]}})");
  const PodSpec spec = DecodePod(pod);
  REQUIRE(spec.invalid.ok());
  REQUIRE(spec.claim_refs.size() == 2);
  CHECK(spec.claim_refs[0] == dra::PodClaimRef{"gpus", "", "two-gpus", "trainer-gpus-x7k"});
  CHECK(spec.claim_refs[1] == dra::PodClaimRef{"shared", "shared-gpu", "", ""});

  dra::ClaimCatalog catalog;
  auto tmpl = std::make_shared<const dra::ResourceClaimTemplate>(
      *DecodeResourceClaimTemplate(JsonReader(TwoGpuTemplate())));
  catalog.templates[tmpl->Key()] = tmpl;
  std::vector<dra::PodClaim> resolved = dra::ResolvePodClaims("ml", spec.claim_refs, catalog);
  REQUIRE(resolved.size() == 2);
  CHECK(resolved[0].unresolved.ok());  // the made claim is not seen yet: its template stands in
  CHECK(resolved[0].spec == tmpl->spec);
  CHECK_FALSE(resolved[0].shared);
  CHECK(ErrorOf(resolved[1].unresolved) == "claim shared: ResourceClaim ml/shared-gpu not found");
  // Two pods made from one template are one class; a pod with a shared claim is not like them.
  const PodSpec twin = DecodePod(json::parse(R"({"metadata": {"name": "t2", "namespace": "ml"},
    "spec": {"containers": [{"name": "c"}], "resourceClaims": [
      {"name": "gpus", "resourceClaimTemplateName": "two-gpus"},
      {"name": "shared", "resourceClaimName": "shared-gpu"}]}})"));
  CHECK(EquivalenceKey(twin) == EquivalenceKey(spec));
}

TEST_CASE("Extended-resource requests become claims only where no device plugin serves them",
          "[dra]") {
  DraObjects dra;
  REQUIRE(AddDraObject(GpuClass(), dra).ok());
  const json pod = json::parse(R"({"metadata": {"name": "p", "namespace": "ml"},
    "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "2"},
      "requests": {"cpu": "1", "deviceclass.resource.kubernetes.io/gpu.nvidia.com": "1"}}}]}})");
  PodSpec converted = DecodePod(pod);
  AttachPodDevices(dra, converted);
  REQUIRE(converted.devices != nullptr);
  REQUIRE(converted.devices->claims.size() == 2);
  CHECK(converted.devices->claims[0].spec->requests[0].alternatives[0].count == 1);
  CHECK(converted.devices->claims[1].name == "extended resource nvidia.com/gpu");
  CHECK(converted.devices->claims[1].spec->requests[0].alternatives[0].count == 2);
  CHECK_FALSE(converted.requests.Has("nvidia.com/gpu"));
  CHECK(converted.requests.Has("cpu"));
  // Another pod asking the same is the same class: one claim spec per class and count.
  PodSpec twin = DecodePod(pod);
  AttachPodDevices(dra, twin);
  CHECK(twin.devices->claims[1].spec == converted.devices->claims[1].spec);

  dra.advertised.insert("nvidia.com/gpu");  // a device plugin serves it somewhere
  PodSpec kept = DecodePod(pod);
  AttachPodDevices(dra, kept);
  CHECK(kept.requests.Has("nvidia.com/gpu"));
  REQUIRE(kept.devices != nullptr);
  CHECK(kept.devices->claims.size() == 1);  // the implicit class name still is DRA's alone
}

TEST_CASE("Malformed DRA objects are refused naming the object and the field") {
  const auto slice_error = [](json j) {
    return ErrorOf(DecodeResourceSlice(JsonReader(j)).status());
  };
  json s = GpuSlice("n", 1);
  s["spec"]["devices"][0]["attributes"]["index"] = {{"int", 1}, {"string", "x"}};
  CHECK(slice_error(s) ==
        "ResourceSlice n-gpu.nvidia.com: spec.devices[0].attributes[index]: "
        "exactly one of int, bool, string and version must be set");
  s = GpuSlice("n", 1);
  s["spec"]["devices"][0]["attributes"]["driverVersion"] = {{"version", "550.54"}};
  CHECK(slice_error(s).find("spec.devices[0].attributes[driverVersion].version") !=
        std::string::npos);
  s = GpuSlice("n", 1);
  s["spec"]["devices"][0]["capacity"]["memory"] = {{"value", "eighty"}};
  CHECK(slice_error(s).find("spec.devices[0].capacity[memory].value") != std::string::npos);
  s = GpuSlice("n", 1);
  s["spec"]["allNodes"] = true;
  CHECK(slice_error(s).find("exactly one of nodeName, nodeSelector, allNodes") !=
        std::string::npos);
  s = GpuSlice("n", 1);
  s["spec"]["pool"]["resourceSliceCount"] = 0;
  CHECK(slice_error(s) ==
        "ResourceSlice n-gpu.nvidia.com: spec.pool.resourceSliceCount: must be at least 1");
  s = GpuSlice("n", 1);
  s["spec"].erase("driver");
  CHECK(slice_error(s) == "ResourceSlice n-gpu.nvidia.com: spec.driver: missing");

  json t = TwoGpuTemplate();
  t["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] = 0;
  CHECK(ErrorOf(DecodeResourceClaimTemplate(JsonReader(t)).status()) ==
        "ResourceClaimTemplate ml/two-gpus: spec.spec.devices.requests[0].exactly.count: must be "
        "at least 1");
  t = TwoGpuTemplate();
  t["spec"]["spec"]["devices"]["requests"][0]["exactly"]["allocationMode"] = "Some";
  CHECK(ErrorOf(DecodeResourceClaimTemplate(JsonReader(t)).status())
            .find("allocationMode: must be ExactCount or All") != std::string::npos);
  t = TwoGpuTemplate();
  t["spec"]["spec"]["devices"]["requests"][0].erase("exactly");
  CHECK(ErrorOf(DecodeResourceClaimTemplate(JsonReader(t)).status())
            .find("exactly one of exactly and firstAvailable") != std::string::npos);
  t = TwoGpuTemplate();
  t["spec"]["spec"]["devices"]["constraints"][0]["matchAttribute"] = "pcieRoot";
  CHECK(ErrorOf(DecodeResourceClaimTemplate(JsonReader(t)).status())
            .find("must be fully qualified") != std::string::npos);
  // Features not planned are refused by name, never planned as something else.
  t = TwoGpuTemplate();
  t["spec"]["spec"]["devices"]["requests"][0]["exactly"]["capacity"] = {
      {"requests", {{"memory", "10Gi"}}}};
  CHECK(ErrorOf(DecodeResourceClaimTemplate(JsonReader(t)).status()) ==
        "ResourceClaimTemplate ml/two-gpus: spec.spec.devices.requests[0].exactly.capacity: "
        "consumable capacity is not planned");
  t = TwoGpuTemplate();
  t["spec"]["spec"]["devices"]["constraints"][0] = {{"distinctAttribute", "gpu.nvidia.com/uuid"}};
  CHECK(ErrorOf(DecodeResourceClaimTemplate(JsonReader(t)).status())
            .find("constraints[0].distinctAttribute: is not planned (only matchAttribute is)") !=
        std::string::npos);
  t = TwoGpuTemplate();
  t["spec"]["spec"]["devices"]["constraints"][0]["requests"] = {"nope"};
  CHECK(ErrorOf(DecodeResourceClaimTemplate(JsonReader(t)).status())
            .find("names a request the claim does not have: nope") != std::string::npos);

  json c = GpuClass();
  c["spec"]["selectors"][0] = {{"expression", "true"}};
  CHECK(ErrorOf(DecodeDeviceClass(JsonReader(c)).status()) ==
        "DeviceClass gpu.nvidia.com: spec.selectors[0].cel: missing: a selector needs a cel "
        "expression");
  // A selector that does not compile is kept, with its error, for the claim's event.
  c = GpuClass();
  c["spec"]["selectors"][0]["cel"]["expression"] = "device.driver ==";
  absl::StatusOr<dra::DeviceClass> kept = DecodeDeviceClass(JsonReader(c));
  REQUIRE(kept.ok());
  CHECK_FALSE(kept->selectors[0].error.ok());

  const PodSpec both = DecodePod(json::parse(R"({"metadata": {"name": "p"},
    "spec": {"containers": [{"name": "c"}], "resourceClaims": [
      {"name": "x", "resourceClaimName": "a", "resourceClaimTemplateName": "b"}]}})"));
  CHECK(ErrorOf(both.invalid)
            .find("spec.resourceClaims[0]: exactly one of resourceClaimName and "
                  "resourceClaimTemplateName") != std::string::npos);
}

}  // namespace
}  // namespace gpua
