#include "autoscaler/cli/estimate_command.h"

#include <map>
#include <nlohmann/json.hpp>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/file.h"
#include "base/status_macros.h"
#include "cloudproviders/node_group_file.h"
#include "estimator/estimate.h"
#include "estimator/expander.h"
#include "kubeobjects/documents.h"
#include "kubeobjects/dra_objects.h"
#include "kubeobjects/pod_groups.h"
#include "kubeobjects/pods.h"

namespace gpua {
namespace {

struct EstimateFlags {
  std::string pods_file;
  std::string node_groups_file;
  std::string output = "table";
  std::string expander = kDefaultExpanderChain;
  int64_t max_nodes_per_scaleup = 1000;
  int64_t max_nodes_total = 0;
  int64_t seed = 0;
};

// For a reconfigurable MIG pool: how many new nodes need each layout.
std::map<std::string, int> MigLayoutCounts(const GroupPlan& g) {
  std::map<std::string, int> counts;
  for (const PlannedNode& n : g.nodes) {
    if (!n.mig_layout.empty()) ++counts[n.mig_layout];
  }
  return counts;
}

nlohmann::json PlanToJson(const ScaleUpPlan& plan, const std::vector<PodSpec>& pods,
                          double elapsed_ms) {
  nlohmann::json groups = nlohmann::json::array();
  for (const GroupPlan& g : plan.groups) {
    nlohmann::json names = nlohmann::json::array();
    for (int p : g.pods) names.push_back(pods[p].Key());
    nlohmann::json group = {{"id", g.group_id}, {"new_nodes", g.new_nodes()}, {"pods", names}};
    if (!MigLayoutCounts(g).empty()) group["mig_layouts"] = MigLayoutCounts(g);
    groups.push_back(std::move(group));
  }
  nlohmann::json existing = nlohmann::json::array();
  for (const ExistingPlacement& e : plan.on_existing) {
    existing.push_back({{"pod", pods[e.pod].Key()}, {"node", e.node}});
  }
  nlohmann::json unschedulable = nlohmann::json::array();
  for (const UnschedulablePod& u : plan.unschedulable) {
    unschedulable.push_back({{"pod", pods[u.pod].Key()}, {"reasons", *u.reasons}});
  }
  return {{"groups", groups},
          {"existing", existing},
          {"unschedulable", unschedulable},
          {"elapsed_ms", elapsed_ms}};
}

void PrintTable(const ScaleUpPlan& plan, const std::vector<PodSpec>& pods,
                const std::vector<NodeGroupConfig>& groups, double elapsed_ms, std::ostream& out) {
  const auto price = [&](const std::string& id) {
    for (const NodeGroupConfig& g : groups) {
      if (g.spec.id == id) return g.spec.price_per_hour;
    }
    return 0.0;
  };
  out << absl::StrFormat("%-24s %9s %6s %12s\n", "NODE GROUP", "NEW NODES", "PODS", "USD/HOUR");
  double total_price = 0;
  size_t total_pods = 0;
  for (const GroupPlan& g : plan.groups) {
    const double p = price(g.group_id) * g.new_nodes();
    total_price += p;
    total_pods += g.pods.size();
    out << absl::StrFormat("%-24s %9d %6d %12.2f\n", g.group_id, g.new_nodes(), g.pods.size(), p);
    for (const auto& [layout, count] : MigLayoutCounts(g)) {
      out << absl::StrFormat("  %d node(s) with MIG layout %s\n", count, layout);
    }
  }
  out << absl::StrFormat("%-24s %9d %6d %12.2f\n", "total", plan.total_new_nodes(), total_pods,
                         total_price);
  if (!plan.on_existing.empty()) {
    out << "\n" << plan.on_existing.size() << " pod(s) fit nodes that exist or are coming up.\n";
  }
  if (!plan.unschedulable.empty()) {
    out << "\n" << plan.unschedulable.size() << " pod(s) fit no node group:\n";
    for (const UnschedulablePod& u : plan.unschedulable) {
      out << "  " << pods[u.pod].Key() << "\n";
      for (const auto& [group, reason] : *u.reasons) {
        out << "    " << group << ": " << reason << "\n";
      }
    }
  }
  out << absl::StrFormat("\nplanned in %.2f ms\n", elapsed_ms);
}

// The flags' values, checked; a usage error otherwise.
absl::Status CheckFlags(const EstimateFlags& f) {
  if (f.pods_file.empty() || f.node_groups_file.empty()) {
    return absl::InvalidArgumentError("--pods and --node-groups are required");
  }
  if (f.output != "table" && f.output != "json") {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid value \"", f.output, "\" for flag --output: expected table or json"));
  }
  return absl::OkStatus();
}

struct EstimateInput {
  std::vector<NodeGroupConfig> groups;
  std::vector<PodSpec> pods;  // pending ones, gang sizes from the file's PodGroups applied
};

