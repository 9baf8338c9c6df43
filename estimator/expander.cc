#include "estimator/expander.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <regex>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "estimator/gpu/gpu_resource.h"
#include "estimator/resource_vector.h"

namespace gpua {
namespace {

// Keeps the candidates whose score is lowest (within a relative tolerance, so that float
// noise does not break a real tie).
std::vector<size_t> KeepLowest(const std::vector<size_t>& candidates,
                               const std::function<double(size_t)>& score) {
  std::vector<size_t> best;
  double best_score = 0;
  for (size_t i : candidates) {
    const double s = score(i);
    const double tolerance = 1e-9 * std::max(1.0, std::fabs(best_score));
    if (best.empty() || s < best_score - tolerance) {
      best = {i};
      best_score = s;
    } else if (std::fabs(s - best_score) <= tolerance) {
      best.push_back(i);
    }
  }
  return best;
}

double Fraction(const Quantity& part, const Quantity& whole) {
  if (whole.Sign() <= 0) return 0;
  return static_cast<double>(part.nanos()) / static_cast<double>(whole.nanos());
}

// Unused share of what the new nodes offer: GPUs first, then cpu and memory together.
class LeastWaste : public Expander {
 public:
  std::string name() const override { return "least-waste"; }
  std::vector<size_t> Best(const std::vector<ScaleUpOption>& options,
                           const std::vector<size_t>& candidates) override {
    std::vector<size_t> best =
        KeepLowest(candidates, [&](size_t i) { return GpuWaste(options[i]); });
    return KeepLowest(best, [&](size_t i) {
      const ScaleUpOption& o = options[i];
      double waste = 0;
      for (absl::string_view r : {kResourceCpu, kResourceMemory}) {
        const Quantity offered = o.nodes_allocatable.Get(r);
        waste += 1.0 - Fraction(o.pods_requests.Get(r), offered);
      }
      return waste;
    });
  }

 private:
  static double GpuWaste(const ScaleUpOption& o) {
    Quantity offered, used;
    for (const auto& [name, q] : o.nodes_allocatable) {
      if (!IsGpuResource(name)) continue;
      offered += q;
      used += o.pods_requests.Get(name);
    }
    return offered.IsZero() ? 0 : 1.0 - Fraction(used, offered);
  }
};

// Cost per hour of the option for each pod it places.
class Price : public Expander {
 public:
  std::string name() const override { return "price"; }
  std::vector<size_t> Best(const std::vector<ScaleUpOption>& options,
                           const std::vector<size_t>& candidates) override {
    return KeepLowest(candidates, [&](size_t i) {
      const ScaleUpOption& o = options[i];
      return o.new_nodes * o.group->price_per_hour /
             static_cast<double>(std::max<int64_t>(1, o.pod_count));
    });
  }
};

// Drops every option another priced option beats outright: it holds at least the same pods
// (as many, asking for at least as much of every resource) for strictly less an hour. What
// is left is what a choice has to weigh; ties and unpriced groups all stay.
class CheapestAmongEquals : public Expander {
 public:
  std::string name() const override { return "cheapest-equal"; }
  std::vector<size_t> Best(const std::vector<ScaleUpOption>& options,
                           const std::vector<size_t>& candidates) override {
    std::vector<size_t> kept;
    for (size_t j : candidates) {
      const bool beaten = std::any_of(candidates.begin(), candidates.end(), [&](size_t i) {
        return i != j && Beats(options[i], options[j]);
      });
      if (!beaten) kept.push_back(j);
    }
    return kept;
  }

 private:
  static double Cost(const ScaleUpOption& o) { return o.new_nodes * o.group->price_per_hour; }
  static bool HoldsAsMuch(const ScaleUpOption& a, const ScaleUpOption& b) {
    if (a.pod_count < b.pod_count) return false;
    for (const auto& [name, q] : b.pods_requests) {
      if (a.pods_requests.Get(name) < q) return false;
    }
    return true;
  }
  static bool Beats(const ScaleUpOption& a, const ScaleUpOption& b) {
    if (a.group->price_per_hour <= 0 || b.group->price_per_hour <= 0) return false;
    const double tolerance = 1e-9 * std::max(1.0, Cost(b));
    return Cost(a) < Cost(b) - tolerance && HoldsAsMuch(a, b);
  }
};

class MostPods : public Expander {
 public:
  std::string name() const override { return "most-pods"; }
  std::vector<size_t> Best(const std::vector<ScaleUpOption>& options,
                           const std::vector<size_t>& candidates) override {
    return KeepLowest(candidates,
                      [&](size_t i) { return -static_cast<double>(options[i].pod_count); });
  }
};

class LeastNodes : public Expander {
 public:
  std::string name() const override { return "least-nodes"; }
  std::vector<size_t> Best(const std::vector<ScaleUpOption>& options,
                           const std::vector<size_t>& candidates) override {
    return KeepLowest(candidates, [&](size_t i) { return options[i].new_nodes; });
  }
};

// Picks one at random; seeded, so a run can be repeated.
class Random : public Expander {
 public:
  explicit Random(uint64_t seed) : rng_(seed) {}
  std::string name() const override { return "random"; }
  std::vector<size_t> Best(const std::vector<ScaleUpOption>&,
                           const std::vector<size_t>& candidates) override {
    if (candidates.empty()) return {};
    std::uniform_int_distribution<size_t> pick(0, candidates.size() - 1);
    return {candidates[pick(rng_)]};
  }

