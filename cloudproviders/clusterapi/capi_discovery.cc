#include "cloudproviders/clusterapi/capi_discovery.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace gpua {

bool CapiDiscoveryTerm::Matches(const CapiScalable& s, const CapiNames& names) const {
  if (!namespace_name.empty() && s.namespace_name != namespace_name) return false;
  if (!cluster_name.empty()) {
    auto label = s.labels.find(names.ClusterNameLabel());
    const bool named = s.cluster_name == cluster_name ||
                       (label != s.labels.end() && label->second == cluster_name);
    if (!named) return false;
  }
  for (const auto& [key, value] : labels) {
    auto it = s.labels.find(key);
    if (it == s.labels.end() || it->second != value) return false;
  }
  return true;
}

absl::StatusOr<std::vector<CapiDiscoveryTerm>> ParseCapiDiscovery(
    const std::vector<std::string>& specs) {
  std::vector<CapiDiscoveryTerm> out;
  for (const std::string& spec : specs) {
    const auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("--node-group-auto-discovery=", spec, ": ", why));
    };
    absl::string_view rest = spec;
    if (!absl::ConsumePrefix(&rest, "clusterapi:")) {
      return bad("the clusterapi provider reads clusterapi:<key>=<value>,...");
    }
    CapiDiscoveryTerm term;
    for (absl::string_view item : absl::StrSplit(rest, ',', absl::SkipEmpty())) {
      std::vector<absl::string_view> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
      if (kv.size() != 2 || kv[0].empty() || kv[1].empty()) {
        return bad(absl::StrCat("\"", item, "\" is not key=value"));
      }
      if (kv[0] == "namespace") {
        term.namespace_name = std::string(kv[1]);
      } else if (kv[0] == "clusterName") {
        term.cluster_name = std::string(kv[1]);
      } else {
        term.labels[std::string(kv[0])] = std::string(kv[1]);
      }
    }
    out.push_back(std::move(term));
  }
  return out;
}

bool DiscoveryKeeps(const std::vector<CapiDiscoveryTerm>& terms, const CapiScalable& s,
                    const CapiNames& names) {
  if (terms.empty()) return true;
  for (const CapiDiscoveryTerm& t : terms) {
    if (t.Matches(s, names)) return true;
  }
  return false;
}

}  // namespace gpua
