#include "kubeobjects/dra_objects.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kubeobjects/device_classes.h"
#include "kubeobjects/resource_claims.h"
#include "kubeobjects/resource_slices.h"

namespace gpua {
namespace {

std::string KeyOf(const nlohmann::json& object) {
  const JsonReader meta = JsonReader(object).Field("metadata");
  std::string ns = meta.Field("namespace").String().value_or("");
  return absl::StrCat(ns.empty() ? "default" : ns, "/", meta.Field("name").String().value_or(""));
}

}  // namespace

absl::Status AddDraObject(const nlohmann::json& object, DraObjects& into) {
  const JsonReader r(object);
  const std::string kind = r.Field("kind").String().value_or("");
  if (kind == "DeviceClass") {
    absl::StatusOr<dra::DeviceClass> c = DecodeDeviceClass(r);
    if (!c.ok()) return c.status();
    const std::string name = c->name;
    (*into.classes)[name] = *std::move(c);
  } else if (kind == "ResourceSlice") {
    absl::StatusOr<dra::ResourceSlice> s = DecodeResourceSlice(r);
    if (!s.ok()) return s.status();
    into.slices.push_back(std::make_shared<const dra::ResourceSlice>(*std::move(s)));
  } else if (kind == "ResourceClaim") {
    absl::StatusOr<dra::ResourceClaim> c = DecodeResourceClaim(r);
    if (!c.ok()) {
      into.unreadable[KeyOf(object)] = std::string(c.status().message());
      return c.status();
    }
    auto claim = std::make_shared<const dra::ResourceClaim>(*std::move(c));
    into.catalog.claims[claim->Key()] = claim;
  } else if (kind == "ResourceClaimTemplate") {
    absl::StatusOr<dra::ResourceClaimTemplate> t = DecodeResourceClaimTemplate(r);
    if (!t.ok()) {
      into.unreadable[KeyOf(object)] = std::string(t.status().message());
      return t.status();
    }
    auto tmpl = std::make_shared<const dra::ResourceClaimTemplate>(*std::move(t));
    into.catalog.templates[tmpl->Key()] = tmpl;
  }
  return absl::OkStatus();
}

const dra::DeviceClass* ClassForExtendedResource(const dra::DeviceClasses& classes,
                                                 absl::string_view resource) {
  constexpr absl::string_view kImplicit = "deviceclass.resource.kubernetes.io/";
  if (absl::StartsWith(resource, kImplicit)) {
    auto it = classes.find(resource.substr(kImplicit.size()));
    return it == classes.end() ? nullptr : &it->second;
  }
  for (const auto& [name, c] : classes) {
    if (c.extended_resource_name == resource) return &c;
  }
  return nullptr;
}

namespace {

// KEP-5004's claims for the pod's extended-resource requests that devices serve, each
// served resource named in `served`.
std::vector<dra::PodClaim> ExtendedResourceClaims(DraObjects& dra, const PodSpec& pod,
                                                  std::vector<std::string>& served) {
  std::vector<dra::PodClaim> out;
  for (const auto& [resource, q] : pod.requests) {
    // deviceclass.resource.kubernetes.io/ names are KEP-5004's own, in the kubernetes.io
    // domain that other extended resources may not use.
    const bool extended = IsExtendedResource(resource) ||
                          absl::StartsWith(resource, "deviceclass.resource.kubernetes.io/");
    const dra::DeviceClass* cls = extended && !dra.advertised.contains(resource)
                                      ? ClassForExtendedResource(*dra.classes, resource)
                                      : nullptr;
    if (cls == nullptr || q.Sign() <= 0) continue;
    const int64_t count = q.Value();
    std::shared_ptr<const dra::ClaimSpec>& spec =
        dra.extended_specs[absl::StrCat(cls->name, "\x1f", count)];
    if (spec == nullptr) {
      auto made = std::make_shared<dra::ClaimSpec>();
      dra::ExactRequest exact;
      exact.device_class_name = cls->name;
      exact.count = count;
      made->requests.push_back(dra::DeviceRequest{"extended", {exact}, false});
      made->fingerprint = absl::StrCat("extended resource ", resource, "=", count);
      spec = std::move(made);
    }
    dra::PodClaim claim;
    claim.name = absl::StrCat("extended resource ", resource);
    claim.spec = spec;
    out.push_back(std::move(claim));
    served.emplace_back(resource);
  }
  return out;
}

}  // namespace

PodDeviceResolution ResolvePodDevices(DraObjects& dra, const PodSpec& pod) {
  PodDeviceResolution out;
  std::vector<dra::PodClaim> extended = ExtendedResourceClaims(dra, pod, out.served_requests);
  if (pod.claim_refs.empty() && extended.empty()) return out;
  auto devices = std::make_shared<dra::PodDevices>();
  devices->claims = dra::ResolvePodClaims(pod.namespace_name, pod.claim_refs, dra.catalog);
  devices->classes = dra.classes;
  for (size_t i = 0; i < devices->claims.size(); ++i) {
    dra::PodClaim& c = devices->claims[i];
    if (c.unresolved.ok()) continue;
    const dra::PodClaimRef& ref = pod.claim_refs[i];
    const std::string& name = !ref.claim_name.empty() ? ref.claim_name : ref.template_name;
    auto bad = dra.unreadable.find(absl::StrCat(pod.namespace_name, "/", name));
    if (bad != dra.unreadable.end()) {
      c.unresolved =
          absl::InvalidArgumentError(absl::StrCat("claim ", ref.name, ": ", bad->second));
    }
  }
  for (dra::PodClaim& c : extended) devices->claims.push_back(std::move(c));
  out.devices = std::move(devices);
  return out;
}

void ApplyPodDevices(PodDeviceResolution resolved, PodSpec& pod) {
  if (!resolved.served_requests.empty()) {
    ResourceList kept;
    ResourceList kept_largest;
    for (const auto& [resource, q] : pod.requests) {
      const std::vector<std::string>& served = resolved.served_requests;
      if (std::find(served.begin(), served.end(), resource) == served.end()) {
        kept.Set(resource, q);
      }
    }
    for (const auto& [resource, q] : pod.largest_container_request) {
      if (kept.Has(resource)) kept_largest.Set(resource, q);
    }
    pod.requests = std::move(kept);
    pod.largest_container_request = std::move(kept_largest);
  }
  pod.devices = std::move(resolved.devices);
}

void AttachPodDevices(DraObjects& dra, PodSpec& pod) {
  PodDeviceResolution resolved = ResolvePodDevices(dra, pod);
  if (resolved.devices != nullptr) ApplyPodDevices(std::move(resolved), pod);
}

}  // namespace gpua
