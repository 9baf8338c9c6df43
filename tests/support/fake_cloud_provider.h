// The one fake CloudProvider (with its FakeNodeGroup) every unit test and benchmark uses:
// groups a test builds with a template and instances, which record every call that changes
// them and fail the calls a test names, with cluster-autoscaler's meaning of each call.
#ifndef GPUA_TESTS_SUPPORT_FAKE_CLOUD_PROVIDER_H_
#define GPUA_TESTS_SUPPORT_FAKE_CLOUD_PROVIDER_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cloudproviders/cloud_provider.h"

namespace gpua::testing {

class FakeNodeGroup : public NodeGroup {
 public:
  FakeNodeGroup(std::string id, int min_size, int max_size, NodeTemplate node_template);

  const std::string& Id() const override { return id_; }
  int MinSize() const override { return min_size; }
  int MaxSize() const override { return max_size; }
  absl::StatusOr<int> TargetSize() override;
  // Raises the target and lists `delta` new instances, creating ("fake://<id>-<n>").
  absl::Status IncreaseSize(int delta) override;
  // Removes the nodes' instances and lowers the target by as many; a node the group does not
  // list is refused, as cluster-autoscaler's providers do.
  absl::Status DeleteNodes(const std::vector<NodeRef>& nodes) override;
  absl::Status DecreaseTargetSize(int delta) override;
  absl::StatusOr<std::vector<Instance>> Nodes() override;
  absl::StatusOr<NodeTemplate> TemplateNode() override;
  absl::StatusOr<AutoscalingOptions> GetOptions(const AutoscalingOptions& defaults) override;
  std::string Debug() const override { return id_; }

  // Adds a running instance and returns its provider ID, for a node a test registers.
  std::string AddRunning();
  // Adds an instance whose creation failed with `error_class`.
  std::string AddFailed(InstanceErrorClass error_class, const std::string& code);

  int min_size = 0;
  int max_size = 0;
  int target = 0;
  std::vector<Instance> instances;
  NodeTemplate node_template;
  std::optional<AutoscalingOptions> options;  // unset: the defaults (Unimplemented)
  double price_per_hour = 0;
  // A method's name ("IncreaseSize", "DeleteNodes", "Nodes", "TemplateNode", ...) -> what each
  // call to it returns, until erased.
  std::map<std::string, absl::Status> failing;
  std::vector<int> increases;  // each IncreaseSize's delta
  // Every instance ID it ever listed: a real provider still knows a node of its group by its
  // provider ID once the instance is gone from the listing.
  std::set<std::string> ever_listed;
  std::vector<std::vector<std::string>> deletions;  // each DeleteNodes' node names

 private:
  absl::Status Fails(const std::string& method) const;
  std::string NextId();

  std::string id_;
  int next_instance_ = 0;
};

class FakeCloudProvider : public CloudProvider {
 public:
  // Adds a group; its `target` starts at 0.
  FakeNodeGroup& AddGroup(const std::string& id, int min_size, int max_size,
                          NodeTemplate node_template);
  FakeNodeGroup* Find(const std::string& id);

  std::string Name() const override { return "fake"; }
  absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> NodeGroups() override;
  // The group that lists, or once listed, the node's instance; none (null) otherwise.
  absl::StatusOr<std::shared_ptr<NodeGroup>> NodeGroupForNode(const NodeRef& node) override;
  // The price of the node's group, when it has one.
  absl::StatusOr<double> NodePrice(const NodeRef& node, absl::Time start, absl::Time end) override;
  absl::StatusOr<double> PodPrice(const PodSpec& pod, absl::Time start, absl::Time end) override;
  absl::StatusOr<std::string> GpuLabel() override { return std::string("nvidia.com/gpu.product"); }
  absl::StatusOr<std::vector<std::string>> AvailableGpuTypes() override;
  absl::Status Refresh() override;
  absl::Status Cleanup() override { return absl::OkStatus(); }

  // "Refresh", "NodeGroups" -> what each call returns, until erased.
  std::map<std::string, absl::Status> failing;

 private:
  std::vector<std::shared_ptr<FakeNodeGroup>> groups_;
};

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_FAKE_CLOUD_PROVIDER_H_
