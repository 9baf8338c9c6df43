// --node-group-auto-discovery for the clusterapi provider, as cluster-autoscaler reads it:
// "clusterapi:namespace=<ns>,clusterName=<name>,<label>=<value>,..." keeps the scalable
// resources in that namespace, of that Cluster, carrying those labels (every term must hold);
// several specs keep what any of them keeps; none keeps everything.
#ifndef GPUA_CLOUDPROVIDERS_CLUSTERAPI_CAPI_DISCOVERY_H_
#define GPUA_CLOUDPROVIDERS_CLUSTERAPI_CAPI_DISCOVERY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cloudproviders/clusterapi/capi_names.h"
#include "kubeobjects/cluster_api.h"

namespace gpua {

struct CapiDiscoveryTerm {
  std::string namespace_name;  // empty: any
  std::string cluster_name;    // empty: any
  Labels labels;
  bool Matches(const CapiScalable& s, const CapiNames& names) const;
};

// Fails naming the spec and the term that cannot be read.
absl::StatusOr<std::vector<CapiDiscoveryTerm>> ParseCapiDiscovery(
    const std::vector<std::string>& specs);

bool DiscoveryKeeps(const std::vector<CapiDiscoveryTerm>& terms, const CapiScalable& s,
                    const CapiNames& names);

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_CLUSTERAPI_CAPI_DISCOVERY_H_
