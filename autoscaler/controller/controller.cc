#include "autoscaler/controller/controller.h"

#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "autoscaler/controller/events.h"
#include "autoscaler/controller/group_resizer.h"
#include "autoscaler/controller/metrics/idle_gpus.h"
#include "autoscaler/controller/pending_pods.h"
#include "autoscaler/controller/scaleup/priority_config.h"
#include "autoscaler/controller/spot/homeless_pods.h"
#include "estimator/gpu/gpu_resource.h"

namespace gpua {

std::vector<std::string> ConfigMapsRead(const ControllerOptions& options) {
  // The status ConfigMap keeps the MIG layouts on their way even when no status is written.
  return {kPriorityExpanderConfigMap, options.status.configmap_name};
}

Controller::Controller(ClusterSource& source, CloudProvider& provider, KubeWriter& writer,
                       Clock& clock, LogSink& log, AutoscalerMetrics* metrics,
                       ControllerOptions options)
    : source_(source),
      writer_(writer),
      clock_(clock),
      log_(log),
      metrics_(metrics),
      options_(std::move(options)),
      backoff_(options_.cluster_state.backoff),
      provider_reader_(provider, options_, log),
      state_builder_(options_.cluster_state),
      mig_store_(writer, options_.status, log),
      stale_cleaner_(writer, log, options_.status),
      mig_layouts_(writer, log),
      health_(writer, options_.status, log),
      scale_up_(writer, backoff_, mig_store_, log, options_),
      scale_down_(writer, mig_store_, log, options_),
      status_(writer, options_.status, log) {}

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
    const std::shared_ptr<const ClusterView> taken = source_.View();
    const ClusterView& view = *taken;
    const MigLayoutBook recalled = mig_store_.Recall(view);
    for (const auto& [group, layouts] : recalled.groups()) mig_book_.Expect(group, layouts);
    node_cache_.BeginLoop(view);
    Observe(view, report, now);
    if (report.skipped.empty()) Act(view, report, now);
    (void)mig_store_.Keep(mig_book_);  // a failure is logged, and tried again next loop
    status_.Write(report.state, report.scale_down, now);
  }
  report.durations["main"] = clock_.Now() - began;
  report.end = now + (clock_.Now() - began);
  if (metrics_ != nullptr) metrics_->Record(report, options_);
  return report;
}

void Controller::Observe(const ClusterView& view, LoopReport& report, absl::Time now) {
  Timed(report, "cloudProviderRefresh", [&] {
    report.provider = std::make_unique<ProviderSnapshot>(provider_reader_.Read(view.nodes, now));
  });
  if (!report.provider->error.ok()) {
    report.skipped = absl::StrCat("the cloud provider failed: ", report.provider->error.message());
    log_.Warning(report.skipped);
    if (metrics_ != nullptr) metrics_->CountError("cloudProviderError");
  }
  Timed(report, "updateClusterState", [&] {
    report.state = state_builder_.Build(view, *report.provider, backoff_, now, mig_book_);
  });
}

void Controller::Act(const ClusterView& view, LoopReport& report, absl::Time now) {
  const ClusterState& state = report.state;
  // The actuators change the groups this loop read, and only through this.
  SnapshotGroupResizer groups(*report.provider);
  report.stale = stale_cleaner_.Clean(state, groups);
  mig_layouts_.Write(state, mig_book_);
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
  Timed(report, "scaleDownNodeDeletion",
        [&] { scale_down_.ContinueRemovals(view, state, groups, now, report.removals); });
  scale_up_.ReportInvalidPods(pending.invalid, now);
  health_.Report(state);
  Timed(report, "scaleUp", [&] {
    const std::vector<PodPtr> homeless =
        state.healthy ? HomelessPods(view, state) : std::vector<PodPtr>{};
    ScaleUpResult up = scale_up_.Run(view, state, groups, pending, homeless, warm.pods,
                                     state.healthy, mig_book_, node_cache_, now);
    report.fit_existing = up.fit_existing;
    report.without_scale_up = up.without_scale_up;
    report.scale_ups = std::move(up.outcomes);
  });
  ScaleDownResult down;
  Timed(report, "scaleDown", [&] {
    down = scale_down_.Run(view, state, groups, report.fit_existing, report.nodes_added(),
                           warm.pods, mig_book_, node_cache_, now, report.removals);
  });
  report.scale_down = std::move(down.status);
  report.scale_down_cooldown = std::move(down.cooldown);
  report.unremovable = std::move(down.unremovable);
  report.unneeded = down.unneeded;
  report.node_verdicts = std::move(down.node_verdicts);
  report.next_removal_due = down.next_due;
  report.idle_gpus = IdleGpus(view, state, down.gpu_use, down.idle_cause, node_cache_);
  node_cache_.ForgetUnused();
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
