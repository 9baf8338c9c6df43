#include "cloudproviders/clusterapi/clusterapi_provider.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpua {
namespace {

std::string GroupId(CapiKind kind, const std::string& ns, const std::string& name) {
  return absl::StrCat(CapiKindName(kind), "/", ns, "/", name);
}

std::string KeyOf(const std::string& ns, const std::string& name) {
  return absl::StrCat(ns, "/", name);
}

Instance InstanceOf(const CapiMachine& m) {
  Instance i;
  i.id = MachineInstanceId(m);
  if (m.deleting) {
    i.state = InstanceState::kDeleting;
  } else if (m.failed()) {
    i.state = InstanceState::kCreating;
    i.error = InstanceError{m.failure_reason.empty() ? "MachineFailed" : m.failure_reason,
                            absl::StrCat("Machine ", m.Key(), " failed: ",
                                         m.failure_message.empty() ? m.phase : m.failure_message),
                            InstanceErrorClass::kOther};
  } else {
    i.state = m.provider_id.empty() ? InstanceState::kCreating : InstanceState::kRunning;
  }
  return i;
}

}  // namespace

std::string MachineInstanceId(const CapiMachine& machine) {
  if (!machine.provider_id.empty()) return machine.provider_id;
  return absl::StrCat("clusterapi://", machine.namespace_name, "/", machine.name);
}

class CapiNodeGroup final : public NodeGroup {
 public:
  CapiNodeGroup(std::shared_ptr<const CapiScalable> scalable, CapiGroupConfig config,
                ManagementCluster& cluster, const CapiNames& names, Clock& clock)
      : scalable_(std::move(scalable)),
        config_(std::move(config)),
        id_(GroupId(scalable_->kind, scalable_->namespace_name, scalable_->name)),
        cluster_(cluster),
        names_(names),
        clock_(clock) {}

  void AddMachine(std::shared_ptr<const CapiMachine> m) { machines_.push_back(std::move(m)); }
  // After every Machine is added: the target, where spec.replicas is unset, is what runs.
  void Settle() { target_ = scalable_->replicas.value_or(LiveMachines()); }
  int32_t LiveMachines() const {
    return static_cast<int32_t>(std::count_if(machines_.begin(), machines_.end(),
                                              [](const auto& m) { return !m->deleting; }));
  }

  const std::string& Id() const override { return id_; }
  int MinSize() const override { return config_.min_size; }
  int MaxSize() const override { return config_.max_size; }
  absl::StatusOr<int> TargetSize() override { return target_; }

