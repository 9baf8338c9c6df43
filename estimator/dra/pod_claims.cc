#include "estimator/dra/pod_claims.h"

#include "absl/strings/str_cat.h"

namespace gpua::dra {

std::vector<PodClaim> ResolvePodClaims(const std::string& namespace_name,
                                       const std::vector<PodClaimRef>& refs,
                                       const ClaimCatalog& catalog) {
  std::vector<PodClaim> out;
  out.reserve(refs.size());
  for (const PodClaimRef& ref : refs) {
    PodClaim c;
    c.name = ref.name;
    c.shared = !ref.claim_name.empty();
    const std::string claim = !ref.claim_name.empty() ? ref.claim_name : ref.made_claim;
    if (!claim.empty()) {
      c.claim_key = absl::StrCat(namespace_name, "/", claim);
      auto it = catalog.claims.find(c.claim_key);
      if (it != catalog.claims.end()) {
        c.spec = it->second->spec;
        c.allocation = it->second->allocation;
        out.push_back(std::move(c));
        continue;
      }
      if (c.shared) {
        c.unresolved = absl::NotFoundError(
            absl::StrCat("claim ", ref.name, ": ResourceClaim ", c.claim_key, " not found"));
        out.push_back(std::move(c));
        continue;
      }
      // The controller made the claim but it is not seen yet: plan from its template.
      c.claim_key.clear();
    }
    if (ref.template_name.empty()) {
      c.unresolved = absl::InvalidArgumentError(absl::StrCat(
          "claim ", ref.name, ": neither resourceClaimName nor resourceClaimTemplateName is set"));
      out.push_back(std::move(c));
      continue;
    }
    const std::string key = absl::StrCat(namespace_name, "/", ref.template_name);
    auto t = catalog.templates.find(key);
    if (t == catalog.templates.end()) {
      c.unresolved = absl::NotFoundError(
          absl::StrCat("claim ", ref.name, ": ResourceClaimTemplate ", key, " not found"));
    } else {
      c.spec = t->second->spec;
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace gpua::dra
