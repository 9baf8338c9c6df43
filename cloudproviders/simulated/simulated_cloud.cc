#include "cloudproviders/simulated/simulated_cloud.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "estimator/gpu/gpu_resource.h"

namespace gpua {
namespace {

struct SimInstance {
  std::string id;  // the provider ID: sim://<group>/<n>
  InstanceState state = InstanceState::kCreating;
  std::optional<InstanceError> error;
  absl::Time running_at;
  absl::Time gpu_ready_at;
  absl::Duration spot_lifetime = absl::InfiniteDuration();  // from running to its reclaim
  std::optional<absl::Time> reclaim_at;                     // spot only, once running
  absl::Time gone_at;                                       // once deleting
  bool ran = false;                          // it reached running: billed from running_at
  bool noticed = false;                      // its reclaim notice has been given
  std::optional<absl::Time> gpu_failure_at;  // when its GPUs fail, if they will
  bool gpu_failed = false;

  // The billed time up to `end` (when it went, or now).
  absl::Duration BilledUntil(absl::Time end) const {
    return ran && end > running_at ? end - running_at : absl::ZeroDuration();
  }
};

struct GroupState {
  NodeGroupConfig config;
  int next_index = 0;
  bool stockout = false;
  absl::Status increase_error;
  absl::Status call_error;  // every call of the group answers it (FailGroupCalls)
  std::vector<SimInstance> instances;
  absl::Duration billed_gone;  // of the instances that are gone
  int interruptions = 0;       // reclaim notices given (spot, or Interrupt)
  int gpu_failures = 0;
  double gpu_failures_per_node_hour = 0;  // its own, and the soak's added

  int TargetSize() const {
    return static_cast<int>(std::count_if(instances.begin(), instances.end(), [](const auto& i) {
      return i.state != InstanceState::kDeleting;
    }));
  }
};

constexpr absl::string_view kScheme = "sim://";

// The n of sim://<group>/<n>.
int IndexOf(absl::string_view id) {
  int n = 0;
  const size_t slash = id.rfind('/');
  if (slash == absl::string_view::npos || !absl::SimpleAtoi(id.substr(slash + 1), &n)) return 0;
  return n;
}

// Log-normal through the median and the 95th percentile.
absl::Duration Draw(const DelayDistribution& d, std::mt19937_64& rng) {
  if (d.p50 <= absl::ZeroDuration()) return absl::ZeroDuration();
  const double sigma = d.p95 > d.p50 ? std::log(absl::FDivDuration(d.p95, d.p50)) / 1.6448536 : 0.0;
  std::normal_distribution<double> normal(0.0, 1.0);
  return d.p50 * std::exp(sigma * normal(rng));
}

// A hash that is the same in every process (absl::Hash is not), for seeding.
uint32_t Fnv1a(absl::string_view text) {
  uint32_t h = 2166136261u;
  for (char c : text) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h;
}

}  // namespace

struct SimulatedCloud::State {
  absl::Mutex mu;
  uint64_t seed = 0;
  absl::Time quiet_until ABSL_GUARDED_BY(mu) = absl::InfinitePast();
  int64_t touches ABSL_GUARDED_BY(mu) = 0;  // changes made from outside
  std::vector<GroupState> groups ABSL_GUARDED_BY(mu);
  absl::Status fail_with ABSL_GUARDED_BY(mu);
  int fail_count ABSL_GUARDED_BY(mu) = 0;
  absl::Duration latency ABSL_GUARDED_BY(mu);
  absl::Duration spot_notice;

  // The n-th instance of a group draws its delays and its spot lifetime from a stream of its
  // own, so two runs with the same seed (two settings of a sweep) give their n-th instances
  // of a group the same luck, whatever else they did: the settings' figures then differ by
  // what the settings change, not by the dice.
  std::mt19937_64 InstanceRng(const GroupState& g, int index) const {
    std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                      Fnv1a(g.config.spec.id), static_cast<uint32_t>(index)};
    return std::mt19937_64(seq);
  }

