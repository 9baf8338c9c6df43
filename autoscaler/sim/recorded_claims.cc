#include "autoscaler/sim/recorded_claims.h"

#include "absl/strings/str_cat.h"

namespace gpua::sim {
namespace {

std::string StringOf(const nlohmann::json& object, const char* a, const char* b) {
  if (!object.is_object()) return "";
  auto outer = object.find(a);
  if (outer == object.end() || !outer->is_object()) return "";
  auto inner = outer->find(b);
  return inner != outer->end() && inner->is_string() ? inner->get<std::string>() : "";
}

// Kind, name (and namespace) and spec: what simulate reads of it.
nlohmann::json Slim(const nlohmann::json& object) {
  nlohmann::json slim = {{"apiVersion", object.value("apiVersion", "resource.k8s.io/v1")},
                         {"kind", object.value("kind", "")},
                         {"metadata", {{"name", StringOf(object, "metadata", "name")}}}};
  if (const std::string ns = StringOf(object, "metadata", "namespace"); !ns.empty()) {
    slim["metadata"]["namespace"] = ns;
  }
  if (auto spec = object.find("spec"); spec != object.end()) slim["spec"] = *spec;
  return slim;
}

// The pod's spec.resourceClaims entries that name an object: (kind, field, name).
struct ClaimRef {
  const char* kind;
  const char* field;
};
constexpr ClaimRef kRefs[] = {{"ResourceClaimTemplate", "resourceClaimTemplateName"},
                              {"ResourceClaim", "resourceClaimName"}};

// spec.resourceClaims, or null.
template <typename Json>
Json* ClaimList(Json& pod) {
  if (!pod.is_object()) return nullptr;
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return nullptr;
  auto list = spec->find("resourceClaims");
  return list != spec->end() && list->is_array() ? &*list : nullptr;
}

}  // namespace

RecordedClaims::RecordedClaims(const std::vector<nlohmann::json>& objects, bool keep_namespaces)
    : keep_namespaces_(keep_namespaces) {
  for (const nlohmann::json& o : objects) {
    if (!o.is_object()) continue;
    const std::string kind = o.value("kind", "");
    const std::string name = StringOf(o, "metadata", "name");
    if (name.empty()) continue;
    if (kind == "DeviceClass") {
      classes_[name] = Slim(o);
    } else if (kind == "ResourceClaimTemplate" || kind == "ResourceClaim") {
      std::string ns = StringOf(o, "metadata", "namespace");
      if (ns.empty()) ns = "default";
      namespaced_[{kind, absl::StrCat(ns, "/", name)}] = Slim(o);
    }
  }
}

std::string RecordedClaims::Unseen(const std::string& ns, const nlohmann::json& pod) const {
  const nlohmann::json* list = ClaimList(pod);
  if (list == nullptr) return "";
  for (const nlohmann::json& entry : *list) {
    if (!entry.is_object()) continue;
    for (const ClaimRef& ref : kRefs) {
      auto name = entry.find(ref.field);
      if (name == entry.end() || !name->is_string()) continue;
      const std::string key = absl::StrCat(ns, "/", name->get<std::string>());
      if (!namespaced_.contains({ref.kind, key})) {
        return absl::StrCat("claim ", entry.value("name", ""), ": ", ref.kind, " ", key);
      }
    }
  }
  return "";
}

const std::string& RecordedClaims::WrittenName(const std::string& kind, const std::string& ns,
                                               const std::string& name) {
  const Key key{kind, absl::StrCat(ns, "/", name)};
  auto it = written_.find(key);
  if (it != written_.end()) return it->second;
  std::string candidate = name;
  if (!keep_namespaces_) {
    // Every pod is replayed in one namespace: a name another namespace's object took gets a
    // suffix.
    for (int n = 2; taken_.contains({kind, candidate}); ++n) candidate = absl::StrCat(name, "-", n);
    taken_.insert({kind, candidate});
  }
  return written_.emplace(key, std::move(candidate)).first->second;
}

void RecordedClaims::Use(const std::string& ns, nlohmann::json& pod) {
  nlohmann::json* list = ClaimList(pod);
  if (list == nullptr) return;
  for (nlohmann::json& entry : *list) {
    if (!entry.is_object()) continue;
    for (const ClaimRef& ref : kRefs) {
      auto name = entry.find(ref.field);
      if (name == entry.end() || !name->is_string()) continue;
      *name = WrittenName(ref.kind, ns, name->get<std::string>());
    }
  }
}

std::vector<std::string> RecordedClaims::Lines() const {
  std::vector<std::string> out;
  for (const auto& [name, c] : classes_) {
    out.push_back(nlohmann::json({{"object", c}}).dump());
  }
  for (const auto& [key, name] : written_) {
    nlohmann::json object = namespaced_.at(key);
    object["metadata"]["name"] = name;
    if (!keep_namespaces_) object["metadata"].erase("namespace");
    out.push_back(nlohmann::json({{"object", object}}).dump());
  }
  return out;
}

}  // namespace gpua::sim
