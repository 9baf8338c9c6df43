#include "autoscaler/controller/model/provider_snapshot.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "autoscaler/controller/model/template_from_node.h"
#include "estimator/dra/template_slices.h"
#include "estimator/gpu/gpu_inventory_reader.h"

namespace gpua {
namespace {

const NodeGroupLimits* LimitsFor(const std::vector<NodeGroupLimits>& limits,
                                 const std::string& id) {
  for (const NodeGroupLimits& l : limits) {
    if (l.id == id) return &l;
  }
  return nullptr;
}

absl::Status InGroup(const std::string& id, absl::string_view what, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat("node group ", id, ": ", what, ": ", s.message()));
}

absl::StatusOr<std::shared_ptr<const GpuInventory>> Shared(
    absl::StatusOr<std::optional<GpuInventory>> read) {
  if (!read.ok()) return read.status();
  if (!read->has_value()) return nullptr;
  return std::make_shared<const GpuInventory>(**std::move(read));
}

}  // namespace

const ProviderGroup* ProviderSnapshot::Find(absl::string_view id) const {
  for (const ProviderGroup& g : groups) {
    if (g.id == id) return &g;
  }
  return nullptr;
}

void ProviderSnapshot::IndexInstances() {
  instance_listing.clear();
  size_t listings = 0;
  for (const ProviderGroup& g : groups) listings += g.instances.size();
  instance_listing.reserve(listings);  // one allocation, no rehash as it fills
  first_listing.assign(groups.size(), {});
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::vector<Instance>& listed = groups[g].instances;
    std::vector<size_t>& first = first_listing[g];
    first.resize(listed.size());
    for (size_t k = 0; k < listed.size(); ++k) {
      auto [it, added] = instance_listing.try_emplace(listed[k].id, InstanceListing{g, k});
      if (!added && it->second.group != g) it->second = {g, k};  // the last group to list it
      first[k] = it->second.index;
    }
  }
}

ProviderReader::ProviderReader(CloudProvider& provider, const ControllerOptions& options,
                               LogSink& log)
    : provider_(provider), options_(options), log_(log) {}

void ProviderReader::SayOnce(const std::string& line) {
  if (said_.insert(line).second) log_.Warning(line);
}

ProviderSnapshot ProviderReader::Read(const std::vector<NodePtr>& nodes, absl::Time now,
                                      const NodeDevicesByName& devices) {
  ProviderSnapshot out;
  if (absl::Status s = provider_.Refresh(); !s.ok() && !IsNotImplemented(s)) {
    out.error = s;
    return out;
  }
  absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> groups = provider_.NodeGroups();
  if (!groups.ok()) {
    out.error = groups.status();
    return out;
  }
  absl::StatusOr<std::string> label = provider_.GpuLabel();
  out.gpu_label = label.ok() && !label->empty() ? *label : kDefaultGpuLabel;
  for (const NodeGroupLimits& l : options_.node_groups) {
    const bool listed =
        std::any_of(groups->begin(), groups->end(), [&](const auto& g) { return g->Id() == l.id; });
    if (!listed) {
      SayOnce(
          absl::StrCat("--nodes names node group ", l.id, ", which the provider does not list"));
    }
  }
  out.groups.reserve(groups->size());
  for (std::shared_ptr<NodeGroup>& g : *groups) {
    const NodeGroupLimits* limits = LimitsFor(options_.node_groups, g->Id());
    if (!options_.node_groups.empty() && limits == nullptr) continue;  // --nodes leaves it out
    out.groups.push_back(ReadGroup(std::move(g), limits, out.gpu_label));
  }
  out.IndexInstances();
  ResolveUnlisted(nodes, out);
  TemplatesFromNodes(nodes, devices, out);
  for (ProviderGroup& g : out.groups) g.price_per_hour = PriceOf(g, now);
  inventories_ = std::exchange(reading_, {});  // groups no longer listed are let go
  return out;
}

double ProviderReader::PriceOf(const ProviderGroup& g, absl::Time now) {
  if (pricing_unimplemented_ || !g.node_template.has_value()) return 0;
  const NodeTemplate& t = *g.node_template;
  // A template node has no provider ID; it is named for its group.
  absl::StatusOr<double> price = provider_.NodePrice(
      {"", t.name.empty() ? g.id : t.name, t.labels, t.annotations}, now, now + absl::Hours(1));
  if (IsNotImplemented(price.status())) pricing_unimplemented_ = true;
  return price.ok() ? *price : 0;
}

void ProviderReader::SetTemplate(ProviderGroup& g, NodeTemplate t, const std::string& gpu_label) {
  absl::StatusOr<std::shared_ptr<const GpuInventory>> gpus = InventoryOf(g.id, t);
  if (gpus.ok()) {
    g.gpus = *std::move(gpus);
    g.template_error = absl::OkStatus();
  } else {
    g.template_error = gpus.status();
  }
  if (auto it = t.labels.find(gpu_label); it != t.labels.end()) g.gpu_type = it->second;
  g.node_template = std::move(t);
}