  // When the n-th instance's GPUs fail, from a stream of their own (so a rate changes no other
  // draw), counted from when they are up; unset at a rate of 0.
  std::optional<absl::Time> GpuFailureAt(const GroupState& g, int index, absl::Time from) const {
    if (g.gpu_failures_per_node_hour <= 0) return std::nullopt;
    std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                      Fnv1a(g.config.spec.id), static_cast<uint32_t>(index), 0x9e3779b9u};
    std::mt19937_64 rng(seq);
    const double hours = std::exponential_distribution<double>(g.gpu_failures_per_node_hour)(rng);
    return from + absl::Hours(std::min(hours, 1e6));
  }

  void Launch(GroupState& g, int count, absl::Time at) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    const double per_hour = g.config.simulation.spot_interruptions_per_hour;
    for (int i = 0; i < count; ++i) {
      const int index = g.next_index++;
      std::mt19937_64 rng = InstanceRng(g, index);
      SimInstance inst;
      inst.id = absl::StrCat(kScheme, g.config.spec.id, "/", index);
      inst.running_at = at + Draw(g.config.simulation.provisioning_delay, rng);
      inst.gpu_ready_at = inst.running_at + Draw(g.config.simulation.gpu_ready_delay, rng);
      if (g.config.capacity_type == CapacityType::kSpot && per_hour > 0) {
        inst.spot_lifetime = absl::Hours(std::exponential_distribution<double>(per_hour)(rng));
      }
      inst.gpu_failure_at = GpuFailureAt(g, index, inst.gpu_ready_at);
      if (g.stockout) {
        inst.error = InstanceError{"OutOfCapacity",
                                   absl::StrCat("no capacity for node group ", g.config.spec.id),
                                   InstanceErrorClass::kOutOfResources};
      }
      g.instances.push_back(std::move(inst));
    }
    Touch();
  }

  // The next time after `now` an instance changes by itself: it starts running, gets its
  // reclaim notice, is reclaimed or is gone.
  absl::Time NextDue(absl::Time now) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    absl::Time next = absl::InfiniteFuture();
    const auto consider = [&](absl::Time t) {
      if (t > now) next = std::min(next, t);
    };
    for (const GroupState& g : groups) {
      for (const SimInstance& i : g.instances) {
        if (i.state == InstanceState::kCreating && !i.error) consider(i.running_at);
        if (i.state == InstanceState::kRunning) consider(i.gpu_ready_at);
        if (i.state != InstanceState::kDeleting && i.gpu_failure_at && !i.gpu_failed) {
          consider(*i.gpu_failure_at);
        }
        if (i.reclaim_at && i.state != InstanceState::kCreating) {
          consider(*i.reclaim_at - spot_notice);
          consider(*i.reclaim_at);
        }
        if (i.state == InstanceState::kDeleting) consider(i.gone_at);
      }
    }
    return next;
  }

  // After a change made from outside (instances launched, deleted, interrupted): Advance
  // looks again even if the clock has not moved.
  void Touch() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    quiet_until = absl::InfinitePast();
    ++touches;
  }

  // Moves every instance on to what it is at `now`, in order of the events. Every call to
  // the cloud starts here, many a loop: until the next due time nothing can change.
  void Advance(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (now < quiet_until) return;
    AdvanceAll(now);
    quiet_until = NextDue(now);
  }

  void AdvanceAll(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    for (GroupState& g : groups) {
      const bool spot = g.config.capacity_type == CapacityType::kSpot &&
                        g.config.simulation.spot_interruptions_per_hour > 0;
      for (bool changed = true; changed;) {
        changed = false;
        std::vector<absl::Time> reclaimed;
        size_t kept = 0;  // instances that stay are moved up in place: most stay, every call
        for (size_t k = 0; k < g.instances.size(); ++k) {
          SimInstance& i = g.instances[k];
          if (i.state == InstanceState::kCreating && !i.error && now >= i.running_at) {
            i.state = InstanceState::kRunning;
            i.ran = true;
            if (spot) i.reclaim_at = i.running_at + i.spot_lifetime;
            changed = true;
          }
          if (i.state == InstanceState::kRunning && !i.gpu_failed && i.gpu_failure_at &&
              now >= *i.gpu_failure_at) {
            i.gpu_failed = true;
            ++g.gpu_failures;
          }
          if (i.reclaim_at && !i.noticed && i.state != InstanceState::kCreating &&
              now >= *i.reclaim_at - spot_notice) {
            i.noticed = true;
            ++g.interruptions;
          }
          if (i.state == InstanceState::kRunning && i.reclaim_at && now >= *i.reclaim_at) {
            reclaimed.push_back(*i.reclaim_at);
            g.billed_gone += i.BilledUntil(*i.reclaim_at);
            changed = true;
            continue;
          }
          if (i.state == InstanceState::kDeleting && now >= i.gone_at) {
            g.billed_gone += i.BilledUntil(i.gone_at);
            changed = true;
            continue;
          }
          if (kept != k) g.instances[kept] = std::move(i);
          ++kept;
        }
        g.instances.erase(g.instances.begin() + static_cast<std::ptrdiff_t>(kept),
                          g.instances.end());
        for (absl::Time at : reclaimed) Launch(g, 1, at);  // the target did not change
      }
    }
  }

  GroupState* Find(absl::string_view id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    for (GroupState& g : groups) {
      if (g.config.spec.id == id) return &g;
    }
    return nullptr;
  }
};