 private:
  std::mt19937_64 rng_;
};

// Groups whose id matches a regex of the highest priority; when no group matches any, all
// stay, as in cluster-autoscaler.
class Priority : public Expander {
 public:
  struct Level {
    int64_t priority;
    std::vector<std::regex> patterns;
  };
  explicit Priority(std::vector<Level> levels) : levels_(std::move(levels)) {}
  std::string name() const override { return "priority"; }
  std::vector<size_t> Best(const std::vector<ScaleUpOption>& options,
                           const std::vector<size_t>& candidates) override {
    for (const Level& level : levels_) {  // highest first
      std::vector<size_t> matched;
      for (size_t i : candidates) {
        for (const std::regex& re : level.patterns) {
          if (std::regex_search(options[i].group->id, re)) {
            matched.push_back(i);
            break;
          }
        }
      }
      if (!matched.empty()) return matched;
    }
    return candidates;
  }

 private:
  std::vector<Level> levels_;
};

class Chain : public Expander {
 public:
  explicit Chain(std::vector<std::unique_ptr<Expander>> links) : links_(std::move(links)) {}
  std::string name() const override {
    std::string n;
    for (const auto& l : links_) absl::StrAppend(&n, n.empty() ? "" : ",", l->name());
    return n;
  }
  std::vector<size_t> Best(const std::vector<ScaleUpOption>& options,
                           const std::vector<size_t>& candidates) override {
    std::vector<size_t> left = candidates;
    for (const auto& link : links_) {
      if (left.size() <= 1) break;
      left = link->Best(options, left);
    }
    return left;
  }

 private:
  std::vector<std::unique_ptr<Expander>> links_;
};

absl::StatusOr<std::unique_ptr<Expander>> MakePriority(const PriorityConfig& config) {
  std::vector<Priority::Level> levels;
  for (auto it = config.rbegin(); it != config.rend(); ++it) {
    Priority::Level level{it->first, {}};
    for (const std::string& pattern : it->second) {
      try {
        level.patterns.emplace_back(pattern, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        return absl::InvalidArgumentError(absl::StrCat("priority expander: priority ", it->first,
                                                       ": bad regex \"", pattern,
                                                       "\": ", e.what()));
      }
    }
    levels.push_back(std::move(level));
  }
  return std::make_unique<Priority>(std::move(levels));
}

// One that needs no configuration.
template <typename T>
absl::StatusOr<std::unique_ptr<Expander>> Plain(const ExpanderConfig&) {
  return std::make_unique<T>();
}

}  // namespace

const std::vector<ExpanderFactory>& ExpanderRegistry() {
  static const std::vector<ExpanderFactory> kExpanders = {
      {"cheapest-equal", Plain<CheapestAmongEquals>},
      {"least-waste", Plain<LeastWaste>},
      {"price", Plain<Price>},
      {"priority", [](const ExpanderConfig& c) { return MakePriority(c.priorities); }},
      {"most-pods", Plain<MostPods>},
      {"least-nodes", Plain<LeastNodes>},
      {"random",
       [](const ExpanderConfig& c) -> absl::StatusOr<std::unique_ptr<Expander>> {
         return std::make_unique<Random>(c.random_seed);
       }},
  };
  return kExpanders;
}

std::string ExpanderNames() {
  std::vector<absl::string_view> names;
  for (const ExpanderFactory& e : ExpanderRegistry()) names.emplace_back(e.name);
  return absl::StrJoin(names, ", ");
}

absl::StatusOr<std::unique_ptr<Expander>> MakeExpanderChain(absl::string_view spec,
                                                            const ExpanderConfig& config) {
  std::vector<std::unique_ptr<Expander>> links;
  for (absl::string_view raw : absl::StrSplit(spec, ',')) {
    const absl::string_view name = absl::StripAsciiWhitespace(raw);
    const auto& all = ExpanderRegistry();
    const auto found = std::find_if(all.begin(), all.end(),
                                    [&](const ExpanderFactory& e) { return name == e.name; });
    if (found == all.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown expander \"", name, "\" (expected ", ExpanderNames(), ")"));
    }
    absl::StatusOr<std::unique_ptr<Expander>> link = found->make(config);
    if (!link.ok()) return link.status();
    links.push_back(*std::move(link));
  }
  return std::make_unique<Chain>(std::move(links));
}

int ChooseOption(Expander& expander, const std::vector<ScaleUpOption>& options) {
  std::vector<size_t> all;
  for (size_t i = 0; i < options.size(); ++i) {
    if (options[i].pod_count > 0) all.push_back(i);
  }
  if (all.empty()) return -1;
  std::vector<size_t> best = expander.Best(options, all);
  return best.empty() ? static_cast<int>(all.front()) : static_cast<int>(best.front());
}

}  // namespace gpua
