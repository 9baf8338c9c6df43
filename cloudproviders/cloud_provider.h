// How the autoscaler asks for nodes: the node-group API, with the meaning cluster-autoscaler
// gives it, so a provider behaves the same behind either autoscaler. Implementations: the
// externalgrpc client (a plugin process), the simulated cloud; native providers later.
//
// Every call returns a status. "Not implemented" (absl::StatusCode::kUnimplemented, see
// IsNotImplemented) is an expected answer, not a failure: callers fall back (default options,
// no pricing) rather than treat the provider as broken.
#ifndef GPUA_CLOUDPROVIDERS_CLOUD_PROVIDER_H_
#define GPUA_CLOUDPROVIDERS_CLOUD_PROVIDER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "estimator/labels.h"
#include "estimator/node.h"
#include "estimator/pod.h"

namespace gpua {

bool IsNotImplemented(const absl::Status& status);
absl::Status NotImplemented(absl::string_view what);

// A node as the provider sees it: enough to find its instance and its group.
struct NodeRef {
  std::string provider_id;
  std::string name;
  Labels labels;
  Labels annotations;
};

enum class InstanceState { kUnspecified, kRunning, kCreating, kDeleting };
absl::string_view InstanceStateName(InstanceState state);

// cluster-autoscaler's error classes; the numbers are the wire values.
enum class InstanceErrorClass { kOutOfResources = 1, kOther = 99 };

struct InstanceError {
  std::string code;
  std::string message;
  InstanceErrorClass error_class = InstanceErrorClass::kOther;
};

struct Instance {
  std::string id;  // the provider ID its Node will carry
  InstanceState state = InstanceState::kUnspecified;
  std::optional<InstanceError> error;  // set when creating (or deleting) it failed
};

// Per-group autoscaling options, with cluster-autoscaler's names and defaults.
struct AutoscalingOptions {
  double scale_down_utilization_threshold = 0.5;
  double scale_down_gpu_utilization_threshold = 0.5;
  absl::Duration scale_down_unneeded_time = absl::Minutes(10);
  absl::Duration scale_down_unready_time = absl::Minutes(20);
  absl::Duration max_node_provision_time = absl::Minutes(15);
  bool zero_or_max_node_scaling = false;
  bool ignore_daemonsets_utilization = false;
  bool operator==(const AutoscalingOptions&) const = default;
};

class NodeGroup {
 public:
  virtual ~NodeGroup() = default;
  virtual const std::string& Id() const = 0;
  virtual int MinSize() const = 0;
  virtual int MaxSize() const = 0;
  // Nodes the group should have, registered or not.
  virtual absl::StatusOr<int> TargetSize() = 0;
  // Asks for `delta` > 0 more nodes; the target may not pass MaxSize.
  virtual absl::Status IncreaseSize(int delta) = 0;
  // Removes these nodes and lowers the target by as many.
  virtual absl::Status DeleteNodes(const std::vector<NodeRef>& nodes) = 0;
  // Lowers the target by -`delta` (< 0) without deleting registered nodes: for nodes asked
  // for that never came.
  virtual absl::Status DecreaseTargetSize(int delta) = 0;
  virtual absl::StatusOr<std::vector<Instance>> Nodes() = 0;
  // What a new node will look like; what makes scale-up from zero possible.
  virtual absl::StatusOr<NodeTemplate> TemplateNode() = 0;
  // The group's options, `defaults` where it sets none; Unimplemented when the provider has
  // no per-group options at all (the caller's defaults apply, and it can say so).
  virtual absl::StatusOr<AutoscalingOptions> GetOptions(const AutoscalingOptions& defaults) = 0;
  virtual std::string Debug() const = 0;
};

class CloudProvider {
 public:
  virtual ~CloudProvider() = default;
  virtual std::string Name() const = 0;
  // The groups the autoscaler may resize. Valid until the next Refresh.
  virtual absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> NodeGroups() = 0;
  // The group of a node; nullptr when the node is not autoscaled.
  virtual absl::StatusOr<std::shared_ptr<NodeGroup>> NodeGroupForNode(const NodeRef& node) = 0;
  // Cost of a node or a pod over [start, end), in the provider's currency.
  virtual absl::StatusOr<double> NodePrice(const NodeRef& node, absl::Time start,
                                           absl::Time end) = 0;
  virtual absl::StatusOr<double> PodPrice(const PodSpec& pod, absl::Time start, absl::Time end) = 0;
  // The node label that names a node's GPU type, and the types the provider offers.
  virtual absl::StatusOr<std::string> GpuLabel() = 0;
  virtual absl::StatusOr<std::vector<std::string>> AvailableGpuTypes() = 0;
  // Called at the start of every loop: caches may be dropped here and only here.
  virtual absl::Status Refresh() = 0;
  virtual absl::Status Cleanup() = 0;
};

// The provider's group with this id, or NotFound naming it.
absl::StatusOr<std::shared_ptr<NodeGroup>> FindNodeGroup(CloudProvider& provider,
                                                         absl::string_view id);

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_CLOUD_PROVIDER_H_
