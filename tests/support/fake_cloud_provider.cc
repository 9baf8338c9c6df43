#include "tests/support/fake_cloud_provider.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace gpua::testing {

FakeNodeGroup::FakeNodeGroup(std::string id, int min, int max, NodeTemplate t)
    : min_size(min), max_size(max), node_template(std::move(t)), id_(std::move(id)) {}

absl::Status FakeNodeGroup::Fails(const std::string& method) const {
  auto it = failing.find(method);
  return it == failing.end() ? absl::OkStatus() : it->second;
}

std::string FakeNodeGroup::NextId() {
  std::string id = absl::StrCat("fake://", id_, "-", next_instance_++);
  ever_listed.insert(id);
  return id;
}

absl::StatusOr<int> FakeNodeGroup::TargetSize() {
  if (absl::Status s = Fails("TargetSize"); !s.ok()) return s;
  return target;
}

absl::Status FakeNodeGroup::IncreaseSize(int delta) {
  if (absl::Status s = Fails("IncreaseSize"); !s.ok()) return s;
  if (delta <= 0) return absl::InvalidArgumentError("size increase must be positive");
  if (target + delta > max_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("size increase too large: ", target + delta, " > ", max_size));
  }
  increases.push_back(delta);
  target += delta;
  for (int i = 0; i < delta; ++i) instances.push_back({NextId(), InstanceState::kCreating, {}});
  return absl::OkStatus();
}

absl::Status FakeNodeGroup::DeleteNodes(const std::vector<NodeRef>& nodes) {
  if (absl::Status s = Fails("DeleteNodes"); !s.ok()) return s;
  for (const NodeRef& n : nodes) {
    const bool listed = std::any_of(instances.begin(), instances.end(),
                                    [&](const Instance& i) { return i.id == n.provider_id; });
    if (!listed) {
      return absl::InvalidArgumentError(
          absl::StrCat("node ", n.name, " (", n.provider_id, ") is not in group ", id_));
    }
  }
  if (target - static_cast<int>(nodes.size()) < min_size) {
    return absl::FailedPreconditionError(absl::StrCat("group ", id_, " would go below its min"));
  }
  std::vector<std::string> names;
  for (const NodeRef& n : nodes) {
    names.push_back(n.name.empty() ? n.provider_id : n.name);
    std::erase_if(instances, [&](const Instance& i) { return i.id == n.provider_id; });
  }
  target -= static_cast<int>(nodes.size());
  deletions.push_back(std::move(names));
  return absl::OkStatus();
}

absl::Status FakeNodeGroup::DecreaseTargetSize(int delta) {
  if (absl::Status s = Fails("DecreaseTargetSize"); !s.ok()) return s;
  target += delta;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Instance>> FakeNodeGroup::Nodes() {
  if (absl::Status s = Fails("Nodes"); !s.ok()) return s;
  return instances;
}

absl::StatusOr<NodeTemplate> FakeNodeGroup::TemplateNode() {
  if (absl::Status s = Fails("TemplateNode"); !s.ok()) return s;
  return node_template;
}

absl::StatusOr<AutoscalingOptions> FakeNodeGroup::GetOptions(const AutoscalingOptions&) {
  if (absl::Status s = Fails("GetOptions"); !s.ok()) return s;
  if (!options.has_value()) return NotImplemented("GetOptions");
  return *options;
}

std::string FakeNodeGroup::AddRunning() {
  instances.push_back({NextId(), InstanceState::kRunning, {}});
  ++target;
  return instances.back().id;
}

std::string FakeNodeGroup::AddFailed(InstanceErrorClass error_class, const std::string& code) {
  instances.push_back(
      {NextId(), InstanceState::kCreating, InstanceError{code, "creation failed", error_class}});
  ++target;
  return instances.back().id;
}

FakeNodeGroup& FakeCloudProvider::AddGroup(const std::string& id, int min_size, int max_size,
                                           NodeTemplate node_template) {
  groups_.push_back(
      std::make_shared<FakeNodeGroup>(id, min_size, max_size, std::move(node_template)));
  return *groups_.back();
}

FakeNodeGroup* FakeCloudProvider::Find(const std::string& id) {
  for (auto& g : groups_) {
    if (g->Id() == id) return g.get();
  }
  return nullptr;
}

absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> FakeCloudProvider::NodeGroups() {
  if (auto it = failing.find("NodeGroups"); it != failing.end()) return it->second;
  return std::vector<std::shared_ptr<NodeGroup>>(groups_.begin(), groups_.end());
}

absl::StatusOr<std::shared_ptr<NodeGroup>> FakeCloudProvider::NodeGroupForNode(
    const NodeRef& node) {
  for (auto& g : groups_) {
    if (g->ever_listed.contains(node.provider_id)) return std::shared_ptr<NodeGroup>(g);
  }
  return std::shared_ptr<NodeGroup>();
}

absl::StatusOr<double> FakeCloudProvider::NodePrice(const NodeRef& node, absl::Time start,
                                                    absl::Time end) {
  const bool priced = std::any_of(groups_.begin(), groups_.end(),
                                  [](const auto& g) { return g->price_per_hour > 0; });
  if (!priced) return NotImplemented("NodePrice");
  for (auto& g : groups_) {
    // A template node is named for its group; a real node is found by its instance.
    const bool listed = std::any_of(g->instances.begin(), g->instances.end(),
                                    [&](const Instance& i) { return i.id == node.provider_id; });
    if (node.name == g->Id() || node.name == g->node_template.name || listed) {
      return g->price_per_hour * absl::ToDoubleHours(end - start);
    }
  }
  return absl::NotFoundError(absl::StrCat("no group has node ", node.name));
}

absl::StatusOr<double> FakeCloudProvider::PodPrice(const PodSpec&, absl::Time, absl::Time) {
  return NotImplemented("PodPrice");
}

absl::StatusOr<std::vector<std::string>> FakeCloudProvider::AvailableGpuTypes() {
  return NotImplemented("AvailableGpuTypes");
}

absl::Status FakeCloudProvider::Refresh() {
  auto it = failing.find("Refresh");
  return it == failing.end() ? absl::OkStatus() : it->second;
}

}  // namespace gpua::testing
