// cluster-autoscaler's clusterapi provider, ours: node groups are the MachineDeployments,
// MachineSets not owned by a MachineDeployment, and MachinePools that carry both size
// annotations, named "<Kind>/<namespace>/<name>" as upstream names them. Sizes change through
// the scale subresource; a node goes by marking its Machine with <group>/delete-machine and
// then lowering replicas by one, so that Cluster API deletes that Machine and no other. A
// group never leaves [min, max]. A group at zero is templated from the capacity annotations
// (group_annotations.h). Nodes are matched to Machines by provider ID, else by the node's
// <group>/machine annotation. A Machine that failed is an instance in error, which the
// controller cleans up as for any provider; a Machine being deleted is one being deleted.
// What the provider reads comes from the informers behind ManagementCluster, copied once per
// Refresh, so a loop sees one consistent set; a scalable resource that cannot be used gets a
// Warning Event naming the annotation (once per version of it) and is left out.
#ifndef GPUA_CLOUDPROVIDERS_CLUSTERAPI_CLUSTERAPI_PROVIDER_H_
#define GPUA_CLOUDPROVIDERS_CLUSTERAPI_CLUSTERAPI_PROVIDER_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "cloudproviders/cloud_provider.h"
#include "cloudproviders/clusterapi/capi_discovery.h"
#include "cloudproviders/clusterapi/capi_names.h"
#include "cloudproviders/clusterapi/group_annotations.h"
#include "cloudproviders/clusterapi/management_cluster.h"

namespace gpua {

// An instance ID for a Machine that has no provider ID (yet, or ever, when it failed early).
std::string MachineInstanceId(const CapiMachine& machine);

struct ClusterApiOptions {
  CapiNames names;
  std::vector<CapiDiscoveryTerm> discovery;
};

class CapiNodeGroup;

class ClusterApiProvider final : public CloudProvider {
 public:
  ClusterApiProvider(std::shared_ptr<ManagementCluster> cluster, ClusterApiOptions options,
                     Clock& clock, LogSink& log);
  ~ClusterApiProvider() override;

  std::string Name() const override { return "clusterapi"; }
  absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> NodeGroups() override;
  absl::StatusOr<std::shared_ptr<NodeGroup>> NodeGroupForNode(const NodeRef& node) override;
  absl::StatusOr<double> NodePrice(const NodeRef&, absl::Time, absl::Time) override {
    return NotImplemented("NodePrice");
  }
  absl::StatusOr<double> PodPrice(const PodSpec&, absl::Time, absl::Time) override {
    return NotImplemented("PodPrice");
  }
  absl::StatusOr<std::string> GpuLabel() override { return std::string(kCapiGpuLabel); }
  absl::StatusOr<std::vector<std::string>> AvailableGpuTypes() override {
    return NotImplemented("GetAvailableGPUTypes");
  }
  // Takes this loop's copy of the Cluster API objects and builds the groups from it.
  absl::Status Refresh() override;
  absl::Status Cleanup() override { return absl::OkStatus(); }
  // The scalable resources the last Refresh left out, and why (for plugin-check).
  std::vector<std::string> IgnoredGroups() const { return ignored_; }

 private:
  // The key of the group a Machine belongs to ("<Kind>/<ns>/<name>"), or "".
  std::string GroupOfMachine(const CapiMachine& machine) const;
  void WarnOnce(const CapiScalable& s, const std::string& message);

  std::shared_ptr<ManagementCluster> cluster_;
  const ClusterApiOptions options_;
  Clock& clock_;
  LogSink& log_;
  std::map<std::string, std::shared_ptr<CapiNodeGroup>> groups_;             // by id
  std::map<std::string, std::shared_ptr<const CapiScalable>> machine_sets_;  // by ns/name
  std::map<std::string, std::shared_ptr<const CapiMachine>> machines_by_instance_;
  std::map<std::string, std::shared_ptr<const CapiMachine>> machines_by_name_;  // ns/name
  std::map<std::string, std::string> pool_instances_;  // MachinePool providerIDList -> group
  std::set<std::string> warned_;  // "<uid>@<resourceVersion>: message", said once
  std::vector<std::string> ignored_;
};

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_CLUSTERAPI_CLUSTERAPI_PROVIDER_H_
