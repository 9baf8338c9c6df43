#include "autoscaler/sim/simulation.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "autoscaler/controller/controller.h"
#include "autoscaler/controller/loop_schedule.h"
#include "autoscaler/sim/fault_soak.h"
#include "autoscaler/sim/lower_bound.h"
#include "autoscaler/sim/packing_bound.h"
#include "autoscaler/sim/sim_cluster.h"
#include "autoscaler/sim/soak_workload.h"
#include "autoscaler/sim/whole_gpus.h"
#include "base/status_macros.h"
#include "cloudproviders/simulated/simulated_cloud.h"
#include "estimator/dra/template_slices.h"
#include "estimator/gpu/gpu_inventory_reader.h"

namespace gpua::sim {
namespace {

constexpr size_t kWarningsKept = 5;
// Midnight UTC (2027-01-15): a trace's "0d7h" is 07:00 UTC, the clock warm-capacity
// schedules are written in.
const absl::Time kStart = absl::FromUnixSeconds(1'799'971'200);

int GpusPerNode(const NodeGroupConfig& g) {
  const NodeTemplate& t = g.spec.node_template;
  if (dra::GpusAreDevices(!t.resource_slices.empty(), t.allocatable)) {
    return dra::WholeGpuDevices(t.resource_slices);
  }
  auto gpus = ReadGpuInventory(t.labels, t.annotations, t.allocatable, g.spec.id);
  return gpus.ok() && gpus->has_value() ? (*gpus)->physical_count() : 0;
}

// The controller's log in a simulation: warnings counted, the first few kept, the rest of
// the chatter dropped.
class SimulationLog : public LogSink {
 public:
  // `echo`, when set, gets every line written, prefixed with the virtual time since start.
  SimulationLog(const Clock& clock, std::function<void(absl::string_view)> echo, int verbosity)
      : clock_(clock), echo_(std::move(echo)) {
    set_verbosity(verbosity);
  }
  int64_t warnings() const { return warnings_; }
  std::vector<std::string> first() const { return first_; }

 protected:
  // The controller writes from the simulation's one thread.
  void Write(LogSeverity severity, absl::string_view line) override {
    if (echo_) {
      const char letter = severity == LogSeverity::kInfo      ? 'I'
                          : severity == LogSeverity::kWarning ? 'W'
                                                              : 'E';
      echo_(absl::StrCat("[+",
                         absl::FormatDuration(absl::Trunc(clock_.Now() - kStart, absl::Seconds(1))),
                         "] ", std::string(1, letter), " ", line));
    }
    if (severity == LogSeverity::kInfo) return;
    ++warnings_;
    if (first_.size() < kWarningsKept) first_.emplace_back(line);
  }

 private:
  const Clock& clock_;
  std::function<void(absl::string_view)> echo_;
  int64_t warnings_ = 0;
  std::vector<std::string> first_;
};

// A stockout's start or end, in time order.
struct StockoutEdge {
  absl::Time at;
  std::string group;
  bool out;
};

std::vector<StockoutEdge> StockoutEdges(const Trace& trace) {
  std::vector<StockoutEdge> edges;
  for (const TraceStockout& s : trace.stockouts) {
    edges.push_back({kStart + s.at, s.group, true});
    edges.push_back({kStart + s.at + s.duration, s.group, false});
  }
  std::stable_sort(edges.begin(), edges.end(),
                   [](const StockoutEdge& a, const StockoutEdge& b) { return a.at < b.at; });
  return edges;
}

absl::Status CheckStockoutGroups(const Trace& trace, const std::vector<NodeGroupConfig>& groups) {
  for (const TraceStockout& s : trace.stockouts) {
    const bool known = std::any_of(groups.begin(), groups.end(),
                                   [&](const NodeGroupConfig& g) { return g.spec.id == s.group; });
    if (!known) {
      return absl::InvalidArgumentError(absl::StrCat("trace line ", s.line,
                                                     ": stockout: no node group \"", s.group,
                                                     "\" in the node-group file"));
    }
  }
  return absl::OkStatus();
}

// The world of one run, and its event loop.
class Run {
 public:
  Run(const Trace& trace, const SimulationOptions& options)
      : trace_(trace),
        options_(options),
        clock_(kStart),
        log_(clock_, options.log, options.verbosity),
        cloud_(options.groups, clock_, CloudOptions(options)),
        cluster_(options.groups, clock_, trace.dra),
        scheduler_(options.scoring),
        soak_(NewSoak(trace, options)),
        restarts_(options.restart_controller_at),
        schedule_(options.controller.scan_interval),
        stockouts_(StockoutEdges(trace)) {
    const absl::Duration until =
        options.until > absl::ZeroDuration() ? options.until : trace.end + absl::Hours(2);
    horizon_ = kStart + until;
    std::sort(restarts_.begin(), restarts_.end());
    controllers_.resize(soak_ != nullptr ? soak_->replicas() : 1);
  }

  SimulationResult Go();

 private:
  // Nobody reads a simulated cluster's status ConfigMap: building it each loop is waste.
  static ControllerOptions ControllerOptionsOf(const SimulationOptions& o) {
    ControllerOptions c = o.controller;
    c.status.write_configmap = false;
    // The node-group file's warm capacity is served as CapacityBuffers: read them.
    c.scale_up.capacity_buffers = true;
    return c;
  }
  static SimulatedCloudOptions CloudOptions(const SimulationOptions& o) {
    SimulatedCloudOptions c;
    c.seed = o.seed;
    return c;
  }
  std::unique_ptr<FaultSoak> NewSoak(const Trace& trace, const SimulationOptions& o) {
    if (!o.faults.has_value() || !o.faults->Any()) return nullptr;
    std::set<std::string> steady;
    for (const TraceStockout& s : trace.stockouts) steady.insert(s.group);
    return std::make_unique<FaultSoak>(
        FaultSoakSettings{*o.faults, o.seed, ControllerOptionsOf(o), o.groups, std::move(steady)},
        cluster_, cloud_, clock_);
  }
  std::unique_ptr<Controller> NewController() {
    if (soak_ != nullptr) {
      return std::make_unique<Controller>(
          ControllerSeams{soak_->source(), soak_->cloud(), soak_->writer(), clock_, log_},
          ControllerOptionsOf(options_));
    }
    return std::make_unique<Controller>(ControllerSeams{cluster_, cloud_, cluster_, clock_, log_},
                                        ControllerOptionsOf(options_));
  }
  absl::Time NextEvent();
  // Everything due now, in the order the world would do it; true when pods or nodes changed.
  bool ApplyDue();
  void RunLoop();
  // Tallies what one controller's loop did.
  void Record(const LoopReport& report, absl::Time now);
  void TakeSample();
  SimulationResult Result();

  const Trace& trace_;
  const SimulationOptions& options_;
  ManualClock clock_;
  SimulationLog log_;
  SimulatedCloud cloud_;
  SimCluster cluster_;
  SimScheduler scheduler_;
  std::unique_ptr<FaultSoak> soak_;  // null unless faults are injected
  // One per replica: two share a Lease in a soak with leader changes. Null while it does not
  // lead (a process that starts anew when it does).
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::vector<absl::Duration> restarts_;  // by time
  size_t next_restart_ = 0;
  LoopSchedule schedule_;
  std::vector<StockoutEdge> stockouts_;
  size_t next_arrival_ = 0;
  int64_t arrived_ = 0;  // pods of the arrivals applied
  size_t next_stockout_ = 0;
  absl::Time next_sample_ = kStart;
  // When the cloud's machines next change by themselves; the past: look now.
  absl::Time cloud_next_ = absl::InfinitePast();
  int64_t cloud_changes_ = 0;  // the cloud's ChangesFromOutside() when the nodes last followed
  absl::Time horizon_;
  int64_t loops_ = 0;
  std::map<std::string, int> scale_ups_, scale_downs_, repeat_scale_ups_, replacements_;
  std::map<std::string, int> repairs_;
  // Idle GPUs as the last loop filed them, held until the next; GPU-hours so far, by group.
  std::map<std::string, IdleGpuCount> idle_now_, idle_gpu_hours_;
  absl::Time idle_since_ = kStart;
  void AccrueIdle(absl::Time now);
  std::vector<Sample> samples_;
};

absl::Time Run::NextEvent() {
  absl::Time next =
      std::min({horizon_, next_sample_, schedule_.Next(), cluster_.NextPodEvent(), cloud_next_});
  if (next_arrival_ < trace_.arrivals.size()) {
    next = std::min(next, kStart + trace_.arrivals[next_arrival_].at);
  }
  if (next_stockout_ < stockouts_.size()) next = std::min(next, stockouts_[next_stockout_].at);
  if (soak_ != nullptr) next = std::min(next, soak_->NextEvent());
  return next;
}

bool Run::ApplyDue() {
  const absl::Time now = clock_.Now();
  bool changed = false;
  for (; next_stockout_ < stockouts_.size() && stockouts_[next_stockout_].at <= now;
       ++next_stockout_) {
    cloud_.SetStockout(stockouts_[next_stockout_].group, stockouts_[next_stockout_].out);
    cloud_next_ = absl::InfinitePast();
  }
  for (;
       next_arrival_ < trace_.arrivals.size() && kStart + trace_.arrivals[next_arrival_].at <= now;
       ++next_arrival_) {
    cluster_.Arrive(trace_.arrivals[next_arrival_]);
    arrived_ += trace_.arrivals[next_arrival_].count;
    changed = true;
  }
  if (soak_ != nullptr && soak_->ApplyDue(now)) cloud_next_ = absl::InfinitePast();
  changed = cluster_.EndDuePods() || changed;
  // The machines change only at the cloud's next change or when the controller acted: the
  // cluster's nodes follow then, not at every pod's arrival.
  if (now >= cloud_next_) {
    std::vector<Machine> machines = cloud_.Machines();
    if (soak_ != nullptr) machines = soak_->Filter(std::move(machines));
    changed = cluster_.SyncNodes(machines) || changed;
    // A lingering Node object goes by itself too.
    cloud_next_ = std::min(cloud_.NextChange(), cluster_.NextLingerEnd());
  }
  return changed;
}

void Run::RunLoop() {
  const absl::Time now = clock_.Now();
  schedule_.LoopStarted(now);
  bool restart = false;
  for (; next_restart_ < restarts_.size() && kStart + restarts_[next_restart_] <= now;
       ++next_restart_) {
    restart = true;
  }
  const std::vector<FaultSoak::Turn> turns =
      soak_ != nullptr ? soak_->Turns(now) : std::vector<FaultSoak::Turn>{{0, false}};
  std::vector<bool> acting(controllers_.size(), false);
  for (const FaultSoak::Turn& turn : turns) {
    acting[turn.replica] = true;
    std::unique_ptr<Controller>& controller = controllers_[turn.replica];
    if (controller == nullptr || turn.new_process || restart) controller = NewController();
    const LoopReport report = controller->RunOnce(now);
    Record(report, now);
    // A process that died in its loop is gone; its replica's next turn starts a new one.
    if (soak_ != nullptr && soak_->AfterLoop(report, arrived_)) controller.reset();
  }
  for (size_t r = 0; r < controllers_.size(); ++r) {
    if (!acting[r]) controllers_[r].reset();  // it stopped leading: it exits
  }
}

void Run::Record(const LoopReport& report, absl::Time now) {
  ++loops_;
  AccrueIdle(now);
  idle_now_ = report.idle_gpus;
  // When it asked for or deleted machines, the nodes follow at once.
  if (const int64_t changes = cloud_.ChangesFromOutside(); changes != cloud_changes_) {
    cloud_changes_ = changes;
    cloud_next_ = absl::InfinitePast();
  }
  schedule_.WakeAt(report.next_pod_eligible);
  schedule_.WakeAt(report.next_removal_due);
  schedule_.WakeAt(report.next_repair_due);
  for (const auto& [group, n] : report.repairs.by_group) repairs_[group] += n;
  for (const std::string& group : report.repairs.replacements) ++scale_ups_[group];
  for (const ScaleUpOutcome& o : report.scale_ups) {
    if (o.status.ok()) scale_ups_[o.request.group] += o.request.delta;
    if (o.status.ok() && o.repeat) ++repeat_scale_ups_[o.request.group];
  }
  for (const std::string& group : report.removals.replacements) {
    ++scale_ups_[group];
    ++replacements_[group];
  }
  for (const RemovedNode& removed : report.removals.deleted) {
    if (removed.reason == kPreemptedReason || removed.reason == kRepairReason) continue;
    auto it = report.state.node_index.find(removed.node);
    if (it == report.state.node_index.end()) continue;
    const int group = report.state.nodes[it->second].group;
    if (group >= 0) ++scale_downs_[report.state.groups[group].id()];
  }
}

void Run::AccrueIdle(absl::Time now) {
  const double hours = absl::ToDoubleHours(now - idle_since_);
  idle_since_ = now;
  for (const auto& [group, idle] : idle_now_) {
    IdleGpuCount& sum = idle_gpu_hours_[group];
    for (size_t c = 0; c < kIdleCauseCount; ++c) {
      sum.Add(static_cast<IdleCause>(c), idle.by_cause[c] * hours);
    }
  }
}

// The loops' filing made to sum to the idle GPU-hours billing counted: what no loop saw is
// nodes starting; a filing over the count (a loop's view between two changes) is scaled down.
IdleGpuCount ReconcileIdle(IdleGpuCount filed, double gpu_hours_idle) {
  if (filed.total <= gpu_hours_idle) {
    filed.Add(IdleCause::kStarting, gpu_hours_idle - filed.total);
    return filed;
  }
  IdleGpuCount scaled;
  for (size_t c = 0; c < kIdleCauseCount; ++c) {
    scaled.Add(static_cast<IdleCause>(c), filed.by_cause[c] * gpu_hours_idle / filed.total);
  }
  return scaled;
}

void Run::TakeSample() {
  Sample s;
  s.at = clock_.Now() - kStart;
  const std::map<std::string, GroupBilling> billing = cloud_.Billing();
  for (const NodeGroupConfig& g : options_.groups) {
    const std::string& id = g.spec.id;
    s.nodes[id] = cluster_.NodesOf(id);
    const int gpus_per_node = GpusPerNode(g);
    if (gpus_per_node == 0) continue;
    auto used = cluster_.gpus_in_use().find(id);
    const double in_use = used == cluster_.gpus_in_use().end() ? 0 : used->second;
    s.idle_gpus[id] = std::max(0.0, billing.at(id).running * gpus_per_node - in_use);
  }
  samples_.push_back(std::move(s));
}

SimulationResult Run::Go() {
  cluster_.SyncNodes(cloud_.Machines());
  int64_t steps = 0;
  for (;;) {
    const absl::Time next = NextEvent();
    if (next > clock_.Now()) clock_.Advance(next - clock_.Now());
    const absl::Time now = clock_.Now();
    if (ApplyDue() && scheduler_.Run(cluster_) > 0) schedule_.PodArrived(now);
    if (now >= schedule_.Next()) {
      RunLoop();
      // What the loop did (nodes asked for, removed, tainted) shows at once.
      if (ApplyDue() && scheduler_.Run(cluster_) > 0) schedule_.PodArrived(now);
    }
    if (now >= next_sample_) {
      TakeSample();
      next_sample_ += options_.sample_every;
    }
    if (options_.progress && ++steps % 4096 == 0) {
      options_.progress(absl::FDivDuration(now - kStart, horizon_ - kStart));
    }
    if (now >= horizon_) break;
  }
  cluster_.Close();
  AccrueIdle(clock_.Now());
  return Result();
}

SimulationResult Run::Result() {
  SimulationResult r;
  const std::map<std::string, GroupBilling> billing = cloud_.Billing();
  // A run cut short by --until is measured against the same window of the trace.
  const Trace bounded =
      options_.until > absl::ZeroDuration() ? TraceUntil(trace_, options_.until) : Trace();
  const Trace& measured = options_.until > absl::ZeroDuration() ? bounded : trace_;
  const LowerBound bound = ComputeLowerBound(measured, options_.groups);
  const PackingBound packing = ComputePackingBound(measured, options_.groups);
  const ClusterAccounts& accounts = cluster_.accounts();
  const auto figure = [](const std::map<std::string, std::vector<float>>& by,
                         const std::string& id) {
    auto it = by.find(id);
    return it == by.end() ? Percentiles() : PercentilesOf(it->second);
  };
  for (const NodeGroupConfig& g : options_.groups) {
    const std::string& id = g.spec.id;
    Figures f;
    const GroupBilling& b = billing.at(id);
    const int gpus_per_node = GpusPerNode(g);
    f.node_hours = absl::ToDoubleHours(b.node_time);
    f.cost_usd = f.node_hours * g.spec.price_per_hour;
    f.gpu_hours_billed = f.node_hours * gpus_per_node;
    auto used = accounts.gpu_time_used.find(id);
    f.gpu_hours_used = used == accounts.gpu_time_used.end() ? 0 : absl::ToDoubleHours(used->second);
    f.gpu_hours_idle = std::max(0.0, f.gpu_hours_billed - f.gpu_hours_used);
    f.idle_cost_usd =
        gpus_per_node > 0 ? f.gpu_hours_idle * g.spec.price_per_hour / gpus_per_node : 0;
    f.share_spread_node_hours = absl::ToDoubleHours(cluster_.ShareSpreadTime(id));
    f.idle_by_cause = ReconcileIdle(idle_gpu_hours_[id], f.gpu_hours_idle);
    auto lb = bound.cost_by_group.find(id);
    f.lower_bound_cost_usd = lb == bound.cost_by_group.end() ? 0 : lb->second;
    auto pb = packing.cost_by_group.find(id);
    f.packing_bound_cost_usd = pb == packing.cost_by_group.end() ? 0 : pb->second;
    f.scale_ups = scale_ups_[id];
    f.repeat_scale_ups = repeat_scale_ups_[id];
    f.replacements = replacements_[id];
    f.scale_downs = scale_downs_[id];
    f.preemptions = b.interruptions;
    f.gpu_failures = b.gpu_failures;
    f.repairs = repairs_[id];
    auto broken = accounts.broken_node_time.find(id);
    f.broken_node_hours =
        broken == accounts.broken_node_time.end() ? 0 : absl::ToDoubleHours(broken->second);
    f.broken_cost_usd = f.broken_node_hours * g.spec.price_per_hour;
    f.pending = figure(accounts.pending_seconds_by_group, id);
    f.gpu_pending = figure(accounts.gpu_pending_seconds_by_group, id);
    Figures& t = r.total;
    t.node_hours += f.node_hours;
    t.cost_usd += f.cost_usd;
    t.gpu_hours_billed += f.gpu_hours_billed;
    t.gpu_hours_used += f.gpu_hours_used;
    t.gpu_hours_idle += f.gpu_hours_idle;
    t.idle_cost_usd += f.idle_cost_usd;
    t.share_spread_node_hours += f.share_spread_node_hours;
    for (size_t c = 0; c < kIdleCauseCount; ++c) {
      t.idle_by_cause.Add(static_cast<IdleCause>(c), f.idle_by_cause.by_cause[c]);
    }
    t.scale_ups += f.scale_ups;
    t.repeat_scale_ups += f.repeat_scale_ups;
    t.replacements += f.replacements;
    t.scale_downs += f.scale_downs;
    t.preemptions += f.preemptions;
    t.gpu_failures += f.gpu_failures;
    t.repairs += f.repairs;
    t.broken_node_hours += f.broken_node_hours;
    t.broken_cost_usd += f.broken_cost_usd;
    r.groups.push_back({id, f});
  }
  r.total.lower_bound_cost_usd = bound.cost_usd;
  r.total.packing_bound_cost_usd = packing.cost_usd;
  r.total.pending = PercentilesOf(accounts.pending_seconds);
  r.total.gpu_pending = PercentilesOf(accounts.gpu_pending_seconds);
  r.samples = std::move(samples_);
  r.simulated = clock_.Now() - kStart;
  r.start = kStart;
  r.pods = trace_.pods();
  for (size_t i = 0; i < next_arrival_; ++i) r.pods_arrived += trace_.arrivals[i].count;
  r.pods_finished = accounts.pods_finished;
  r.pods_restarted = accounts.pods_restarted;
  r.pods_without_group = bound.pods_without_group;
  r.time_to_repair = PercentilesOf(accounts.broken_seconds);
  r.broken_at_end = accounts.broken_at_end;
  r.pods_placed_on_broken = accounts.pods_bound_to_broken;
  r.loops = loops_;
  if (soak_ != nullptr) r.soak = soak_->Result();
  r.controller_warnings = log_.warnings();
  r.first_warnings = log_.first();
  return r;
}

}  // namespace

absl::StatusOr<SimulationResult> Simulate(const Trace& trace, const SimulationOptions& options) {
  if (options.groups.empty()) return absl::InvalidArgumentError("no node groups to simulate");
  GPUA_RETURN_IF_ERROR(CheckStockoutGroups(trace, options.groups));
  if (options.whole_gpus) {
    SimulationOptions whole = options;
    whole.whole_gpus = false;
    GPUA_ASSIGN_OR_RETURN(whole.groups, WithWholeGpus(options.groups));
    return Simulate(WithWholeGpus(trace, options.groups), whole);
  }
  if (options.faults.has_value() && options.faults->workload.Any()) {
    const Trace soaked = WithSoakWorkload(trace, options.faults->workload, options.seed);
    return std::make_unique<Run>(soaked, options)->Go();
  }
  return std::make_unique<Run>(trace, options)->Go();
}

Percentiles PercentilesOf(std::vector<float> seconds) {
  Percentiles p;
  p.count = static_cast<int64_t>(seconds.size());
  if (seconds.empty()) return p;
  std::sort(seconds.begin(), seconds.end());
  // Nearest rank: the smallest value with at least q of the values at or below it.
  const auto rank = [&](double q) {
    const size_t r = static_cast<size_t>(std::ceil(q * static_cast<double>(seconds.size())));
    return static_cast<double>(seconds[std::min(seconds.size(), std::max<size_t>(r, 1)) - 1]);
  };
  p.p50 = rank(0.50);
  p.p95 = rank(0.95);
  p.p99 = rank(0.99);
  p.max = seconds.back();
  return p;
}

}  // namespace gpua::sim
