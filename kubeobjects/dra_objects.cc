#include "kubeobjects/dra_objects.h"

#include <utility>

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

void AttachPodDevices(const DraObjects& dra, PodSpec& pod) {
  if (pod.claim_refs.empty()) return;
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
  pod.devices = std::move(devices);
}

}  // namespace gpua
