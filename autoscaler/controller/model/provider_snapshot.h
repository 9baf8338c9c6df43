// What the cloud provider says at the start of a loop, read once: its groups with their
// sizes, instances, template and options. A group whose calls fail is kept with the error,
// so the loop backs that group off and goes on with the others; a provider that cannot
// list its groups at all stops the loop's actions, never the loop.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_PROVIDER_SNAPSHOT_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_PROVIDER_SNAPSHOT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/model/controller_options.h"
#include "base/log.h"
#include "cloudproviders/cloud_provider.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/node.h"

namespace gpua {

// cluster-autoscaler's GPU label when a provider names none (GPULabel not implemented).
inline constexpr const char* kDefaultGpuLabel = kGpuProductLabel;

struct ProviderGroup {
  std::shared_ptr<NodeGroup> group;
  std::string id;
  int min_size = 0;  // the provider's, narrowed by --nodes
  int max_size = 0;
  int target_size = 0;
  std::vector<Instance> instances;
  std::optional<NodeTemplate> node_template;  // unset when it could not be read
  // The template's GPUs, if it has any: the same inventory from loop to loop while the
  // template's labels, annotations and allocatable stay the same, and with it what is worked
  // out from it once (names, unit shares, what it advertises).
  std::shared_ptr<const GpuInventory> gpus;
  std::string gpu_type;        // the template's value of the GPU label
  AutoscalingOptions options;  // the group's, the flags' where it sets none
  double price_per_hour = 0;   // of one node; 0 when the provider has no pricing
  // The first call that failed (target, instances, template): the group is not planned
  // for this loop, and backed off.
  absl::Status call_error;
  // A template the planner cannot read (GPU labels that contradict allocatable, say): the
  // group is not planned for until it is fixed; no back-off would help.
  absl::Status template_error;
  bool usable() const { return call_error.ok() && template_error.ok() && node_template; }
};

// Where an instance ID is listed: the last group that lists it, and that group's first
// listing of it.
struct InstanceListing {
  size_t group = 0;
  size_t index = 0;  // into the group's instances
};

struct ProviderSnapshot {
  ProviderSnapshot() = default;
  ProviderSnapshot(ProviderSnapshot&&) = default;
  ProviderSnapshot& operator=(ProviderSnapshot&&) = default;
  // Not copied: a copy's index would name the original's instance IDs.
  ProviderSnapshot(const ProviderSnapshot&) = delete;
  ProviderSnapshot& operator=(const ProviderSnapshot&) = delete;

  absl::Status error;  // Refresh or NodeGroups failed: nothing to act on this loop
  std::vector<ProviderGroup> groups;
  std::string gpu_label;  // the node label that names a node's GPU type
  // Instance ID (a Node's providerID) -> where it is listed. The keys are views of the
  // groups' instance IDs, not copies (every instance, every loop): IndexInstances() builds
  // it, and must again after the groups' instances change.
  absl::flat_hash_map<absl::string_view, InstanceListing> instance_listing;
  // By group, for each of its listings the index of its first listing of the same ID: its
  // own, unless the group lists the ID more than once.
  std::vector<std::vector<size_t>> first_listing;
  // Node name -> index in `groups`, for nodes whose instance no group lists but whose group
  // NodeGroupForNode names (an instance the provider no longer lists, say).
  absl::flat_hash_map<std::string, size_t> group_of_node;

  const ProviderGroup* Find(absl::string_view id) const;
  void IndexInstances();
};

// Reads the provider once a loop, and says once (not every loop) what it could not use.
class ProviderReader {
 public:
  ProviderReader(CloudProvider& provider, const ControllerOptions& options, LogSink& log);

  // Reads the groups, and asks NodeGroupForNode about the nodes no group's instances list.
  // `devices`: the nodes' DRA devices, for templates read off nodes.
  ProviderSnapshot Read(const std::vector<NodePtr>& nodes, absl::Time now,
                        const NodeDevicesByName& devices = {});

 private:
  // The listing without entries no instance answers to (no ID, or an ID listed again).
  std::vector<Instance> WellFormed(const std::string& group, std::vector<Instance> instances);
  ProviderGroup ReadGroup(std::shared_ptr<NodeGroup> group, const NodeGroupLimits* limits,
                          const std::string& gpu_label);
  // What one node of the group costs an hour, from the provider's pricing of its template.
  double PriceOf(const ProviderGroup& g, absl::Time now);
  void SayOnce(const std::string& line);
  void ResolveUnlisted(const std::vector<NodePtr>& nodes, ProviderSnapshot& out);
  // For a group whose provider has no template (TemplateNodeInfo not implemented), one taken
  // from its running nodes (template_from_node.h).
  void TemplatesFromNodes(const std::vector<NodePtr>& nodes, const NodeDevicesByName& devices,
                          ProviderSnapshot& out);
  void SetTemplate(ProviderGroup& g, NodeTemplate t, const std::string& gpu_label);

  CloudProvider& provider_;
  const ControllerOptions& options_;
  LogSink& log_;
  absl::flat_hash_set<std::string> said_;
  // Provider ID -> group id ("" for not autoscaled): a node's group never changes, so the
  // answers are kept across loops, for the nodes that still exist.
  absl::flat_hash_map<std::string, std::string> group_for_node_;
  bool pricing_unimplemented_ = false;
  // Per group, the template parts its GPU inventory was read from, and what was read.
  struct KeptInventory {
    Labels labels;
    Labels annotations;
    ResourceList allocatable;
    absl::StatusOr<std::shared_ptr<const GpuInventory>> gpus;
  };
  // The group's inventory read from `t`, or the one read last loop from the same parts.
  absl::StatusOr<std::shared_ptr<const GpuInventory>> InventoryOf(const std::string& group,
                                                                  const NodeTemplate& t);
  absl::flat_hash_map<std::string, KeptInventory> inventories_;  // groups of the last Read
  absl::flat_hash_map<std::string, KeptInventory> reading_;      // groups of this Read
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_PROVIDER_SNAPSHOT_H_
