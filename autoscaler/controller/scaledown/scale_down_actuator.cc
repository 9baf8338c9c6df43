#include "autoscaler/controller/scaledown/scale_down_actuator.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "autoscaler/controller/model/events.h"
#include "autoscaler/controller/planning/drain_facts.h"

namespace gpua {
namespace {

std::string ReasonOf(const NodeObject& n) {
  auto it = n.annotations.find(kRemovalReasonAnnotation);
  return it == n.annotations.end() ? "underutilized" : std::string(it->second);
}

// The pods still to see off: not DaemonSet or mirror pods, not finished.
std::vector<PodPtr> Remaining(const ClusterView& view, const std::string& node) {
  std::vector<PodPtr> out;
  for (const PodPtr& p : view.PodsOn(node)) {
    if (p->daemonset() || p->mirror || p->finished()) continue;
    out.push_back(p);
  }
  return out;
}

const Instance* InstanceOf(const NodeStatus& s, const ClusterState& state) {
  for (const Instance& i : state.groups[s.group].provider->instances) {
    if (i.id == s.node->provider_id) return &i;
  }
  return nullptr;
}

}  // namespace

absl::Duration ScaleDownActuator::MaxGrace(absl::string_view reason) const {
  if (reason == kPreemptedReason) return options_.preemption_drain_time;
  if (reason == kRepairReason) return options_.repair_drain_time;
  return options_.max_graceful_termination;
}

void ScaleDownActuator::Mark(const ScaleDownPlan& plan, const ClusterState& state) {
  const std::string now = absl::StrCat(absl::ToUnixSeconds(state.now));
  for (int i : plan.mark) {
    const std::string& name = state.nodes[i].node->node.name;
    const absl::Status s =
        writer_.AddTaint(name, {kDeletionCandidateTaint, now, TaintEffect::kPreferNoSchedule});
    if (!s.ok()) {
      log_.Warning(absl::StrCat("Marking node ", name, " unneeded failed: ", s.message()));
    }
  }
  for (int i : plan.unmark) {
    const std::string& name = state.nodes[i].node->node.name;
    const absl::Status s = writer_.RemoveTaint(name, kDeletionCandidateTaint);
    if (!s.ok()) log_.Warning(absl::StrCat("Unmarking node ", name, " failed: ", s.message()));
  }
}

bool ScaleDownActuator::Begin(const NodeStatus& s, const std::string& reason, absl::Time now) {
  const std::string& name = s.node->node.name;
  // The intent first: a restart finds it and finishes or undoes what was begun.
  absl::Status st = writer_.AddTaint(
      name, {kToBeDeletedTaint, absl::StrCat(absl::ToUnixSeconds(now)), TaintEffect::kNoSchedule});
  if (st.ok()) st = writer_.Annotate(name, kRemovalReasonAnnotation, reason);
  if (!st.ok()) {
    log_.Warning(absl::StrCat("Starting the removal of node ", name, " failed: ", st.message()));
    return false;
  }
  (void)writer_.RecordEvent(
      NodeEvent(name, "Normal", event_reason::kScaleDown,
                absl::StrCat("marked the node as toBeDeleted/unschedulable (", reason, ")")));
  return true;
}

bool ScaleDownActuator::Drain(const NodeStatus& s, const ClusterView& view,
                              absl::Duration max_grace, ScaleDownReport& report) {
  const std::vector<PodPtr> pods = Remaining(view, s.node->node.name);
  for (const PodPtr& p : pods) {
    if (p->terminating) continue;  // on its way out
    const absl::Duration grace =
        std::min(p->termination_grace.value_or(absl::Seconds(30)), max_grace);
    absl::StatusOr<EvictionResult> r = writer_.Evict(p->spec.namespace_name, p->spec.name, grace);
    if (!r.ok()) {
      ++report.evictions["failed"];
      log_.Warning(absl::StrCat("Evicting pod ", p->spec.Key(), " failed: ", r.status().message()));
    } else if (*r == EvictionResult::kBlockedByBudget) {
      ++report.evictions["blocked"];  // asked again next loop
    } else if (*r == EvictionResult::kEvicted) {
      ++report.evictions["evicted"];
      (void)writer_.RecordEvent(PodEvent(
          p->spec, "Normal", event_reason::kScaleDown,
          absl::StrCat("deleting pod for node scale down (node ", s.node->node.name, ")")));
    }
  }
  // A pod that cannot be read may still be there: the node is not known to be empty.
  return pods.empty() && !view.nodes_with_unreadable_pods.contains(s.node->node.name);
}

bool ScaleDownActuator::Delete(const NodeStatus& s, const PlanningInput& in,
                               const std::string& reason, absl::Time marked_at,
                               ScaleDownReport& report) {
  const std::string& name = s.node->node.name;
  const GroupState& g = in.state.groups[s.group];
  const absl::Status st = in.groups.DeleteNodes(
      g.id(), {{s.node->provider_id, name, s.node->node.labels, s.node->annotations}});
  if (st.ok()) {
    report.deleted.push_back({name, reason});
    log_.Info(absl::StrCat("Scale-down: removing node ", name, " of group ", g.id(), " (", reason,
                           ", ", absl::FormatDuration(in.now - marked_at),
                           " after it was marked)"));
    (void)writer_.RecordEvent(
        NodeEvent(name, "Normal", event_reason::kScaleDown, "node removed by cluster autoscaler"));
    if (reason == "empty") {
      (void)writer_.RecordEvent(StatusEvent(
          status_.namespace_name, status_.configmap_name, "Normal", event_reason::kScaleDownEmpty,
          absl::StrCat("Scale-down: removing empty node ", name)));
    }
    return true;
  }
  ++report.delete_errors;
  log_.Warning(absl::StrCat("Deleting node ", name, " through group ", g.id(),
                            " failed; it stays marked for the next loop: ", st.message()));
  return false;
}

void ScaleDownActuator::RollBack(const NodeStatus& s, const std::string& why,
                                 ScaleDownReport& report) {
  const std::string& name = s.node->node.name;
  absl::Status st = writer_.RemoveTaint(name, kToBeDeletedTaint);
  if (st.ok()) st = writer_.RemoveTaint(name, kDeletionCandidateTaint);
  if (st.ok()) st = writer_.Annotate(name, kRemovalReasonAnnotation, std::nullopt);
  if (!st.ok()) {
    log_.Warning(absl::StrCat("Undoing the removal of node ", name, " failed: ", st.message()));
    return;
  }
  ++report.rolled_back;
  log_.Warning(absl::StrCat("Scale-down of node ", name, " failed, the node stays: ", why));
  (void)writer_.RecordEvent(NodeEvent(name, "Warning", event_reason::kScaleDownFailed, why));
}

void ScaleDownActuator::Start(const std::vector<NodeRemoval>& removals, const PlanningInput& in,
                              ScaleDownReport& report) {
  const ClusterState& state = in.state;
  const absl::Time now = in.now;
  for (const NodeRemoval& r : removals) {
    const NodeStatus& s = state.nodes[r.node];
    if (!Begin(s, r.reason, now)) continue;
    log_.Info(absl::StrCat("Scale-down: starting the removal of node ", s.node->node.name,
                           " of group ", state.groups[s.group].id(), " (", r.reason,
                           r.why.empty() ? "" : ": ", r.why, ")"));
    ++report.started;
    if (Drain(s, in.view, MaxGrace(r.reason), report)) Delete(s, in, r.reason, now, report);
  }
}

void ScaleDownActuator::StartPreempted(const PlanningInput& in, ScaleDownReport& report) {
  const ClusterState& state = in.state;
  const absl::Time now = in.now;
  for (const Preemption& p : state.preemptions) {
    const NodeStatus& s = state.nodes[p.node];
    log_.Warning(absl::StrCat("Node ", s.node->node.name, " is being preempted (", p.signal,
                              "): draining it with at most ",
                              absl::FormatDuration(options_.preemption_drain_time), " of grace"));
    if (!Begin(s, kPreemptedReason, now)) continue;
    ++report.started;
    Drain(s, in.view, options_.preemption_drain_time, report);
  }
}

void ScaleDownActuator::Continue(const PlanningInput& in, ScaleDownReport& report) {
  const ClusterView& view = in.view;
  const ClusterState& state = in.state;
  const absl::Time now = in.now;
  for (const NodeStatus& s : state.nodes) {
    if (!s.node->Marks().to_be_deleted) continue;
    const std::string reason = ReasonOf(*s.node);
    if (s.group < 0) {  // nothing of ours to delete it through
      RollBack(s, "the node belongs to no node group", report);
      continue;
    }
    // Without an answer from the group nothing is known of the instance: wait for one.
    if (!state.groups[s.group].provider->call_error.ok()) continue;
    const absl::Time start = s.node->Marks().to_be_deleted_since.value_or(now);
    const Instance* instance = InstanceOf(s, state);
    if (instance == nullptr) {  // the instance is gone: so is the node, but for its object
      const absl::Status st = writer_.DeleteNode(s.node->node.name);
      if (!st.ok()) {
        log_.Warning(absl::StrCat("Deleting node object ", s.node->node.name, ": ", st.message()));
      }
      continue;
    }
    if (instance->state == InstanceState::kDeleting) continue;  // on its way
    // A preempted node goes anyway, and so does a broken one: the drain is bounded, never undone.
    const bool forced = reason == kPreemptedReason || reason == kRepairReason;
    const absl::Duration max_grace = MaxGrace(reason);
    const absl::Time deadline =
        start +
        (forced ? max_grace : options_.max_graceful_termination + options_.max_pod_eviction_time);
    const bool drained = Drain(s, view, max_grace, report);
    if (drained || (forced && now >= deadline)) {
      if (!Delete(s, in, reason, start, report) && !forced && now >= deadline) {
        RollBack(s, "its node group would not delete it", report);
      }
    } else if (now >= deadline) {
      RollBack(
          s,
          absl::StrCat("its pods did not leave within ", absl::FormatDuration(deadline - start),
                       " (a PodDisruptionBudget, or pods slow to stop)"),
          report);
    }
  }
}

}  // namespace gpua
