// A Cluster API node group's settings, read off its scalable resource's annotations as
// cluster-autoscaler's clusterapi provider reads them: the size bounds (both required), the
// scale-from-zero template (cpu and memory required for one, from the
// capacity.cluster-autoscaler.kubernetes.io/ annotations or the infrastructure template's
// status.capacity; ephemeral-disk, maxPods (110), gpu-type and gpu-count, labels and taints
// optional), and the per-group options. The template's labels are the scalable resource's
// template labels (what its Machines' nodes get) with the labels annotation's added, never
// overriding them; our own annotations (gpu-autoscaler.io/..., such as a pool's MIG layouts)
// pass through to it. Any annotation that does not parse is an error naming it: the group is
// skipped, never guessed.
#ifndef GPUA_CLOUDPROVIDERS_CLUSTERAPI_GROUP_ANNOTATIONS_H_
#define GPUA_CLOUDPROVIDERS_CLUSTERAPI_GROUP_ANNOTATIONS_H_

#include <optional>

#include "absl/status/statusor.h"
#include "cloudproviders/cloud_provider.h"
#include "cloudproviders/clusterapi/capi_names.h"
#include "kubeobjects/cluster_api.h"

namespace gpua {

// The options the annotations set; unset ones fall back to the flags' defaults.
struct CapiGroupOptions {
  std::optional<double> scale_down_utilization_threshold;
  std::optional<double> scale_down_gpu_utilization_threshold;
  std::optional<absl::Duration> scale_down_unneeded_time;
  std::optional<absl::Duration> scale_down_unready_time;
  std::optional<absl::Duration> max_node_provision_time;
  AutoscalingOptions Over(const AutoscalingOptions& defaults) const;
};

struct CapiGroupConfig {
  int min_size = 0;
  int max_size = 0;
  CapiGroupOptions options;
  std::optional<NodeTemplate> scale_from_zero;  // with the capacity annotations
};

// Whether the scalable carries the size annotations that make it a node group.
bool IsAutoscaled(const CapiScalable& scalable, const CapiNames& names);

// Fails naming the object and the annotation that cannot be used. `infrastructure_capacity`:
// the status.capacity of the infrastructure machine template, where known; the annotations
// override it resource by resource, as upstream has them take precedence.
absl::StatusOr<CapiGroupConfig> ReadGroupConfig(
    const CapiScalable& scalable, const CapiNames& names,
    const ResourceList* infrastructure_capacity = nullptr);

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_CLUSTERAPI_GROUP_ANNOTATIONS_H_