  absl::Status IncreaseSize(int delta) override {
    if (delta <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(id_, ": size increase must be positive"));
    }
    const int64_t to = int64_t{target_} + delta;
    if (to > config_.max_size) {
      return absl::InvalidArgumentError(
          absl::StrCat(id_, ": size increase too large: desired ", to, ", max ", config_.max_size));
    }
    return SetTarget(static_cast<int32_t>(to));
  }

  absl::Status DeleteNodes(const std::vector<NodeRef>& nodes) override {
    std::vector<std::shared_ptr<const CapiMachine>> going;
    for (const NodeRef& n : nodes) {
      std::shared_ptr<const CapiMachine> m = MachineOf(n);
      if (m == nullptr) {
        return absl::NotFoundError(
            absl::StrCat("node ", n.name, " (", n.provider_id, ") is not a Machine of ", id_));
      }
      // Already on its way out (a restart repeating a removal): replicas were lowered for it.
      if (m->deleting) continue;
      if (std::none_of(going.begin(), going.end(), [&](const auto& g) { return g == m; })) {
        going.push_back(std::move(m));
      }
    }
    // A Machine marked by an earlier call whose replicas were lowered is on its way out, but
    // Cluster API has not begun deleting it yet (a restart between the two): the Machines
    // over the target are those, and are not counted again.
    int32_t accounted = std::max<int32_t>(0, LiveMachines() - target_);
    std::erase_if(going, [&](const auto& m) {
      if (accounted == 0 || !m->annotations.contains(names_.DeleteMachine())) return false;
      --accounted;
      return true;
    });
    if (going.empty()) return absl::OkStatus();
    const int32_t to = target_ - static_cast<int32_t>(going.size());
    if (to < config_.min_size) {
      return absl::FailedPreconditionError(
          absl::StrCat(id_, ": deleting ", going.size(), " node(s) would take it to ", to,
                       ", under its minimum size ", config_.min_size));
    }
    // Marked before replicas drop, so Cluster API deletes exactly these Machines.
    const std::string when =
        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", clock_.Now(), absl::UTCTimeZone());
    for (const auto& m : going) {
      if (m->annotations.contains(names_.DeleteMachine())) continue;
      if (absl::Status s = cluster_.AnnotateMachine(*m, names_.DeleteMachine(), when); !s.ok()) {
        return absl::Status(s.code(), absl::StrCat(id_, ": marking Machine ", m->Key(),
                                                   " for deletion: ", s.message()));
      }
    }
    return SetTarget(to);
  }

  absl::Status DecreaseTargetSize(int delta) override {
    if (delta >= 0) {
      return absl::InvalidArgumentError(absl::StrCat(id_, ": size decrease must be negative"));
    }
    const int32_t registered =
        static_cast<int32_t>(std::count_if(machines_.begin(), machines_.end(), [](const auto& m) {
          return !m->deleting && !m->failed() && !m->node_name.empty();
        }));
    const int64_t to = int64_t{target_} + delta;
    if (to < registered) {
      return absl::FailedPreconditionError(absl::StrCat(id_, ": decreasing the target to ", to,
                                                        " would delete some of its ", registered,
                                                        " registered nodes"));
    }
    return SetTarget(static_cast<int32_t>(to));
  }

  absl::StatusOr<std::vector<Instance>> Nodes() override {
    std::vector<Instance> out;
    std::set<std::string> seen;
    for (const auto& m : machines_) {
      out.push_back(InstanceOf(*m));
      seen.insert(out.back().id);
    }
    for (const std::string& id : scalable_->provider_ids) {  // a MachinePool without Machines
      if (seen.insert(id).second) out.push_back({id, InstanceState::kRunning, std::nullopt});
    }
    return out;
  }

  absl::StatusOr<NodeTemplate> TemplateNode() override {
    if (config_.scale_from_zero.has_value()) return *config_.scale_from_zero;
    return NotImplemented(absl::StrCat(
        "TemplateNodeInfo: ", id_, " has no ", kCapacityPrefix,
        "cpu and memory annotations, so a node of it is known only from one that runs"));
  }

  absl::StatusOr<AutoscalingOptions> GetOptions(const AutoscalingOptions& defaults) override {
    return config_.options.Over(defaults);
  }

  std::string Debug() const override {
    return absl::StrCat(id_, " (min: ", config_.min_size, ", max: ", config_.max_size,
                        ", replicas: ", target_, ")");
  }

 private:
  absl::Status SetTarget(int32_t to) {
    if (absl::Status s = cluster_.SetReplicas(*scalable_, to); !s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat(id_, ": setting replicas to ", to, ": ", s.message()));
    }
    target_ = to;  // the informers catch up later; this loop goes on from the new size
    return absl::OkStatus();
  }

  std::shared_ptr<const CapiMachine> MachineOf(const NodeRef& n) const {
    for (const auto& m : machines_) {
      if (!n.provider_id.empty() && MachineInstanceId(*m) == n.provider_id) return m;
    }
    auto named = n.annotations.find(names_.MachineAnnotation());
    if (named == n.annotations.end()) return nullptr;
    auto ns = n.annotations.find(names_.MachineNamespaceAnnotation());
    const std::string& in = ns == n.annotations.end() ? scalable_->namespace_name : ns->second;
    for (const auto& m : machines_) {
      if (m->name == named->second && m->namespace_name == in) return m;
    }
    return nullptr;
  }

  std::shared_ptr<const CapiScalable> scalable_;
  const CapiGroupConfig config_;
  const std::string id_;
  ManagementCluster& cluster_;
  const CapiNames& names_;
  Clock& clock_;
  std::vector<std::shared_ptr<const CapiMachine>> machines_;
  int32_t target_ = 0;
};

ClusterApiProvider::ClusterApiProvider(std::shared_ptr<ManagementCluster> cluster,
                                       ClusterApiOptions options, Clock& clock, LogSink& log)
    : cluster_(std::move(cluster)), options_(std::move(options)), clock_(clock), log_(log) {}

ClusterApiProvider::~ClusterApiProvider() = default;

