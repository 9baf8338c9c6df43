#include "autoscaler/controller/scaledown/replacement_planner.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "autoscaler/controller/spot/spot_capacity.h"
#include "estimator/cluster_snapshot.h"
#include "estimator/static_admissions.h"

namespace gpua {
namespace {

// One group is packed at a time: its only option is the one to take.
class OnlyOption final : public Expander {
 public:
  std::string name() const override { return "only-option"; }
  std::vector<size_t> Best(const std::vector<ScaleUpOption>&,
                           const std::vector<size_t>& candidates) override {
    return candidates;
  }
};

// The price of the node-time a candidate's pods lose.
double DisruptionPrice(const ReplaceableNode& n) {
  return absl::ToDoubleHours(n.lost) * n.price_per_hour;
}

// The layout of the one new node of `group` that holds every pod of `pods`; nullopt when one
// node does not.
std::optional<std::string> OneNodeHolds(const std::vector<const PodSpec*>& pods,
                                        const NodeGroupSpec& group,
                                        const EstimateOptions& packing) {
  ClusterSnapshot empty({});
  StaticAdmissions admissions;
  OnlyOption only;
  EstimateOptions options = packing;
  options.max_new_nodes = 1;
  const ScaleUpPlan plan = Estimate(pods, {group}, {empty, admissions}, only, options);
  if (!plan.unschedulable.empty() || !plan.on_existing.empty() || plan.groups.size() != 1 ||
      plan.groups[0].new_nodes() != 1 || plan.groups[0].pods.size() != pods.size()) {
    return std::nullopt;
  }
  return plan.groups[0].nodes[0].mig_layout;
}

}  // namespace

std::string NodeReplacement::Describe() const {
  std::vector<std::string> names;
  size_t pods = 0;
  for (const ReplaceableNode& n : replaced) {
    names.push_back(n.name);
    pods += n.pods.size();
  }
  return absl::StrFormat(
      "one new node of group %s%s ($%.2f/h) holds the %d pod(s) of %s: saves $%.2f/h, its "
      "pods lose %s of node time",
      group, mig_layout.empty() ? "" : absl::StrCat(" in MIG layout ", mig_layout), price_per_hour,
      pods, absl::StrJoin(names, ", "), saving_per_hour,
      absl::FormatDuration(absl::Trunc(lost, absl::Seconds(1))));
}

std::optional<NodeReplacement> PlanReplacement(std::vector<ReplaceableNode> candidates,
                                               const std::vector<NodeGroupSpec>& groups,
                                               const ReplacementSearch& search) {
  if (search.payback <= absl::ZeroDuration() || candidates.empty()) return std::nullopt;
  std::sort(candidates.begin(), candidates.end(),
            [](const ReplaceableNode& a, const ReplaceableNode& b) {
              const double da = DisruptionPrice(a), db = DisruptionPrice(b);
              if (da != db) return da < db;
              if (a.price_per_hour != b.price_per_hour) return a.price_per_hour > b.price_per_hour;
              return a.name < b.name;
            });
  const double payback_hours = absl::ToDoubleHours(search.payback);
  std::optional<NodeReplacement> best;
  std::vector<const PodSpec*> pods;
  double price = 0, disruption = 0;
  absl::Duration lost, overlap;
  bool all_spot = true;
  const size_t most = std::min(candidates.size(), static_cast<size_t>(search.max_nodes));
  for (size_t k = 0; k < most; ++k) {
    const ReplaceableNode& n = candidates[k];
    pods.insert(pods.end(), n.pods.begin(), n.pods.end());
    price += n.price_per_hour;
    disruption += DisruptionPrice(n);
    lost += n.lost;
    overlap = std::max(overlap, n.drain_after);
    all_spot = all_spot && n.spot;
    for (const NodeGroupSpec& g : groups) {
      if (!all_spot && OnSpotCapacity(g.node_template.labels)) continue;
      const double saving = price - g.price_per_hour;
      const double cost = disruption + g.price_per_hour * absl::ToDoubleHours(overlap);
      if (g.price_per_hour <= 0 || saving <= 0 || saving * payback_hours <= cost) continue;
      if (best.has_value() && saving <= best->saving_per_hour) continue;
      std::optional<std::string> layout = OneNodeHolds(pods, g, search.packing);
      if (!layout.has_value()) continue;
      best = NodeReplacement{g.id,
                             std::move(*layout),
                             g.price_per_hour,
                             {candidates.begin(), candidates.begin() + k + 1},
                             saving,
                             lost};
    }
  }
  return best;
}

}  // namespace gpua