void ProviderReader::TemplatesFromNodes(const std::vector<NodePtr>& nodes,
                                        const NodeDevicesByName& devices, ProviderSnapshot& out) {
  std::vector<std::vector<TemplateCandidate>> of_group(out.groups.size());
  bool wanted = false;
  for (const ProviderGroup& g : out.groups) wanted |= !g.node_template.has_value();
  if (!wanted) return;
  for (const NodePtr& n : nodes) {
    auto d = devices.find(n->node.name);
    const TemplateCandidate candidate{n.get(), d == devices.end() ? nullptr : &d->second};
    auto listed = out.instance_listing.find(n->provider_id);
    if (listed != out.instance_listing.end()) {
      of_group[listed->second.group].push_back(candidate);
    } else if (auto g = out.group_of_node.find(n->node.name); g != out.group_of_node.end()) {
      of_group[g->second].push_back(candidate);
    }
  }
  for (size_t i = 0; i < out.groups.size(); ++i) {
    ProviderGroup& g = out.groups[i];
    if (g.node_template.has_value() || !g.call_error.ok()) continue;
    if (const TemplateCandidate* from = NodeToTemplateFrom(of_group[i])) {
      SetTemplate(g, TemplateFromNode(*from, g.id), out.gpu_label);
    }
  }
}

void ProviderReader::ResolveUnlisted(const std::vector<NodePtr>& nodes, ProviderSnapshot& out) {
  absl::flat_hash_map<std::string, std::string> kept;
  for (const NodePtr& n : nodes) {
    const std::string& id = n->provider_id;
    if (id.empty() || out.instance_listing.contains(id)) continue;
    auto cached = group_for_node_.find(id);
    std::string group;
    if (cached != group_for_node_.end()) {
      group = cached->second;
    } else {
      absl::StatusOr<std::shared_ptr<NodeGroup>> answer =
          provider_.NodeGroupForNode({id, n->node.name, n->node.labels, n->annotations});
      if (!answer.ok()) continue;  // asked again next loop
      group = *answer == nullptr ? "" : (*answer)->Id();
    }
    kept[id] = group;
    for (size_t i = 0; i < out.groups.size(); ++i) {
      if (!group.empty() && out.groups[i].id == group) out.group_of_node[n->node.name] = i;
    }
  }
  group_for_node_ = std::move(kept);
}

absl::StatusOr<std::shared_ptr<const GpuInventory>> ProviderReader::InventoryOf(
    const std::string& group, const NodeTemplate& t) {
  if (dra::GpusAreDevices(!t.resource_slices.empty(), t.allocatable)) {
    return std::shared_ptr<const GpuInventory>();
  }
  KeptInventory& now = reading_[group];
  auto kept = inventories_.find(group);
  if (kept != inventories_.end() && kept->second.labels == t.labels &&
      kept->second.annotations == t.annotations && kept->second.allocatable == t.allocatable) {
    now = std::move(kept->second);
    return now.gpus;
  }
  now = {t.labels, t.annotations, t.allocatable,
         Shared(ReadGpuInventory(t.labels, t.annotations, t.allocatable,
                                 absl::StrCat("node group ", group, ": template")))};
  return now.gpus;
}

std::vector<Instance> ProviderReader::WellFormed(const std::string& group,
                                                 std::vector<Instance> instances) {
  absl::flat_hash_set<std::string> ids;
  std::vector<Instance> kept;
  kept.reserve(instances.size());
  for (Instance& i : instances) {
    if (i.id.empty() || !ids.insert(i.id).second) {
      // Acting on such an entry would delete one instance twice, or one nobody can name.
      SayOnce(
          absl::StrCat("node group ", group, ": NodeGroupNodes listed ",
                       i.id.empty() ? "an instance without an ID" : "instance " + i.id + " twice",
                       "; the entry is ignored"));
      continue;
    }
    kept.push_back(std::move(i));
  }
  return kept;
}

ProviderGroup ProviderReader::ReadGroup(std::shared_ptr<NodeGroup> group,
                                        const NodeGroupLimits* limits,
                                        const std::string& gpu_label) {
  ProviderGroup g;
  g.id = group->Id();
  g.group = std::move(group);
  g.min_size = g.group->MinSize();
  g.max_size = g.group->MaxSize();
  if (limits != nullptr) {  // the flag narrows; the provider would refuse past its own max
    g.min_size = std::max(g.min_size, limits->min_size);
    g.max_size = std::min(g.max_size, limits->max_size);
  }
  const auto fail = [&](absl::string_view what, const absl::Status& s) {
    if (g.call_error.ok()) g.call_error = InGroup(g.id, what, s);
  };
  absl::StatusOr<int> target = g.group->TargetSize();
  if (target.ok() && *target < 0) {
    target = absl::InvalidArgumentError(absl::StrCat("answered a negative size, ", *target));
  }
  if (target.ok()) {
    g.target_size = *target;
  } else {
    fail("TargetSize", target.status());
  }
  absl::StatusOr<std::vector<Instance>> instances = g.group->Nodes();
  if (instances.ok()) {
    g.instances = WellFormed(g.id, *std::move(instances));
  } else {
    fail("Nodes", instances.status());
  }
  absl::StatusOr<NodeTemplate> tmpl = g.group->TemplateNode();
  if (tmpl.ok()) {
    SetTemplate(g, *std::move(tmpl), gpu_label);
  } else if (IsNotImplemented(tmpl.status())) {
    // Taken from one of its nodes once they are known (TemplatesFromNodes); until then, and
    // for good at zero, the reason it has none.
    g.template_error = InGroup(g.id, "TemplateNodeInfo", tmpl.status());
  } else {
    fail("TemplateNodeInfo", tmpl.status());
  }
  absl::StatusOr<AutoscalingOptions> options = g.group->GetOptions(options_.group_defaults);
  g.options = options.ok() ? *options : options_.group_defaults;
  if (!options.ok() && !IsNotImplemented(options.status())) {
    SayOnce(absl::StrCat("node group ", g.id, ": GetOptions failed, the flags' defaults apply: ",
                         options.status().message()));
  }
  return g;
}

}  // namespace gpua
