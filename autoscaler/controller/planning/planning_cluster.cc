#include "autoscaler/controller/planning/planning_cluster.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "estimator/cluster_snapshot.h"
#include "estimator/daemonsets.h"
#include "estimator/dra/resource_slice.h"
#include "estimator/dra/template_slices.h"
#include "estimator/gpu/gpu_resource.h"
#include "kubeobjects/node_marks.h"

namespace gpua {
namespace {

std::vector<Taint> WithoutStartupTaints(const std::vector<Taint>& taints,
                                        const std::vector<std::string>& ignored) {
  std::vector<Taint> out;
  for (const Taint& t : taints) {
    if (!IsStartupTaint(t, ignored)) out.push_back(t);
  }
  return out;
}

Labels Overlay(const Labels& base, const Labels& over) {
  Labels out = base;
  for (const auto& [k, v] : over) out[k] = v;
  return out;
}

// What every planning node of `n` shares: name, group, cordon.
Node FromNode(const NodeObject& n, const std::string& group) {
  Node out;
  out.name = n.node.name;
  out.unschedulable = n.node.unschedulable;
  out.upcoming = n.node.upcoming;
  out.group_id = group;
  return out;
}

// The labels, taints less the start-up ones, cordon, GPUs and DRA devices of a running node.
std::shared_ptr<const NodeProps> PlanningProps(const NodeObject& n, const std::string& group,
                                               const std::vector<std::string>& ignored,
                                               std::shared_ptr<const dra::NodeDevices> devices) {
  auto props = std::make_shared<NodeProps>();
  props->labels = n.node.labels;
  props->taints = WithoutStartupTaints(n.node.taints, ignored);
  props->unschedulable = n.node.unschedulable;
  props->group_id = group;
  const bool dra_gpus = dra::GpusAreDevices(devices != nullptr, n.node.allocatable);
  props->devices = std::move(devices);
  const absl::StatusOr<std::shared_ptr<const GpuInventory>>& gpus = n.Gpus();
  if (gpus.ok() && !dra_gpus) props->gpu = *gpus;
  return props;
}

// A node still starting, as it will be once its GPUs are advertised: the template's GPUs in
// place of whatever its allocatable shows now, the template's labels under its own.
Node StartingNode(const NodeStatus& s, const ProviderGroup& g,
                  std::vector<std::shared_ptr<const PodSpec>> pods,
                  const std::vector<std::string>& ignored) {
  const NodeObject& n = *s.node;
  // The template's labels and GPUs join the node's: the snapshot reads them from the fields.
  Node out = FromNode(n, g.id);
  out.pods = std::move(pods);
  const NodeTemplate& t = *g.node_template;
  out.labels = Overlay(t.labels, n.node.labels);
  out.annotations = Overlay(t.annotations, n.annotations);
  out.taints = WithoutStartupTaints(n.node.taints, ignored);
  out.devices = dra::AssembleShared(t.resource_slices);  // as its drivers will publish them
  // The template's taints until the node's own arrive (a GPU taint set by an agent later).
  for (const Taint& promised : WithoutStartupTaints(t.taints, ignored)) {
    const bool has = std::any_of(out.taints.begin(), out.taints.end(), [&](const Taint& own) {
      return own.key == promised.key && own.effect == promised.effect;
    });
    if (!has) out.taints.push_back(promised);
  }
  const ResourceList& base = n.node.allocatable.empty() ? t.allocatable : n.node.allocatable;
  if (g.gpus != nullptr) {
    out.allocatable = g.gpus->NodeAllocatable(base, s.mig_layout);
    if (!s.mig_layout.empty()) out.labels[kMigConfigLabel] = s.mig_layout;
  } else {
    out.allocatable = base;
  }
  return out;
}

}  // namespace

Node ExistingNode(const NodePtr& n, const ClusterView& view, const std::string& group,
                  const std::vector<std::string>& ignored_taints, RunningNodeCache& rooms) {
  Node out;  // the props carry the group and cordon
  out.name = n->node.name;
  out.upcoming = n->node.upcoming;
  const NodeDeviceState* devices = view.DevicesOf(n->node.name);
  std::shared_ptr<const dra::NodeDevices> published =
      devices != nullptr ? devices->devices : nullptr;
  if (devices != nullptr) out.device_allocations = devices->allocated;
  // Worked out once per node object: every loop plans with every node twice.
  RunningNodeCache::Planning kept =
      rooms.PlanningOf(n, view, {group, ignored_taints, published.get()},
                       [&] { return PlanningProps(*n, group, ignored_taints, published); });
  out.props = std::move(kept.props);
  out.room = std::move(kept.room);
  if (out.room == nullptr) {
    out.allocatable = n->node.allocatable;
    out.pods = PodsTakingRoom(view, n->node.name);
  }
  return out;
}

namespace {

// What every node a group brings up is made from.
struct UpcomingShape {
  const NodeTemplate& t;
  const ProviderGroup& g;
  std::shared_ptr<const dra::NodeDevices> devices;  // its template's, once for all
};

// Node `index` of those the group is bringing up. Its props are `alike`'s, when given: the
// group's upcoming nodes with one MIG layout differ only in name.
Node UpcomingNode(const UpcomingShape& shape, int index, absl::string_view mig_layout,
                  std::shared_ptr<const NodeProps> alike) {
  const NodeTemplate& t = shape.t;
  const ProviderGroup& g = shape.g;
  const std::string& group = g.id;
  Node out;
  out.name = absl::StrCat("upcoming-", group, "-", index);
  out.allocatable =
      g.gpus != nullptr ? g.gpus->NodeAllocatable(t.allocatable, mig_layout) : t.allocatable;
  out.upcoming = true;
  out.group_id = group;
  for (const PodSpec& ds : t.daemonset_pods) out.pods.push_back(std::make_shared<PodSpec>(ds));
  if (alike != nullptr) {
    out.props = std::move(alike);
    return out;
  }
  out.labels = t.labels;
  out.annotations = t.annotations;
  out.taints = t.taints;
  out.devices = shape.devices;
  out.props = ClusterSnapshot::PropsOf(out);
  return out;
}

std::string LeftOutReason(const GroupState& g) {
  const ProviderGroup& p = *g.provider;
  if (!p.call_error.ok()) return std::string(p.call_error.message());
  if (!p.template_error.ok()) return std::string(p.template_error.message());
  if (!p.node_template.has_value()) return absl::StrCat("node group ", p.id, " has no template");
  if (g.backoff.has_value()) {
    return absl::StrCat("node group ", p.id, " is backed off until ",
                        absl::FormatTime("%H:%M:%S", g.backoff->until, absl::UTCTimeZone()),
                        " after ", g.backoff->error_code, ": ", g.backoff->error_message);
  }
  if (!g.healthy) {
    return absl::StrCat("node group ", p.id, " is unhealthy (", g.counts.unready, " of ",
                        g.counts.registered, " nodes unready)");
  }
  return "";
}

// By group: its template as new nodes will be; none where the provider gave none.
std::vector<std::optional<NodeTemplate>> PlanningTemplates(
    const ClusterView& view, const ClusterState& state,
    const std::vector<std::string>& ignored_taints) {
  std::vector<const PodSpec*> daemonset_pods;
  for (const DaemonSetPtr& ds : view.daemonsets) daemonset_pods.push_back(&ds->pod);
  std::vector<std::optional<NodeTemplate>> templates(state.groups.size());
  for (size_t g = 0; g < state.groups.size(); ++g) {
    const ProviderGroup& p = *state.groups[g].provider;
    if (p.node_template.has_value()) {
      templates[g] = PlanningTemplate(*p.node_template, daemonset_pods, ignored_taints);
    }
  }
  return templates;
}

// A group as the estimator sees it, `asked` nodes more than its target already.
NodeGroupSpec GroupSpecOf(const ProviderGroup& p, const NodeTemplate& planning_template,
                          int asked) {
  NodeGroupSpec spec;
  spec.id = p.id;
  spec.min_size = p.min_size;
  spec.max_size = p.max_size;
  spec.target_size = p.target_size + asked;
  spec.price_per_hour = p.price_per_hour;
  spec.node_template = planning_template;
  spec.gpus = p.gpus;  // read from the same labels, annotations and allocatable
  return spec;
}

}  // namespace

NodeTemplate PlanningTemplate(const NodeTemplate& tmpl,
                              const std::vector<const PodSpec*>& daemonset_pods,
                              const std::vector<std::string>& ignored_taints) {
  NodeTemplate t = tmpl;
  t.taints = WithoutStartupTaints(tmpl.taints, ignored_taints);
  t.daemonset_pods = DaemonSetPodsFor(t, daemonset_pods);
  return t;
}

PlanningCluster BuildPlanningCluster(const ClusterView& view, const ClusterState& state,
                                     const EarlierRounds& earlier,
                                     const std::vector<std::string>& ignored_taints,
                                     RunningNodeCache& rooms) {
  const std::map<std::string, int>& added = earlier.added;
  const std::set<std::string>& excluded = earlier.excluded;
  PlanningCluster out;
  const std::vector<std::optional<NodeTemplate>> templates =
      PlanningTemplates(view, state, ignored_taints);
  out.nodes.reserve(state.nodes.size());
  out.node_of_state.assign(state.nodes.size(), -1);
  out.upcoming_nodes.resize(state.groups.size());
  for (size_t i = 0; i < state.nodes.size(); ++i) {
    const NodeStatus& s = state.nodes[i];
    const ProviderGroup* group = s.group >= 0 ? state.groups[s.group].provider : nullptr;
    const int at = static_cast<int>(out.nodes.size());
    if (s.condition == NodeCondition::kReady && !s.node->Marks().unhealthy) {
      out.nodes.push_back(ExistingNode(s.node, view, group != nullptr ? group->id : kNoGroup,
                                       ignored_taints, rooms));
    } else if (s.condition == NodeCondition::kNotStarted && group != nullptr &&
               group->node_template.has_value()) {
      out.nodes.push_back(
          StartingNode(s, *group, PodsTakingRoom(view, s.node->node.name), ignored_taints));
    } else {
      continue;
    }
    out.node_of_state[i] = at;
    out.refs.push_back({s.group, static_cast<int>(i), -1,
                        /*starting=*/s.condition == NodeCondition::kNotStarted});
  }
  for (size_t g = 0; g < state.groups.size(); ++g) {
    const GroupState& gs = state.groups[g];
    const ProviderGroup& p = *gs.provider;
    auto more = added.find(p.id);
    const int asked = more == added.end() ? 0 : more->second;
    if (templates[g].has_value()) {
      const std::vector<std::string>& layouts = gs.upcoming_mig_layouts;
      std::shared_ptr<const NodeProps> props;  // the last node's, and its layout
      absl::string_view props_layout;
      const UpcomingShape shape{*templates[g], p,
                                dra::AssembleShared(templates[g]->resource_slices)};
      for (int i = 0; i < gs.upcoming + asked; ++i) {
        const absl::string_view layout =
            i < static_cast<int>(layouts.size()) ? absl::string_view(layouts[i]) : "";
        if (layout != props_layout) props = nullptr;
        out.upcoming_nodes[g].push_back(static_cast<int>(out.nodes.size()));
        out.refs.push_back({static_cast<int>(g), -1, i, false});
        out.nodes.push_back(UpcomingNode(shape, i, layout, std::move(props)));
        props = out.nodes.back().props;
        props_layout = layout;
      }
    }
    std::string why = LeftOutReason(gs);
    if (why.empty() && excluded.contains(p.id)) {
      why = absl::StrCat("node group ", p.id, " failed to scale up in this loop");
    }
    if (!why.empty()) {
      out.left_out[p.id] = std::move(why);
      continue;
    }
    out.groups.push_back(GroupSpecOf(p, *templates[g], asked));
  }
  return out;
}

std::vector<NodeGroupSpec> GrowableGroups(const ClusterView& view, const ClusterState& state,
                                          const std::vector<std::string>& ignored_taints) {
  const std::vector<std::optional<NodeTemplate>> templates =
      PlanningTemplates(view, state, ignored_taints);
  std::vector<NodeGroupSpec> out;
  for (size_t g = 0; g < state.groups.size(); ++g) {
    if (!LeftOutReason(state.groups[g]).empty()) continue;
    out.push_back(GroupSpecOf(*state.groups[g].provider, *templates[g], 0));
  }
  return out;
}

}  // namespace gpua
