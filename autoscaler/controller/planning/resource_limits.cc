#include "autoscaler/controller/planning/resource_limits.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "autoscaler/controller/planning/running_node_cache.h"
#include "estimator/gpu/gpu_inventory.h"
#include "estimator/gpu/gpu_inventory_reader.h"
#include "estimator/gpu/gpu_resource.h"

namespace gpua {
namespace {

int64_t CeilCores(const Quantity& cpu) { return (cpu.MilliValue() + 999) / 1000; }

NodeUsage TemplateUsage(const ProviderGroup& g, const std::string& gpu_label) {
  if (!g.node_template.has_value()) return {};
  return UsageOf(g.node_template->labels, g.node_template->annotations,
                 g.node_template->allocatable, gpu_label);
}

// Cores, memory and GPU type: what does not depend on reading the GPUs.
NodeUsage UsageBesideGpus(const Labels& labels, const ResourceList& capacity,
                          const std::string& gpu_label) {
  NodeUsage u;
  u.cores = CeilCores(capacity.Get(kResourceCpu));
  u.memory_bytes = capacity.Get(kResourceMemory).Value();
  if (auto it = labels.find(gpu_label); it != labels.end()) u.gpu_type = it->second;
  return u;
}

// Physical GPUs when their sharing could be read (`read` null: none to read), else the
// device plugin's advertised units.
int64_t GpuCount(const GpuInventory* read, const ResourceList& capacity) {
  if (read != nullptr) return read->physical_count();
  int64_t units = 0;
  for (const auto& [name, q] : GpuPart(capacity)) units += q.Value();
  return units;
}

}  // namespace

NodeUsage UsageOf(const Labels& labels, const Labels& annotations, const ResourceList& capacity,
                  const std::string& gpu_label) {
  NodeUsage u = UsageBesideGpus(labels, capacity, gpu_label);
  absl::StatusOr<std::optional<GpuInventory>> gpus =
      ReadGpuInventory(labels, annotations, capacity, "node");
  u.gpus = GpuCount(gpus.ok() && gpus->has_value() ? &**gpus : nullptr, capacity);
  return u;
}

NodeUsage UsageOf(const NodeObject& n, const std::string& gpu_label) {
  const ResourceList& capacity = n.capacity.empty() ? n.node.allocatable : n.capacity;
  // The node's own GPU reading, kept on the object, is of its allocatable: it serves when
  // the capacity says the same.
  const absl::StatusOr<std::shared_ptr<const GpuInventory>>& gpus = n.Gpus();
  if (!gpus.ok() || !(capacity == n.node.allocatable)) {
    return UsageOf(n.node.labels, n.annotations, capacity, gpu_label);
  }
  NodeUsage u = UsageBesideGpus(n.node.labels, capacity, gpu_label);
  u.gpus = GpuCount(gpus->get(), capacity);
  return u;
}

std::vector<ResourceBudget> LimitBudgets(const ClusterLimits& limits, const ClusterState& state,
                                         const std::map<std::string, int>& added,
                                         RunningNodeCache& running) {
  const std::string& gpu_label = state.provider->gpu_label;
  int64_t nodes = 0, cores = 0, memory = 0;
  // By GPU type: a handful of types over every node, so a short list beats a map lookup.
  std::vector<std::pair<std::string, int64_t>> gpus;
  const auto find_type = [&](const std::string& type) {
    return std::find_if(gpus.begin(), gpus.end(), [&](const auto& t) { return t.first == type; });
  };
  const auto count = [&](const NodeUsage& u, int64_t times) {
    nodes += times;
    cores += u.cores * times;
    memory += u.memory_bytes * times;
    if (u.gpu_type.empty()) return;
    auto it = find_type(u.gpu_type);
    if (it == gpus.end()) it = gpus.insert(it, {u.gpu_type, 0});
    it->second += u.gpus * times;
  };
  const auto gpus_of = [&](const std::string& type) {
    auto it = find_type(type);
    return it == gpus.end() ? int64_t{0} : it->second;
  };
  for (const NodeStatus& s : state.nodes) {
    if (s.condition == NodeCondition::kBeingDeleted) continue;
    count(running.UsageOf(s.node, gpu_label), 1);
  }
  std::vector<NodeUsage> per_group;
  for (const GroupState& g : state.groups) {
    per_group.push_back(TemplateUsage(*g.provider, gpu_label));
    auto more = added.find(g.id());
    count(per_group.back(), g.upcoming + (more == added.end() ? 0 : more->second));
  }
  std::vector<ResourceBudget> budgets;
  const auto budget = [&](std::string name, int64_t left, auto per_node) {
    ResourceBudget b;
    b.name = std::move(name);
    b.left = left;
    for (size_t g = 0; g < state.groups.size(); ++g) {
      b.per_node[state.groups[g].id()] = per_node(per_group[g]);
    }
    budgets.push_back(std::move(b));
  };
  if (limits.max_nodes_total > 0) {
    budget(absl::StrCat("--max-nodes-total=", limits.max_nodes_total),
           limits.max_nodes_total - nodes, [](const NodeUsage&) { return int64_t{1}; });
  }
  budget(absl::StrCat("--cores-total (max ", limits.cores.max, ")"), limits.cores.max - cores,
         [](const NodeUsage& u) { return u.cores; });
  budget(absl::StrCat("--memory-total (max ", limits.memory_bytes.max >> 30, " GiB)"),
         limits.memory_bytes.max - memory, [](const NodeUsage& u) { return u.memory_bytes; });
  for (const auto& [type, range] : limits.gpus_by_type) {
    budget(absl::StrCat("--gpu-total for ", type, " (max ", range.max, ")"),
           range.max - gpus_of(type),
           [type = type](const NodeUsage& u) { return u.gpu_type == type ? u.gpus : 0; });
  }
  return budgets;
}

}  // namespace gpua
