// The simulated cloud as the controller reaches it in a fault soak: through a plugin that is
// now and then past its deadline (a change may have been made all the same), Unavailable,
// Internal, or answers nonsense (a negative or huge target size, an instance without an ID,
// one listed twice), and that refuses everything once the controller process is dead. An
// observer sees every change of size before it is made.
#ifndef GPUA_AUTOSCALER_SIM_FAULTY_CLOUD_H_
#define GPUA_AUTOSCALER_SIM_FAULTY_CLOUD_H_

#include <map>
#include <memory>

#include "autoscaler/sim/fault_injector.h"
#include "cloudproviders/cloud_provider.h"

namespace gpua::sim {

class CloudObserver {
 public:
  virtual ~CloudObserver() = default;
  // Before the controller asks for the group's target to change by `delta`.
  virtual void BeforeResize(NodeGroup& group, int delta, absl::string_view call) = 0;
  virtual void BeforeDelete(NodeGroup& group, const std::vector<NodeRef>& nodes) = 0;
};

class FaultyCloud : public CloudProvider {
 public:
  FaultyCloud(CloudProvider& inner, FaultInjector& faults, CloudObserver& observer)
      : inner_(inner), faults_(faults), observer_(observer) {}

  std::string Name() const override { return inner_.Name(); }
  absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> NodeGroups() override;
  absl::StatusOr<std::shared_ptr<NodeGroup>> NodeGroupForNode(const NodeRef& node) override;
  absl::StatusOr<double> NodePrice(const NodeRef& node, absl::Time start, absl::Time end) override;
  absl::StatusOr<double> PodPrice(const PodSpec& pod, absl::Time start, absl::Time end) override;
  absl::StatusOr<std::string> GpuLabel() override;
  absl::StatusOr<std::vector<std::string>> AvailableGpuTypes() override;
  absl::Status Refresh() override;
  absl::Status Cleanup() override;

  // A plugin failure for this call, if the dice say so: Unavailable, Internal, or past the
  // deadline (then `made` tells whether a change went through first). Also the dead process.
  absl::Status Trouble(const std::string& what, bool* made = nullptr);
  bool Garbage() { return faults_.Roll(FaultKind::kPluginGarbage); }
  FaultInjector& faults() { return faults_; }
  CloudObserver& observer() { return observer_; }

 private:
  std::shared_ptr<NodeGroup> Wrap(const std::shared_ptr<NodeGroup>& group);

  CloudProvider& inner_;
  FaultInjector& faults_;
  CloudObserver& observer_;
  std::map<const NodeGroup*, std::shared_ptr<NodeGroup>> wrapped_;
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_FAULTY_CLOUD_H_
