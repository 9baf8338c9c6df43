#include "autoscaler/controller/increase/scale_up_actuator.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "autoscaler/controller/model/events.h"
#include "autoscaler/controller/planning/buffer_pods.h"
#include "estimator/gpu/gpu_resource.h"

namespace gpua {

std::string DescribePods(const std::vector<PodPtr>& pods) {
  constexpr size_t kNamed = 3;
  std::string out;
  for (size_t i = 0; i < pods.size() && i < kNamed; ++i) {
    const PodSpec& p = pods[i]->spec;
    const ResourceList gpus = GpuPart(p.requests);
    absl::StrAppend(&out, i == 0 ? "" : ", ", p.Key(),
                    gpus.empty() ? "" : absl::StrCat(" (", gpus.ToString(), ")"));
  }
  if (pods.size() > kNamed) absl::StrAppend(&out, " and ", pods.size() - kNamed, " more");
  return out;
}

std::vector<ScaleUpOutcome> ScaleUpActuator::Execute(const std::vector<ScaleUpRequest>& requests,
                                                     const PlanningInput& in,
                                                     const std::map<std::string, int>& added) {
  std::vector<GroupLayouts> layouts;
  layouts.reserve(requests.size());
  for (const ScaleUpRequest& r : requests) layouts.push_back({r.group, r.mig_layouts});
  in.kept.mig.KeepAhead(layouts);
  std::vector<ScaleUpOutcome> outcomes;
  for (const ScaleUpRequest& r : requests) {
    const GroupState* g = in.state.FindGroup(r.group);
    if (g == nullptr) continue;  // the planner only names groups it was given
    ScaleUpOutcome o;
    o.request = r;
    auto more = added.find(r.group);
    o.from = g->provider->target_size + (more == added.end() ? 0 : more->second);
    o.max = g->provider->max_size;
    o.status = in.groups.IncreaseSize(r.group, r.delta);
    if (o.status.ok()) {
      in.kept.mig.Expect(r.group, r.mig_layouts);
    } else if (r.replaces.empty()) {
      in.kept.backoff.Fail(r.group, "CloudProviderError", std::string(o.status.message()), in.now);
    }
    if (r.replaces.empty()) {
      Report(o);
    } else {
      ReportReplacement(o);
    }
    outcomes.push_back(std::move(o));
  }
  return outcomes;
}

void ScaleUpActuator::ReportReplacement(const ScaleUpOutcome& o) {
  const ScaleUpRequest& r = o.request;
  if (!o.status.ok()) {
    log_.Warning(absl::StrCat(r.asked_by, ": asking group ", r.group,
                              " for a node failed: ", o.status.message()));
    return;
  }
  const std::string message =
      absl::StrFormat("%s: setting group %s size to %d instead of %d (max: %d): %s", r.asked_by,
                      r.group, o.from + r.delta, o.from, o.max, r.replaces);
  log_.Info(message);
  (void)writer_.RecordEvent(StatusEvent(status_.namespace_name, status_.configmap_name, "Normal",
                                        event_reason::kScaledUpGroup, message));
}

void ScaleUpActuator::Report(const ScaleUpOutcome& o) {
  const ScaleUpRequest& r = o.request;
  const int to = o.from + r.delta;
  if (!o.status.ok()) {
    log_.Warning(absl::StrFormat("Scale-up of node group %s by %d failed, backing it off: %s",
                                 r.group, r.delta, o.status.message()));
    (void)writer_.RecordEvent(StatusEvent(
        status_.namespace_name, status_.configmap_name, "Warning",
        event_reason::kFailedToScaleUpGroup,
        absl::StrFormat("Scale-up failed for group %s: %s", r.group, o.status.message())));
    return;
  }
  log_.Info(
      absl::StrFormat("Scale-up: setting group %s size to %d instead of %d (max: %d) for "
                      "%d pod(s): %s",
                      r.group, to, o.from, o.max, r.pods.size(), DescribePods(r.pods)));
  (void)writer_.RecordEvent(StatusEvent(
      status_.namespace_name, status_.configmap_name, "Normal", event_reason::kScaledUpGroup,
      absl::StrFormat("Scale-up: setting group %s size to %d instead of %d (max: %d)", r.group, to,
                      o.from, o.max)));
  const std::string message = absl::StrFormat("pod triggered scale-up: [{%s %d->%d (max: %d)}]",
                                              r.group, o.from, to, o.max);
  for (const PodPtr& p : r.pods) {
    if (IsPlaceholder(*p)) continue;  // warm capacity: no such pod to tell
    (void)writer_.RecordEvent(
        PodEvent(p->spec, "Normal", event_reason::kTriggeredScaleUp, message));
  }
}

}  // namespace gpua
