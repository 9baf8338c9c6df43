#include "autoscaler/sim/packing_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "autoscaler/sim/sim_devices.h"

namespace gpua::sim {
namespace {

// A group without a pods limit holds any number of pods.
constexpr double kUnlimited = 1e18;
// Demands are sums of doubles: a node count is rounded up only past this much of a node, so
// rounding noise never adds a node (and a lower count keeps the bound a bound).
constexpr double kSlack = 1e-9;
// Beyond this many groups in one component, or this many node-count combinations to try,
// the exact search gives way to a weaker bound that is still a bound.
constexpr size_t kMaxExactGroups = 10;
constexpr double kMaxCombinations = 2e5;

int64_t NodesFor(double demand, double capacity) {
  return static_cast<int64_t>(std::ceil(demand / capacity - kSlack));
}

// One of Hall's conditions: the nodes of the groups in `mask` have at least `demand` of
// `resource`.
struct Condition {
  uint32_t mask = 0;  // by the component's group index; unused when `every_group`
  size_t resource = 0;
  double demand = 0;
  bool every_group = false;  // the whole component, however many groups it has
  bool Has(size_t group) const { return every_group || (group < 32 && (mask >> group & 1)); }
};

// The cheapest whole node counts meeting every condition, by a search over counts in which a
// partial cost at or above the best so far ends the branch.
class NodeCountSearch {
 public:
  NodeCountSearch(std::vector<double> price, std::vector<std::vector<double>> capacity,
                  std::vector<Condition> conditions)
      : price_(std::move(price)),
        capacity_(std::move(capacity)),
        conditions_(std::move(conditions)),
        m_(price_.size()) {}

  // The most nodes of each group a cheapest answer can need: enough alone for every
  // condition it is in.
  std::vector<int64_t> Ceilings() const {
    std::vector<int64_t> most(m_, 0);
    for (const Condition& c : conditions_) {
      for (size_t g = 0; g < m_; ++g) {
        if (c.Has(g) && capacity_[g][c.resource] > 0) {
          most[g] = std::max(most[g], NodesFor(c.demand, capacity_[g][c.resource]));
        }
      }
    }
    return most;
  }

  // Nodes by group; nullopt when there are too many combinations to try.
  std::optional<std::vector<int64_t>> Solve() {
    most_ = Ceilings();
    double combinations = 1;
    for (size_t g = 0; g + 1 < m_; ++g) combinations *= static_cast<double>(most_[g] + 1);
    if (combinations > kMaxCombinations) return std::nullopt;
    best_ = most_;  // every condition met: each has a group that alone meets it
    best_cost_ = Cost(best_);
    std::vector<int64_t> n(m_, 0);
    Search(0, n, 0);
    return best_;
  }

  double Cost(const std::vector<int64_t>& n) const {
    double cost = 0;
    for (size_t g = 0; g < m_; ++g) cost += price_[g] * static_cast<double>(n[g]);
    return cost;
  }

 private:
  // What the groups before `upto` give of the condition's resource.
  double Have(const Condition& c, const std::vector<int64_t>& n, size_t upto) const {
    double have = 0;
    for (size_t g = 0; g < upto; ++g) {
      if (c.Has(g)) have += static_cast<double>(n[g]) * capacity_[g][c.resource];
    }
    return have;
  }

  void Search(size_t g, std::vector<int64_t>& n, double cost) {
    if (g + 1 == m_) {
      int64_t last = 0;
      for (const Condition& c : conditions_) {
        const double missing = c.demand - Have(c, n, g);
        if (missing <= c.demand * kSlack) continue;
        if (!c.Has(g) || capacity_[g][c.resource] <= 0) return;  // cannot be met
        last = std::max(last, NodesFor(missing, capacity_[g][c.resource]));
      }
      n[g] = last;
      const double total = cost + price_[g] * static_cast<double>(last);
      if (total < best_cost_) {
        best_cost_ = total;
        best_ = n;
      }
      return;
    }
    const uint32_t decided = (uint32_t{2} << g) - 1;  // groups 0..g
    for (int64_t v = 0; v <= most_[g]; ++v) {
      const double with = cost + price_[g] * static_cast<double>(v);
      if (with >= best_cost_) break;  // prices are not negative: more only costs more
      n[g] = v;
      bool met = true;  // the conditions only decided groups can meet
      for (const Condition& c : conditions_) {
        if ((c.mask & ~decided) == 0 && Have(c, n, g + 1) < c.demand * (1 - kSlack)) {
          met = false;
          break;
        }
      }
      if (met) Search(g + 1, n, with);
    }
    n[g] = 0;
  }