class SimulatedCloud::Group : public NodeGroup {
 public:
  Group(SimulatedCloud& cloud, const NodeGroupConfig& config)
      : cloud_(cloud),
        id_(config.spec.id),
        min_(config.spec.min_size),
        max_(config.spec.max_size),
        debug_(absl::StrFormat("%s (%s, %d..%d nodes, %.2f/h)", config.spec.id,
                               config.capacity_type == CapacityType::kSpot ? "spot" : "on-demand",
                               config.spec.min_size, config.spec.max_size,
                               config.spec.price_per_hour)) {}

  const std::string& Id() const override { return id_; }
  int MinSize() const override { return min_; }
  int MaxSize() const override { return max_; }
  std::string Debug() const override { return debug_; }

  absl::StatusOr<int> TargetSize() override {
    return With([](GroupState& g, absl::Time) -> absl::StatusOr<int> { return g.TargetSize(); });
  }

  absl::Status IncreaseSize(int delta) override {
    return With([&](GroupState& g, absl::Time now) -> absl::Status {
      if (delta <= 0) return absl::InvalidArgumentError("size increase must be positive");
      if (!g.increase_error.ok()) return g.increase_error;
      if (g.TargetSize() + delta > max_) {
        return absl::InvalidArgumentError(absl::StrCat("size increase too large: desired ",
                                                       g.TargetSize() + delta, ", max ", max_));
      }
      cloud_.state_->Launch(g, delta, now);
      return absl::OkStatus();
    });
  }

  absl::Status DeleteNodes(const std::vector<NodeRef>& nodes) override {
    return With([&](GroupState& g, absl::Time now) -> absl::Status {
      std::vector<SimInstance*> doomed;
      for (const NodeRef& n : nodes) {
        auto it = std::find_if(g.instances.begin(), g.instances.end(),
                               [&](const SimInstance& i) { return i.id == n.provider_id; });
        if (it == g.instances.end()) {  // delete nothing when one name is wrong
          return absl::NotFoundError(
              absl::StrCat("node ", n.name, " (", n.provider_id, ") is not in node group ", id_));
        }
        if (it->state != InstanceState::kDeleting) doomed.push_back(&*it);
      }
      if (g.TargetSize() - static_cast<int>(doomed.size()) < min_) {
        return absl::FailedPreconditionError(
            absl::StrCat("node group ", id_, ": deleting ", doomed.size(),
                         " node(s) would go below min size ", min_));
      }
      for (SimInstance* i : doomed) {
        i->state = InstanceState::kDeleting;
        i->gone_at = now + cloud_.options_.deletion_delay;
      }
      cloud_.state_->Touch();
      return absl::OkStatus();
    });
  }