// Reads both files. A pod that cannot be read is warned about on `err` and kept, invalid,
// so the plan lists it as unschedulable with its reason.
absl::StatusOr<EstimateInput> LoadInput(const EstimateFlags& f, std::ostream& err) {
  EstimateInput in;
  GPUA_ASSIGN_OR_RETURN(in.groups, LoadNodeGroupFile(f.node_groups_file));
  // Pending pods are a few thousand at most; a quarter of a gigabyte is a wrong file.
  constexpr int64_t kMaxPodsFileBytes = int64_t{256} << 20;
  GPUA_ASSIGN_OR_RETURN(const std::string text, ReadFile(f.pods_file, kMaxPodsFileBytes));
  GPUA_ASSIGN_OR_RETURN(const std::vector<nlohmann::json> objects, ParseObjects(text, f.pods_file));
  // The file's DRA objects first: pods name their claims and templates in any order.
  DraObjects dra;
  for (const nlohmann::json& o : objects) {
    if (!o.is_object() || !o.contains("kind") || !o["kind"].is_string() ||
        !IsDraKind(o["kind"].get<std::string>())) {
      continue;
    }
    if (absl::Status s = AddDraObject(o, dra); !s.ok()) {
      err << "warning: " << f.pods_file << ": " << s.message() << "\n";
    }
  }
  for (const NodeGroupConfig& g : in.groups) {
    for (const auto& [resource, q] : g.spec.node_template.allocatable) {
      if (q.Sign() > 0 && IsExtendedResource(resource)) dra.advertised.insert(resource);
    }
  }
  absl::flat_hash_set<std::string> seen;
  for (const nlohmann::json& o : objects) {
    if (!IsPodObject(o) || !IsPending(o)) continue;
    in.pods.push_back(DecodePod(o));
    // One pod planned twice would ask for a node it does not need.
    if (!seen.insert(in.pods.back().Key()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(f.pods_file, ": pod ", in.pods.back().Key(), " appears twice"));
    }
    if (!in.pods.back().invalid.ok()) {
      err << "warning: " << f.pods_file << ": " << in.pods.back().invalid.message() << "\n";
    }
    AttachPodDevices(dra, in.pods.back());
  }
  ApplyPodGroups(PodGroupMinMembers(objects), in.pods);
  return in;
}

ScaleUpPlan Plan(const EstimateInput& in, const EstimateFlags& f, Expander& expander) {
  std::vector<NodeGroupSpec> specs;
  for (const NodeGroupConfig& g : in.groups) specs.push_back(g.spec);
  EstimateOptions options;
  options.max_new_nodes = static_cast<int>(f.max_nodes_per_scaleup);
  options.max_nodes_total = static_cast<int>(f.max_nodes_total);
  ClusterSnapshot snapshot({});
  return Estimate(in.pods, specs, snapshot, expander, options);
}

}  // namespace

int RunEstimateCommand(const CommandArgs& args, const CommandIo& io) {
  EstimateFlags f;
  FlagSet flags("gpu-autoscaler estimate");
  flags.AddString("pods", &f.pods_file,
                  "pending pods: a PodList or List (kubectl get pods -o json) or a YAML stream, "
                  "with the DeviceClasses, ResourceClaims and ResourceClaimTemplates they use");
  flags.AddString("node-groups", &f.node_groups_file, "the node-group file (YAML or JSON)");
  flags.AddString("output", &f.output, "table or json");
  flags.AddString("expander", &f.expander, absl::StrCat("expander chain: ", ExpanderNames()));
  flags.AddInt("max-nodes-per-scaleup", &f.max_nodes_per_scaleup,
               "new nodes one scale-up may add over all groups");
  flags.AddInt("max-nodes-total", &f.max_nodes_total, "nodes in all; 0 for no limit");
  flags.AddInt("random-seed", &f.seed, "seed of the random expander");
  if (auto exit = ParseFlagsOrExit(flags, args,
                                   "Usage: gpu-autoscaler estimate --pods FILE --node-groups FILE "
                                   "[flags]\n\nPlans the nodes that would hold the pending pods.",
                                   io)) {
    return *exit;
  }
  if (absl::Status s = CheckFlags(f); !s.ok()) {
    io.err << "gpu-autoscaler estimate: " << s.message() << "\n";
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<Expander>> expander =
      MakeExpanderChain(f.expander, ExpanderConfig{{}, static_cast<uint64_t>(f.seed)});
  if (!expander.ok()) {
    io.err << "gpu-autoscaler estimate: --expander: " << expander.status().message() << "\n";
    return kExitUsage;
  }
  absl::StatusOr<EstimateInput> in = LoadInput(f, io.err);
  if (!in.ok()) {
    io.err << "gpu-autoscaler estimate: " << in.status().message() << "\n";
    return ExitStatusForInput(in.status());
  }
  const absl::Time start = io.clock.Now();
  const ScaleUpPlan plan = Plan(*in, f, **expander);
  const double elapsed_ms = absl::ToDoubleMilliseconds(io.clock.Now() - start);
  if (f.output == "json") {
    io.out << PlanToJson(plan, in->pods, elapsed_ms).dump(2) << "\n";
  } else {
    PrintTable(plan, in->pods, in->groups, elapsed_ms, io.out);
  }
  return kExitOk;
}

}  // namespace gpua
