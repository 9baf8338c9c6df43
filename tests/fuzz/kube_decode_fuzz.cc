// Fuzzes what the informers decode from the API server: any bytes as a Pod, Node,
// PodDisruptionBudget, DaemonSet, workload controller, Lease and DRA object (DeviceClass,
// ResourceSlice, ResourceClaim, ResourceClaimTemplate), read from simdjson's DOM
// (as the informers do) and from nlohmann's tree (as the file-reading tools do). Nothing may
// crash, and both readings must agree on whether an object is valid and what it asks for:
// the controller and `gpu-autoscaler estimate` must never see two different pods.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "kubeobjects/config_map.h"
#include "kubeobjects/device_classes.h"
#include "kubeobjects/json_text.h"
#include "kubeobjects/lease.h"
#include "kubeobjects/nodes.h"
#include "kubeobjects/pods.h"
#include "kubeobjects/policy.h"
#include "kubeobjects/resource_claims.h"
#include "kubeobjects/resource_slices.h"
#include "kubeobjects/workloads.h"
#include "tests/fuzz/repeated_keys.h"

namespace {

void Disagree(const char* what, const std::string& simd, const std::string& tree) {
  std::cerr << what << " differs:\n  simdjson: " << simd << "\n  nlohmann: " << tree << "\n";
  std::abort();
}

std::string Describe(const gpua::PodSpec& pod) {
  if (!pod.invalid.ok()) return std::string(pod.invalid.message());
  return gpua::EquivalenceKey(pod) + "|" + pod.requests.ToString();
}

template <typename T>
std::string Describe(const absl::StatusOr<T>& decoded) {
  return decoded.ok() ? "ok" : std::string(decoded.status().message());
}

// A slice's devices and counters, counted, so the two readers must agree on what it holds.
std::string DescribeSlice(const absl::StatusOr<gpua::dra::ResourceSlice>& s) {
  if (!s.ok()) return std::string(s.status().message());
  std::string out = s->driver + "/" + s->pool;
  for (const gpua::dra::Device& d : s->devices) {
    out += "|" + d.name + ":" + std::to_string(d.attributes.size()) + "," +
           std::to_string(d.capacity.size()) + "," + std::to_string(d.consumes_counters.size());
  }
  return out + "|" + std::to_string(s->counter_sets.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text).get(doc) != simdjson::SUCCESS) return 0;
  const absl::StatusOr<nlohmann::json> read = gpua::ParseJson(text, "fuzz.json");
  // The file tools' reader refuses every repeated key, where the two readers would differ.
  if (gpua::fuzz::HasRepeatedKeys(doc)) {
    if (read.ok()) Disagree("repeated keys", "refused", "read");
    return 0;
  }
  if (!read.ok()) return 0;  // simdjson took what nlohmann refuses (or 1000-1024 deep)
  const nlohmann::json& tree = *read;
  const gpua::JsonReader simd(doc);
  const gpua::JsonReader nl(tree);

  const std::string pod_simd = Describe(gpua::DecodePodObject(simd).spec);
  const std::string pod_tree = Describe(gpua::DecodePodObject(nl).spec);
  if (pod_simd != pod_tree) Disagree("Pod", pod_simd, pod_tree);

  const auto same = [](const char* kind, const std::string& a, const std::string& b) {
    if (a != b) Disagree(kind, a, b);
  };
  same("Node", Describe(gpua::DecodeNode(simd)), Describe(gpua::DecodeNode(nl)));
  same("PodDisruptionBudget", Describe(gpua::DecodePdb(simd)), Describe(gpua::DecodePdb(nl)));
  same("DaemonSet", Describe(gpua::DecodeDaemonSet(simd)), Describe(gpua::DecodeDaemonSet(nl)));
  same("ReplicaSet", Describe(gpua::DecodeWorkload(simd, "ReplicaSet")),
       Describe(gpua::DecodeWorkload(nl, "ReplicaSet")));
  same("Lease", Describe(gpua::DecodeLease(simd)), Describe(gpua::DecodeLease(nl)));
  same("DeviceClass", Describe(gpua::DecodeDeviceClass(simd)),
       Describe(gpua::DecodeDeviceClass(nl)));
  same("ResourceSlice", DescribeSlice(gpua::DecodeResourceSlice(simd)),
       DescribeSlice(gpua::DecodeResourceSlice(nl)));
  same("ResourceClaim", Describe(gpua::DecodeResourceClaim(simd)),
       Describe(gpua::DecodeResourceClaim(nl)));
  same("ResourceClaimTemplate", Describe(gpua::DecodeResourceClaimTemplate(simd)),
       Describe(gpua::DecodeResourceClaimTemplate(nl)));
  return 0;
}