  absl::Status DecreaseTargetSize(int delta) override {
    return With([&](GroupState& g, absl::Time) -> absl::Status {
      if (delta >= 0) return absl::InvalidArgumentError("size decrease must be negative");
      std::vector<size_t> unregistered;  // newest first
      for (size_t i = g.instances.size(); i-- > 0;) {
        if (g.instances[i].state == InstanceState::kCreating) unregistered.push_back(i);
      }
      if (static_cast<size_t>(-delta) > unregistered.size()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "node group ", id_, ": attempt to delete existing nodes (target ", g.TargetSize(),
            ", delta ", delta, ", not yet running ", unregistered.size(), ")"));
      }
      unregistered.resize(static_cast<size_t>(-delta));
      std::sort(unregistered.rbegin(), unregistered.rend());
      for (size_t i : unregistered) g.instances.erase(g.instances.begin() + static_cast<long>(i));
      return absl::OkStatus();
    });
  }

  absl::StatusOr<std::vector<Instance>> Nodes() override {
    return With([](GroupState& g, absl::Time) -> absl::StatusOr<std::vector<Instance>> {
      std::vector<Instance> out;
      for (const SimInstance& i : g.instances) out.push_back({i.id, i.state, i.error});
      return out;
    });
  }

  absl::StatusOr<NodeTemplate> TemplateNode() override {
    return With([](GroupState& g, absl::Time) -> absl::StatusOr<NodeTemplate> {
      return g.config.spec.node_template;
    });
  }

  absl::StatusOr<AutoscalingOptions> GetOptions(const AutoscalingOptions& defaults) override {
    return With([&](GroupState& g, absl::Time) -> absl::StatusOr<AutoscalingOptions> {
      const NodeGroupOptions& o = g.config.options;
      AutoscalingOptions out = defaults;
      out.scale_down_utilization_threshold =
          o.scale_down_utilization_threshold.value_or(defaults.scale_down_utilization_threshold);
      out.scale_down_gpu_utilization_threshold = o.scale_down_gpu_utilization_threshold.value_or(
          defaults.scale_down_gpu_utilization_threshold);
      out.scale_down_unneeded_time =
          o.scale_down_unneeded_time.value_or(defaults.scale_down_unneeded_time);
      out.scale_down_unready_time =
          o.scale_down_unready_time.value_or(defaults.scale_down_unready_time);
      out.max_node_provision_time =
          o.max_node_provision_time.value_or(defaults.max_node_provision_time);
      out.zero_or_max_node_scaling =
          o.zero_or_max_node_scaling.value_or(defaults.zero_or_max_node_scaling);
      out.ignore_daemonsets_utilization =
          o.ignore_daemonsets_utilization.value_or(defaults.ignore_daemonsets_utilization);
      return out;
    });
  }

 private:
  // Runs `fn` on this group's state, brought up to the clock, after the injected trouble.
  template <typename Fn>
  auto With(Fn fn) -> decltype(fn(std::declval<GroupState&>(), absl::Time())) {
    if (absl::Status s = cloud_.BeginCall(); !s.ok()) return s;
    State& state = *cloud_.state_;
    absl::MutexLock lock(&state.mu);
    const absl::Time now = cloud_.clock_.Now();
    state.Advance(now);
    GroupState& g = *state.Find(id_);
    if (!g.call_error.ok()) return g.call_error;
    return fn(g, now);
  }

  SimulatedCloud& cloud_;
  const std::string id_;
  const int min_;
  const int max_;
  const std::string debug_;
};

SimulatedCloud::SimulatedCloud(std::vector<NodeGroupConfig> groups, Clock& clock,
                               SimulatedCloudOptions options)
    : clock_(clock), options_(std::move(options)), state_(std::make_unique<State>()) {
  absl::MutexLock lock(&state_->mu);
  state_->seed = options_.seed;
  state_->spot_notice = options_.spot_notice;
  for (NodeGroupConfig& config : groups) {
    groups_.push_back(std::make_shared<Group>(*this, config));
    GroupState g;
    g.config = std::move(config);
    g.gpu_failures_per_node_hour = g.config.simulation.gpu_failures_per_node_hour;
    const int existing = g.config.spec.target_size;
    state_->groups.push_back(std::move(g));
    // The nodes a group already has are up.
    GroupState& added = state_->groups.back();
    state_->Launch(added, existing, clock_.Now());
    for (SimInstance& i : added.instances) i.running_at = i.gpu_ready_at = clock_.Now();
  }
  state_->Advance(clock_.Now());
}

SimulatedCloud::~SimulatedCloud() = default;