void ClusterApiProvider::WarnOnce(const CapiScalable& s, const std::string& message) {
  const std::string key = absl::StrCat(s.uid, "@", s.resource_version, ": ", message);
  if (!warned_.insert(key).second) return;
  log_.Warning(absl::StrCat(message, "; the group is left out until it is fixed"));
  cluster_->Warn({s.kind, s.namespace_name, s.name, s.uid}, "InvalidNodeGroup", message);
}

std::string ClusterApiProvider::GroupOfMachine(const CapiMachine& m) const {
  if (!m.controller.has_value()) return "";
  const OwnerReference& owner = *m.controller;
  if (owner.kind == "MachinePool") {
    return GroupId(CapiKind::kMachinePool, m.namespace_name, owner.name);
  }
  if (owner.kind != "MachineSet") return "";
  auto set = machine_sets_.find(KeyOf(m.namespace_name, owner.name));
  if (set != machine_sets_.end() && set->second->controller.has_value() &&
      set->second->controller->kind == "MachineDeployment") {
    return GroupId(CapiKind::kMachineDeployment, m.namespace_name, set->second->controller->name);
  }
  return GroupId(CapiKind::kMachineSet, m.namespace_name, owner.name);
}

absl::Status ClusterApiProvider::Refresh() {
  if (!cluster_->Synced()) {
    return absl::UnavailableError("the Cluster API objects are not all listed yet");
  }
  const CapiObjects objects = cluster_->Objects();
  groups_.clear();
  machine_sets_.clear();
  machines_by_instance_.clear();
  machines_by_name_.clear();
  pool_instances_.clear();
  ignored_.clear();
  for (const auto& s : objects.scalables) {
    if (s->kind == CapiKind::kMachineSet) machine_sets_[s->Key()] = s;
    if (!IsAutoscaled(*s, options_.names) || s->deleting) continue;
    if (!DiscoveryKeeps(options_.discovery, *s, options_.names)) continue;
    // A MachineDeployment's MachineSets are scaled through it.
    if (s->kind == CapiKind::kMachineSet && s->controller.has_value() &&
        s->controller->kind == "MachineDeployment") {
      continue;
    }
    std::shared_ptr<const ResourceList> infra =
        s->infrastructure.has_value()
            ? cluster_->InfrastructureCapacity(s->namespace_name, *s->infrastructure)
            : nullptr;
    absl::StatusOr<CapiGroupConfig> config = ReadGroupConfig(*s, options_.names, infra.get());
    if (!config.ok()) {
      ignored_.emplace_back(config.status().message());
      WarnOnce(*s, ignored_.back());
      continue;
    }
    auto group =
        std::make_shared<CapiNodeGroup>(s, *std::move(config), *cluster_, options_.names, clock_);
    for (const std::string& id : s->provider_ids) pool_instances_[id] = group->Id();
    groups_[group->Id()] = std::move(group);
  }
  for (const auto& m : objects.machines) {
    machines_by_name_[m->Key()] = m;
    machines_by_instance_[MachineInstanceId(*m)] = m;
    auto group = groups_.find(GroupOfMachine(*m));
    if (group != groups_.end()) group->second->AddMachine(m);
  }
  for (auto& [id, group] : groups_) group->Settle();
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> ClusterApiProvider::NodeGroups() {
  std::vector<std::shared_ptr<NodeGroup>> out;
  for (const auto& [id, group] : groups_) out.push_back(group);
  return out;
}

absl::StatusOr<std::shared_ptr<NodeGroup>> ClusterApiProvider::NodeGroupForNode(
    const NodeRef& node) {
  std::shared_ptr<const CapiMachine> machine;
  if (auto it = machines_by_instance_.find(node.provider_id); it != machines_by_instance_.end()) {
    machine = it->second;
  } else if (auto named = node.annotations.find(options_.names.MachineAnnotation());
             named != node.annotations.end()) {
    auto ns = node.annotations.find(options_.names.MachineNamespaceAnnotation());
    const std::string key = ns == node.annotations.end() ? "" : KeyOf(ns->second, named->second);
    if (auto it = machines_by_name_.find(key); it != machines_by_name_.end()) machine = it->second;
  }
  std::string group_id;
  if (machine != nullptr) {
    group_id = GroupOfMachine(*machine);
  } else if (auto pool = pool_instances_.find(node.provider_id); pool != pool_instances_.end()) {
    group_id = pool->second;
  }
  auto group = groups_.find(group_id);
  if (group == groups_.end()) return std::shared_ptr<NodeGroup>();
  return std::static_pointer_cast<NodeGroup>(group->second);
}

}  // namespace gpua
