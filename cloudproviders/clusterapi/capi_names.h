// The names cluster-autoscaler's clusterapi provider reads and writes, under the Cluster API
// group (cluster.x-k8s.io, or CAPI_GROUP's value, which renames them as upstream does).
#ifndef GPUA_CLOUDPROVIDERS_CLUSTERAPI_CAPI_NAMES_H_
#define GPUA_CLOUDPROVIDERS_CLUSTERAPI_CAPI_NAMES_H_

#include <string>

#include "absl/strings/str_cat.h"

namespace gpua {

inline constexpr char kDefaultCapiGroup[] = "cluster.x-k8s.io";
// Scale from zero: what a node of the group will offer, on the scalable resource.
inline constexpr char kCapacityPrefix[] = "capacity.cluster-autoscaler.kubernetes.io/";
// Per-group options (scaledownunneededtime, ...), upstream's fixed prefix.
inline constexpr char kOptionsPrefix[] = "cluster.x-k8s.io/autoscaling-options-";
// The node label upstream's clusterapi provider names GPU types by (--gpu-total).
inline constexpr char kCapiGpuLabel[] = "cluster-api/accelerator";

struct CapiNames {
  std::string group = kDefaultCapiGroup;
  std::string MinSize() const {
    return absl::StrCat(group, "/cluster-api-autoscaler-node-group-min-size");
  }
  std::string MaxSize() const {
    return absl::StrCat(group, "/cluster-api-autoscaler-node-group-max-size");
  }
  std::string MachineAnnotation() const { return absl::StrCat(group, "/machine"); }
  std::string MachineNamespaceAnnotation() const {
    return absl::StrCat(group, "/cluster-namespace");
  }
  std::string DeleteMachine() const { return absl::StrCat(group, "/delete-machine"); }
  std::string ClusterNameLabel() const { return absl::StrCat(group, "/cluster-name"); }
};

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_CLUSTERAPI_CAPI_NAMES_H_