absl::Status SimulatedCloud::BeginCall() {
  absl::Duration latency;
  {
    absl::MutexLock lock(&state_->mu);
    latency = state_->latency;
  }
  if (latency > absl::ZeroDuration()) clock_.SleepFor(latency);
  absl::MutexLock lock(&state_->mu);
  if (state_->fail_count > 0) {
    --state_->fail_count;
    return state_->fail_with;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> SimulatedCloud::NodeGroups() {
  if (absl::Status s = BeginCall(); !s.ok()) return s;
  return std::vector<std::shared_ptr<NodeGroup>>(groups_.begin(), groups_.end());
}

absl::StatusOr<std::shared_ptr<NodeGroup>> SimulatedCloud::NodeGroupForNode(const NodeRef& node) {
  if (absl::Status s = BeginCall(); !s.ok()) return s;
  absl::string_view id = node.provider_id;
  if (!absl::ConsumePrefix(&id, kScheme)) return std::shared_ptr<NodeGroup>();
  id = id.substr(0, id.find('/'));
  for (const auto& g : groups_) {
    if (g->Id() == id) return std::shared_ptr<NodeGroup>(g);
  }
  return std::shared_ptr<NodeGroup>();
}

absl::StatusOr<double> SimulatedCloud::NodePrice(const NodeRef& node, absl::Time start,
                                                 absl::Time end) {
  absl::StatusOr<std::shared_ptr<NodeGroup>> group = NodeGroupForNode(node);
  if (!group.ok()) return group.status();
  absl::MutexLock lock(&state_->mu);
  const GroupState* g = *group != nullptr ? state_->Find((*group)->Id()) : nullptr;
  if (g == nullptr && node.provider_id.empty()) {
    // A template node, as the autoscaler prices a group before it has nodes: named for its
    // group, or with its template's name.
    for (const GroupState& candidate : state_->groups) {
      if (candidate.config.spec.id == node.name ||
          (!node.name.empty() && candidate.config.spec.node_template.name == node.name)) {
        g = &candidate;
      }
    }
  }
  if (g == nullptr) {
    return absl::NotFoundError(absl::StrCat("node ", node.name, " is not in any node group"));
  }
  return g->config.spec.price_per_hour * absl::ToDoubleHours(end - start);
}

absl::StatusOr<double> SimulatedCloud::PodPrice(const PodSpec&, absl::Time, absl::Time) {
  if (absl::Status s = BeginCall(); !s.ok()) return s;
  return NotImplemented("pod pricing");
}

absl::StatusOr<std::string> SimulatedCloud::GpuLabel() {
  if (absl::Status s = BeginCall(); !s.ok()) return s;
  return options_.gpu_label;
}

absl::StatusOr<std::vector<std::string>> SimulatedCloud::AvailableGpuTypes() {
  if (absl::Status s = BeginCall(); !s.ok()) return s;
  absl::MutexLock lock(&state_->mu);
  std::set<std::string> types;
  for (const GroupState& g : state_->groups) {
    auto it = g.config.spec.node_template.labels.find(options_.gpu_label);
    if (it != g.config.spec.node_template.labels.end()) types.insert(it->second);
  }
  return std::vector<std::string>(types.begin(), types.end());
}

absl::Status SimulatedCloud::Refresh() {
  if (absl::Status s = BeginCall(); !s.ok()) return s;
  absl::MutexLock lock(&state_->mu);
  state_->Advance(clock_.Now());
  return absl::OkStatus();
}

absl::Status SimulatedCloud::Cleanup() { return BeginCall(); }

void SimulatedCloud::SetStockout(const std::string& group, bool out_of_capacity) {
  absl::MutexLock lock(&state_->mu);
  if (GroupState* g = state_->Find(group)) g->stockout = out_of_capacity;
}

void SimulatedCloud::FailIncreases(const std::string& group, absl::Status error) {
  absl::MutexLock lock(&state_->mu);
  if (GroupState* g = state_->Find(group)) g->increase_error = std::move(error);
}

void SimulatedCloud::FailGroupCalls(const std::string& group, absl::Status error) {
  absl::MutexLock lock(&state_->mu);
  if (GroupState* g = state_->Find(group)) g->call_error = std::move(error);
}

void SimulatedCloud::FailNextCalls(absl::Status error, int count) {
  absl::MutexLock lock(&state_->mu);
  state_->fail_with = std::move(error);
  state_->fail_count = count;
}

void SimulatedCloud::SetLatency(absl::Duration latency) {
  absl::MutexLock lock(&state_->mu);
  state_->latency = latency;
}

absl::Status SimulatedCloud::Interrupt(const std::string& provider_id) {
  return WithRunning(provider_id, [&](GroupState&, SimInstance& i, absl::Time now) {
    i.reclaim_at = now + options_.spot_notice;
  });
}

absl::Status SimulatedCloud::FailGpus(const std::string& provider_id) {
  return WithRunning(provider_id, [](GroupState& g, SimInstance& i, absl::Time now) {
    if (i.gpu_failed) return;
    i.gpu_failed = true;
    i.gpu_failure_at = now;
    ++g.gpu_failures;
  });
}

template <typename Change>
absl::Status SimulatedCloud::WithRunning(const std::string& provider_id, Change change) {
  absl::MutexLock lock(&state_->mu);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  for (GroupState& g : state_->groups) {
    for (SimInstance& i : g.instances) {
      if (i.id != provider_id) continue;
      if (i.state != InstanceState::kRunning) {
        return absl::FailedPreconditionError(
            absl::StrCat("instance ", provider_id, " is not running"));
      }
      change(g, i, now);
      state_->Touch();
      return absl::OkStatus();
    }
  }
  return absl::NotFoundError(absl::StrCat("no instance ", provider_id));
}

void SimulatedCloud::AddGpuFailureRate(double per_node_hour) {
  absl::MutexLock lock(&state_->mu);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  for (GroupState& g : state_->groups) {
    const ResourceList& allocatable = g.config.spec.node_template.allocatable;
    const bool gpus = !g.config.spec.node_template.resource_slices.empty() ||
                      std::any_of(allocatable.begin(), allocatable.end(),
                                  [](const auto& r) { return IsGpuResource(r.first); });
    if (!gpus || per_node_hour <= 0) continue;
    g.gpu_failures_per_node_hour += per_node_hour;
    for (size_t k = 0; k < g.instances.size(); ++k) {
      SimInstance& i = g.instances[k];
      if (i.gpu_failed || i.state == InstanceState::kDeleting) continue;
      const int index = IndexOf(i.id);
      i.gpu_failure_at = state_->GpuFailureAt(g, index, std::max(now, i.gpu_ready_at));
    }
  }
  state_->Touch();
}

std::vector<Machine> SimulatedCloud::Machines() {
  absl::MutexLock lock(&state_->mu);
  state_->Advance(clock_.Now());
  std::vector<Machine> out;
  for (const GroupState& g : state_->groups) {
    for (const SimInstance& i : g.instances) {
      if (i.state != InstanceState::kRunning) continue;
      out.push_back({g.config.spec.id, i.id, i.running_at, i.gpu_ready_at,
                     i.noticed ? i.reclaim_at : std::nullopt,
                     i.gpu_failed ? i.gpu_failure_at : std::nullopt});
    }
  }
  return out;
}

std::vector<SpotNotice> SimulatedCloud::SpotNotices() {
  std::vector<SpotNotice> notices;
  for (const Machine& m : Machines()) {
    if (m.reclaim_at) notices.push_back({m.group, m.provider_id, *m.reclaim_at});
  }
  return notices;
}

std::map<std::string, GroupBilling> SimulatedCloud::Billing() {
  absl::MutexLock lock(&state_->mu);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  std::map<std::string, GroupBilling> out;
  for (const GroupState& g : state_->groups) {
    GroupBilling& b = out[g.config.spec.id];
    b.node_time = g.billed_gone;
    b.interruptions = g.interruptions;
    b.gpu_failures = g.gpu_failures;
    for (const SimInstance& i : g.instances) {
      b.node_time += i.BilledUntil(now);
      b.running += i.ran;
    }
  }
  return out;
}

int64_t SimulatedCloud::ChangesFromOutside() {
  absl::MutexLock lock(&state_->mu);
  return state_->touches;
}

absl::Time SimulatedCloud::NextChange() {
  absl::MutexLock lock(&state_->mu);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  return state_->quiet_until;  // what Advance found next due
}

}  // namespace gpua