  std::vector<double> price_;
  std::vector<std::vector<double>> capacity_;
  std::vector<Condition> conditions_;
  size_t m_;
  std::vector<int64_t> most_;
  std::vector<int64_t> best_;
  double best_cost_ = 0;
};

}  // namespace

PackingModel::PackingModel(std::vector<NodeGroupConfig> groups, const GpuPolicy& policy)
    : configs_(std::move(groups)), shapes_(GroupShapes(configs_)), policy_(policy) {
  pod_slot_ = Resource("pods");
  physical_gpus_ = Resource("");  // no resource has an empty name
  for (const GroupShape& shape : shapes_) {
    for (const NodeKind& kind : shape.kinds) {
      for (const auto& [name, q] : kind.allocatable) Resource(name);
    }
  }
  real_resources_ = resources_.size();
  for (size_t r = 0; r < real_resources_; ++r)
    resources_.push_back(absl::StrCat(">1/2 ", resources_[r]));
  capacity_.assign(shapes_.size(), std::vector<double>(resources_.size(), 0));
  for (size_t g = 0; g < shapes_.size(); ++g) {
    std::vector<double>& cap = capacity_[g];
    for (const NodeKind& kind : shapes_[g].kinds) {
      for (const auto& [name, q] : kind.allocatable) {
        const size_t r = Resource(name);
        cap[r] = std::max(cap[r], static_cast<double>(q.MilliValue()));
      }
    }
    cap[pod_slot_] = cap[pod_slot_] > 0 ? cap[pod_slot_] / 1000 : kUnlimited;  // slots, not milli
    if (shapes_[g].gpus.has_value()) cap[physical_gpus_] = shapes_[g].gpus->physical_count();
    if (shapes_[g].device_gpus > 0) cap[physical_gpus_] = shapes_[g].device_gpus;
    for (size_t r = 0; r < real_resources_; ++r) {
      if (r != pod_slot_ && cap[r] > 0) cap[real_resources_ + r] = 1;
    }
  }
}

size_t PackingModel::Resource(const std::string& name) {
  auto it = std::find(resources_.begin(), resources_.end(), name);
  if (it != resources_.end()) return static_cast<size_t>(it - resources_.begin());
  resources_.push_back(name);
  return resources_.size() - 1;
}

std::optional<int> PackingModel::AddClass(const PodSpec& pod) {
  PodClass c;
  c.use.assign(resources_.size(), 0);
  for (const auto& [name, q] : pod.requests) {
    auto it = std::find(resources_.begin(), resources_.begin() + real_resources_, name);
    if (it != resources_.begin() + real_resources_) {
      c.use[it - resources_.begin()] = static_cast<double>(q.MilliValue());
    }
  }
  c.use[pod_slot_] = 1;
  // Physical GPUs it takes on each group: the least over the node kinds that hold it.
  std::vector<double> gpus_on;
  for (size_t g = 0; g < shapes_.size(); ++g) {
    const GroupShape& shape = shapes_[g];
    if (!Holds(shape, pod, policy_)) continue;
    c.groups.push_back(static_cast<int>(g));
    double gpus = DeviceGpusOn(pod, shape).value_or(0);
    if (shape.gpus.has_value()) {
      gpus = std::numeric_limits<double>::infinity();
      for (const NodeKind& kind : shape.kinds) {
        if (!pod.requests.FitsWithin(kind.allocatable)) continue;
        gpus = std::min(gpus, PhysicalGpuUtilization(*shape.gpus, kind.layout, pod.requests) *
                                  shape.gpus->physical_count());
      }
    }
    gpus_on.push_back(gpus);
  }
  if (c.groups.empty()) return std::nullopt;
  c.use[physical_gpus_] = *std::min_element(gpus_on.begin(), gpus_on.end());
  // More than half of a resource on every node that may hold it: one such pod a node.
  for (size_t r = 0; r < real_resources_; ++r) {
    if (r == pod_slot_) continue;
    bool big_everywhere = true;
    for (size_t i = 0; i < c.groups.size() && big_everywhere; ++i) {
      const double use = r == physical_gpus_ ? gpus_on[i] : c.use[r];
      big_everywhere = use * 2 > capacity_[c.groups[i]][r];
    }
    if (big_everywhere) c.use[real_resources_ + r] = 1;
  }
  classes_.push_back(std::move(c));
  return static_cast<int>(classes_.size() - 1);
}

PackingModel::Packing PackingModel::Cheapest(const std::vector<int64_t>& count) const {
  Packing out;
  out.cost_by_group.assign(shapes_.size(), 0);
  // Groups that pods may share fall in one component; components are solved apart.
  std::vector<int> parent(shapes_.size());
  for (size_t g = 0; g < parent.size(); ++g) parent[g] = static_cast<int>(g);
  const auto root = [&](int g) {
    while (parent[g] != g) g = parent[g] = parent[parent[g]];
    return g;
  };
  std::vector<int> present;
  for (size_t k = 0; k < classes_.size() && k < count.size(); ++k) {
    if (count[k] <= 0) continue;
    present.push_back(static_cast<int>(k));
    for (int g : classes_[k].groups) parent[root(g)] = root(classes_[k].groups[0]);
  }
  std::map<int, std::pair<std::vector<int>, std::vector<int>>> components;  // groups, classes
  for (int k : present) components[root(classes_[k].groups[0])].second.push_back(k);
  for (auto& [r, members] : components) {
    for (size_t g = 0; g < shapes_.size(); ++g) {
      if (root(static_cast<int>(g)) == r) members.first.push_back(static_cast<int>(g));
    }
    SolveComponent(members.first, members.second, count, out);
  }
  for (double c : out.cost_by_group) out.cost_per_hour += c;
  return out;
}

void PackingModel::SolveComponent(const std::vector<int>& members, const std::vector<int>& classes,
                                  const std::vector<int64_t>& count, Packing& out) const {
  const size_t m = members.size();
  const size_t resources = resources_.size();
  const auto local_mask = [&](const PodClass& c) {
    uint32_t mask = 0;
    for (int g : c.groups) {
      const size_t i = std::find(members.begin(), members.end(), g) - members.begin();
      if (i < 32) mask |= uint32_t{1} << i;
    }
    return mask;
  };
  std::vector<Condition> conditions;
  if (m <= kMaxExactGroups) {
    // Demand of the pods whose groups are exactly each set, then summed over subsets: what
    // must fit inside each set of groups.
    std::vector<std::vector<double>> demand(size_t{1} << m, std::vector<double>(resources, 0));
    for (int k : classes) {
      const PodClass& c = classes_[k];
      std::vector<double>& d = demand[local_mask(c)];
      for (size_t r = 0; r < resources; ++r) d[r] += static_cast<double>(count[k]) * c.use[r];
    }
    for (size_t bit = 0; bit < m; ++bit) {
      for (size_t mask = 0; mask < demand.size(); ++mask) {
        if (!(mask >> bit & 1)) continue;
        for (size_t r = 0; r < resources; ++r) demand[mask][r] += demand[mask ^ (1u << bit)][r];
      }
    }
    for (size_t mask = 1; mask < demand.size(); ++mask) {
      for (size_t r = 0; r < resources; ++r) {
        if (demand[mask][r] > 0)
          conditions.push_back({static_cast<uint32_t>(mask), r, demand[mask][r]});
      }
    }
  }
  std::vector<double> price(m);
  std::vector<std::vector<double>> capacity(m);
  for (size_t i = 0; i < m; ++i) {
    price[i] = shapes_[members[i]].config->spec.price_per_hour;
    capacity[i] = capacity_[members[i]];
  }
  if (!conditions.empty()) {
    NodeCountSearch search(price, capacity, conditions);
    if (std::optional<std::vector<int64_t>> nodes = search.Solve()) {
      for (size_t i = 0; i < m; ++i) {
        out.cost_by_group[members[i]] += price[i] * static_cast<double>((*nodes)[i]);
      }
      return;
    }
  }
  // Too large to search: the best single condition, each met at the least price per unit.
  if (conditions.empty()) {
    for (size_t r = 0; r < resources; ++r) {
      double d = 0;
      for (int k : classes) d += static_cast<double>(count[k]) * classes_[k].use[r];
      if (d > 0) conditions.push_back({0, r, d, true});
    }
  }
  double best = 0;
  int best_group = members[0];
  for (const Condition& c : conditions) {
    double least = std::numeric_limits<double>::infinity();
    int at = -1;
    const bool alone = c.every_group ? m == 1 : (c.mask & (c.mask - 1)) == 0;
    for (size_t i = 0; i < m; ++i) {
      if (!c.Has(i) || capacity[i][c.resource] <= 0) continue;
      const double cost =
          alone ? price[i] * static_cast<double>(NodesFor(c.demand, capacity[i][c.resource]))
                : price[i] * c.demand / capacity[i][c.resource];
      if (cost < least) {
        least = cost;
        at = members[i];
      }
    }
    if (at >= 0 && least > best) {
      best = least;
      best_group = at;
    }
  }
  out.cost_by_group[best_group] += best;
}

PackingBound ComputePackingBound(const Trace& trace, const std::vector<NodeGroupConfig>& groups,
                                 const GpuPolicy& policy, int64_t max_windows) {
  PackingBound out;
  PackingModel model(groups, policy);
  // Pods by class, coming (+) and going (-), in time order.
  struct Change {
    absl::Duration at;
    int pod_class;
    int64_t delta;
  };
  std::vector<Change> changes;
  std::map<int, std::optional<int>> class_of_shape;
  ResolvedShapes pods(trace, groups);
  for (const TraceArrival& a : trace.arrivals) {
    const PodSpec& pod = pods.Of(a);
    auto it = class_of_shape.find(a.shape_id);
    if (it == class_of_shape.end())
      it = class_of_shape.emplace(a.shape_id, model.AddClass(pod)).first;
    // As the share bound: a gang no group can hold whole never runs.
    if (!it->second.has_value() ||
        (a.gang && !SomeGroupHoldsGang(pod, a.count, model.groups(), policy))) {
      out.pods_without_group += a.count;
      continue;
    }
    changes.push_back({a.at, *it->second, a.count});
    changes.push_back({a.at + a.run_for, *it->second, -a.count});
  }
  if (changes.empty()) return out;
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Change& a, const Change& b) { return a.at < b.at; });
  const absl::Duration start = changes.front().at;
  const absl::Duration span = changes.back().at - start;
  const absl::Duration window =
      std::max(absl::Nanoseconds(1), span / std::max<int64_t>(1, max_windows));
  std::vector<int64_t> running(class_of_shape.size(), 0);
  std::vector<int64_t> throughout;
  std::vector<int64_t> last_solved;
  PackingModel::Packing last;
  size_t next = 0;
  const auto apply_through = [&](absl::Duration t) {  // every change at or before t
    while (next < changes.size() && changes[next].at <= t) {
      running[changes[next].pod_class] += changes[next].delta;
      ++next;
    }
  };
  for (absl::Duration w = start; w < changes.back().at; w += window) {
    const absl::Duration end = std::min(w + window, changes.back().at);
    apply_through(w);
    throughout = running;
    // Each later state in the window, once all changes at its instant are made: only the
    // classes that changed can have fewer pods than before.
    while (next < changes.size() && changes[next].at < end) {
      const size_t first = next;
      apply_through(changes[next].at);
      for (size_t i = first; i < next; ++i) {
        const int k = changes[i].pod_class;
        throughout[k] = std::min(throughout[k], running[k]);
      }
    }
    if (throughout != last_solved) {
      last = model.Cheapest(throughout);
      last_solved = throughout;
      ++out.windows;
    }
    const double hours = absl::ToDoubleHours(end - w);
    out.cost_usd += last.cost_per_hour * hours;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (last.cost_by_group[g] > 0) {
        out.cost_by_group[groups[g].spec.id] += last.cost_by_group[g] * hours;
      }
    }
  }
  return out;
}

}  // namespace gpua::sim
