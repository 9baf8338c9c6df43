#include "autoscaler/sim/faulty_cloud.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace gpua::sim {
namespace {

class FaultyNodeGroup : public NodeGroup {
 public:
  FaultyNodeGroup(std::shared_ptr<NodeGroup> inner, FaultyCloud& cloud)
      : inner_(std::move(inner)), cloud_(cloud) {}

  const std::string& Id() const override { return inner_->Id(); }
  int MinSize() const override { return inner_->MinSize(); }
  int MaxSize() const override { return inner_->MaxSize(); }

  absl::StatusOr<int> TargetSize() override {
    GPUA_RETURN_IF_ERROR(cloud_.Trouble(What("TargetSize")));
    if (cloud_.Garbage()) return cloud_.faults().Pick(2) == 0 ? -3 : inner_->MaxSize() + 1000;
    return inner_->TargetSize();
  }

  absl::Status IncreaseSize(int delta) override {
    return Change(What(absl::StrCat("IncreaseSize(", delta, ")")), [&] {
      cloud_.observer().BeforeResize(*inner_, delta, "IncreaseSize");
      return inner_->IncreaseSize(delta);
    });
  }

  absl::Status DeleteNodes(const std::vector<NodeRef>& nodes) override {
    return Change(What("DeleteNodes"), [&] {
      cloud_.observer().BeforeResize(*inner_, -static_cast<int>(nodes.size()), "DeleteNodes");
      cloud_.observer().BeforeDelete(*inner_, nodes);
      return inner_->DeleteNodes(nodes);
    });
  }

  absl::Status DecreaseTargetSize(int delta) override {
    return Change(What(absl::StrCat("DecreaseTargetSize(", delta, ")")), [&] {
      cloud_.observer().BeforeResize(*inner_, delta, "DecreaseTargetSize");
      return inner_->DecreaseTargetSize(delta);
    });
  }

  absl::StatusOr<std::vector<Instance>> Nodes() override {
    GPUA_RETURN_IF_ERROR(cloud_.Trouble(What("Nodes")));
    GPUA_ASSIGN_OR_RETURN(std::vector<Instance> instances, inner_->Nodes());
    if (cloud_.Garbage()) {
      if (!instances.empty() && cloud_.faults().Pick(2) == 0) {
        instances.push_back(instances.front());  // listed twice
      } else {
        instances.push_back(Instance{"", InstanceState::kUnspecified, std::nullopt});
      }
    }
    return instances;
  }

  absl::StatusOr<NodeTemplate> TemplateNode() override {
    GPUA_RETURN_IF_ERROR(cloud_.Trouble(What("TemplateNodeInfo")));
    return inner_->TemplateNode();
  }

  absl::StatusOr<AutoscalingOptions> GetOptions(const AutoscalingOptions& defaults) override {
    GPUA_RETURN_IF_ERROR(cloud_.Trouble(What("GetOptions")));
    return inner_->GetOptions(defaults);
  }

  std::string Debug() const override { return inner_->Debug(); }

 private:
  std::string What(absl::string_view call) const {
    return absl::StrCat("node group ", inner_->Id(), ": ", call);
  }
  absl::Status Change(const std::string& what, const std::function<absl::Status()>& change) {
    if (absl::Status s = cloud_.faults().Act(what); !s.ok()) return s;
    bool made = false;
    absl::Status trouble = cloud_.Trouble(what, &made);
    absl::Status done = absl::OkStatus();
    if (trouble.ok() || made) done = change();
    return trouble.ok() ? done : trouble;
  }

  std::shared_ptr<NodeGroup> inner_;
  FaultyCloud& cloud_;
};

}  // namespace

absl::Status FaultyCloud::Trouble(const std::string& what, bool* made) {
  if (faults_.Roll(FaultKind::kPluginUnavailable)) {
    return absl::UnavailableError(absl::StrCat(what, ": plugin unavailable"));
  }
  if (faults_.Roll(FaultKind::kPluginInternal)) {
    return absl::InternalError(absl::StrCat(what, ": plugin internal error"));
  }
  if (faults_.Roll(FaultKind::kPluginSlow)) {
    if (made != nullptr) *made = faults_.Uniform() < 0.5;
    return absl::DeadlineExceededError(absl::StrCat(what, ": past the plugin's deadline"));
  }
  return absl::OkStatus();
}

std::shared_ptr<NodeGroup> FaultyCloud::Wrap(const std::shared_ptr<NodeGroup>& group) {
  if (group == nullptr) return nullptr;
  std::shared_ptr<NodeGroup>& w = wrapped_[group.get()];
  if (w == nullptr) w = std::make_shared<FaultyNodeGroup>(group, *this);
  return w;
}

absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> FaultyCloud::NodeGroups() {
  GPUA_RETURN_IF_ERROR(Trouble("NodeGroups"));
  GPUA_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<NodeGroup>> groups, inner_.NodeGroups());
  for (std::shared_ptr<NodeGroup>& g : groups) g = Wrap(g);
  return groups;
}

absl::StatusOr<std::shared_ptr<NodeGroup>> FaultyCloud::NodeGroupForNode(const NodeRef& node) {
  GPUA_RETURN_IF_ERROR(Trouble(absl::StrCat("NodeGroupForNode(", node.name, ")")));
  GPUA_ASSIGN_OR_RETURN(std::shared_ptr<NodeGroup> group, inner_.NodeGroupForNode(node));
  return Wrap(group);
}

absl::StatusOr<double> FaultyCloud::NodePrice(const NodeRef& node, absl::Time start,
                                              absl::Time end) {
  GPUA_RETURN_IF_ERROR(Trouble("PricingNodePrice"));
  return inner_.NodePrice(node, start, end);
}

absl::StatusOr<double> FaultyCloud::PodPrice(const PodSpec& pod, absl::Time start, absl::Time end) {
  return inner_.PodPrice(pod, start, end);  // not offered by the simulated cloud
}

absl::StatusOr<std::string> FaultyCloud::GpuLabel() {
  GPUA_RETURN_IF_ERROR(Trouble("GPULabel"));
  return inner_.GpuLabel();
}

absl::StatusOr<std::vector<std::string>> FaultyCloud::AvailableGpuTypes() {
  GPUA_RETURN_IF_ERROR(Trouble("GetAvailableGPUTypes"));
  return inner_.AvailableGpuTypes();
}

absl::Status FaultyCloud::Refresh() {
  GPUA_RETURN_IF_ERROR(Trouble("Refresh"));
  return inner_.Refresh();
}

absl::Status FaultyCloud::Cleanup() { return inner_.Cleanup(); }

}  // namespace gpua::sim
