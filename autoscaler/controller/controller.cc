#include "autoscaler/controller/controller.h"

#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "autoscaler/controller/metrics/idle_gpus.h"
#include "autoscaler/controller/model/events.h"
#include "autoscaler/controller/model/group_resizer.h"
#include "autoscaler/controller/model/pending_pods.h"
#include "autoscaler/controller/scaleup/priority_config.h"
#include "autoscaler/controller/spot/homeless_pods.h"
#include "estimator/gpu/gpu_resource.h"

namespace gpua {

namespace {

// The repair plan's nodes as the status shows them, with what was done about each.
std::vector<UnhealthyNodeStatus> UnhealthyForStatus(const LoopReport& report) {
  const ClusterState& state = report.state;
  const RepairPlan& plan = report.repair_plan;
  absl::flat_hash_map<int, std::string> state_of;
  for (int i : plan.cordon) state_of[i] = "tainted";
  for (const RepairWait& w : plan.waiting) state_of[w.why.node] = "waiting: " + w.reason;
  for (const RepairStart& r : plan.start) state_of[r.node] = "repairing";
  std::vector<UnhealthyNodeStatus> out;
  for (const UnhealthyNode& u : plan.unhealthy) {
    const NodeStatus& s = state.nodes[u.node];
    auto it = state_of.find(u.node);
    std::string what =
        it != state_of.end() ? it->second
        : u.Due(state.now)
            ? "tainted"
            : absl::StrCat("tolerated until ",
                           absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", u.due(), absl::UTCTimeZone()));
    out.push_back({s.node->node.name, state.groups[s.group].id(), u.policy.Reason(), u.detail,
                   u.since, std::move(what)});
  }
  return out;
}

}  // namespace

std::vector<std::string> ConfigMapsRead(const ControllerOptions& options) {
  // The status ConfigMap keeps the MIG layouts on their way even when no status is written.
  return {kPriorityExpanderConfigMap, options.status.configmap_name};
}

Controller::Controller(const ControllerSeams& seams, ControllerOptions options)
    : source_(seams.source),
      writer_(seams.writer),
      clock_(seams.clock),
      log_(seams.log),
      metrics_(seams.metrics),
      options_(std::move(options)),
      devices_(log_, options_.dynamic_resource_allocation),
      kept_(writer_, options_, log_),
      provider_reader_(seams.provider, options_, log_),
      state_builder_(options_.cluster_state, options_.dynamic_resource_allocation),
      stale_cleaner_(writer_, log_, options_.status),
      health_judge_(options_.repair.policies),
      repairer_(writer_, log_, options_.status),
      health_(writer_, options_.status, log_),
      scale_up_(writer_, log_, options_),
      scale_down_(writer_, log_, options_),
      status_(writer_, options_.status, log_) {}

template <typename Step>
void Controller::Timed(LoopReport& report, const char* function, Step step) {
  const absl::Time start = clock_.Now();
  step();
  report.durations[function] += clock_.Now() - start;
}

LoopReport Controller::RunOnce(absl::Time now) {
  LoopReport report;
  report.start = now;
  const absl::Time began = clock_.Now();
  if (!source_.Synced()) {
    report.skipped = "the cluster's objects are not all listed yet";
  } else {
    const std::shared_ptr<const ClusterView> taken = devices_.Resolve(source_.View());
    const ClusterView& view = *taken;
    kept_.mig.Recall(view);
    kept_.nodes.BeginLoop(view);
    Observe(view, report, now);
    if (report.skipped.empty()) Act(view, report, now);
    kept_.mig.Keep();
    status_.Write(report.state, report.scale_down, now, UnhealthyForStatus(report));
  }
  report.durations["main"] = clock_.Now() - began;
  report.end = now + (clock_.Now() - began);
  if (metrics_ != nullptr) metrics_->Record(report, options_);
  return report;
}

void Controller::Observe(const ClusterView& view, LoopReport& report, absl::Time now) {
  Timed(report, "cloudProviderRefresh", [&] {
    report.provider = std::make_unique<ProviderSnapshot>(
        provider_reader_.Read(view.nodes, now, view.node_devices));
  });
  if (!report.provider->error.ok()) {
    report.skipped = absl::StrCat("the cloud provider failed: ", report.provider->error.message());
    log_.Warning(report.skipped);
    if (metrics_ != nullptr) metrics_->CountError("cloudProviderError");
  }
  Timed(report, "updateClusterState", [&] {
    report.state = state_builder_.Build(view, *report.provider, kept_.backoff, now);
    kept_.mig.Assign(report.state);
    if (!report.provider->error.ok()) return;
    // Broken nodes whose repair begins count as being deleted before anything plans.
    report.repair_plan =
        PlanRepairs(report.state, view, health_judge_.Judge(report.state, now), options_.repair);
    MarkRepaired(report.repair_plan, report.state);
    for (const UnhealthyNode& u : report.repair_plan.unhealthy) {
      if (!u.Due(now)) report.next_repair_due = std::min(report.next_repair_due, u.due());
    }
  });
}

void Controller::Act(const ClusterView& view, LoopReport& report, absl::Time now) {
  const ClusterState& state = report.state;
  // The actuators change the groups this loop read, and only through this.
  SnapshotGroupResizer groups(*report.provider);
  const PlanningInput in{view, state, groups, kept_, now};
  report.stale = stale_cleaner_.Clean(state, groups);
  const std::vector<int> repairing = repairer_.Act(report.repair_plan, in, report.repairs);
  kept_.mig.WriteLabels(state);
  const PendingPods pending = SelectPendingPods(view, options_.scale_up, now);
  report.unschedulable = static_cast<int>(view.unschedulable.size());
  report.eligible = static_cast<int>(pending.eligible.size());
  report.next_pod_eligible = pending.next_eligible;
  for (const PodPtr& p : pending.eligible) {
    report.pending_gpu_pods += !GpuPart(p->spec.requests).empty();
  }
  const BufferPods warm = WarmCapacity(view, now);
  report.buffer_pods = static_cast<int>(warm.pods.size());
  report.next_pod_eligible = std::min(report.next_pod_eligible, warm.next_change);
  Timed(report, "scaleDownNodeDeletion", [&] {
    scale_down_.ContinueRemovals(in, report.removals);
    scale_down_.StartRepairs(repairing, in, report.removals);
  });
  scale_up_.ReportInvalidPods(pending.invalid, now);
  health_.Report(state);
  Timed(report, "scaleUp", [&] {
    const std::vector<PodPtr> homeless =
        state.healthy ? HomelessPods(view, state) : std::vector<PodPtr>{};
    std::map<std::string, int> replacements;
    for (const std::string& g : report.repairs.replacements) ++replacements[g];
    ScaleUpResult up = scale_up_.Run(in, {pending, homeless, warm.pods, std::move(replacements)});
    report.fit_existing = up.fit_existing;
    report.without_scale_up = up.without_scale_up;
    report.scale_ups = std::move(up.outcomes);
  });
  ScaleDownResult down;
  Timed(report, "scaleDown", [&] {
    down = scale_down_.Run(in, {report.fit_existing, report.nodes_added(), warm.pods},
                           report.removals);
  });
  report.scale_down = std::move(down.status);
  report.scale_down_cooldown = std::move(down.cooldown);
  report.unremovable = std::move(down.unremovable);
  report.unneeded = down.unneeded;
  report.node_verdicts = std::move(down.node_verdicts);
  report.next_removal_due = down.next_due;
  report.idle_gpus = IdleGpus(view, state, down.gpu_use, down.idle_cause, kept_.nodes);
  kept_.nodes.ForgetUnused();
}

BufferPods Controller::WarmCapacity(const ClusterView& view, absl::Time now) {
  if (!options_.scale_up.capacity_buffers) return {};
  BufferPods warm = buffers_.Resolve(view, now);
  absl::flat_hash_set<std::string> with_problems;
  for (const BufferPods::Problem& p : warm.problems) {
    const std::string key = p.buffer->Key();
    with_problems.insert(key);
    if (!buffer_events_.ShouldSay(key, p.message, now)) continue;
    log_.Warning(p.message);
    (void)writer_.RecordEvent(
        {{"CapacityBuffer", p.buffer->namespace_name, p.buffer->name, p.buffer->uid},
         "Warning",
         event_reason::kFailedToProvisionBuffer,
         p.message});
  }
  buffer_events_.Keep(with_problems);
  return warm;
}

}  // namespace gpua
