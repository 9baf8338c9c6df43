#include "autoscaler/controller/scaleup/scale_up_step.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autoscaler/controller/planning/buffer_pods.h"

namespace gpua {
namespace {

// "pod didn't trigger scale-up: a100, h100: Insufficient nvidia.com/gpu (...); cpu: ...":
// groups that give the same reason are named together.
std::string WithoutMessage(const GroupReasons& reasons) {
  if (reasons.empty()) return "pod didn't trigger scale-up: no node group can be scaled up";
  std::map<std::string, std::vector<std::string>> by_reason;
  for (const auto& [group, why] : reasons) by_reason[why].push_back(group);
  std::vector<std::string> parts;
  parts.reserve(by_reason.size());
  for (const auto& [why, groups] : by_reason) {
    parts.push_back(absl::StrCat(absl::StrJoin(groups, ", "), ": ", why));
  }
  return absl::StrCat("pod didn't trigger scale-up: ", absl::StrJoin(parts, "; "));
}

}  // namespace

ScaleUpStep::ScaleUpStep(KubeWriter& writer, LogSink& log, const ControllerOptions& options)
    : writer_(writer),
      log_(log),
      planner_(options.scale_up, options.limits),
      actuator_(writer, log, options.status),
      expanders_(options.scale_up, options.status.namespace_name, log) {}

ScaleUpResult ScaleUpStep::Run(const PlanningInput& in, const PodsToScaleFor& pods) {
  // Placeholders wait as long as their buffer holds them: their nominations stay too.
  std::vector<PodPtr> waiting = in.view.unschedulable;
  waiting.insert(waiting.end(), pods.placeholders.begin(), pods.placeholders.end());
  nominations_.Update(in.state, waiting, in.now, log_);
  ScaleUpResult result;
  if (in.state.healthy) result = Rounds(in, PodsToPlan(pods), pods.added_earlier);
  WriteNominations(in.view, in.state, in.now);
  absl::flat_hash_set<std::string> unschedulable;
  for (const PodPtr& p : waiting) unschedulable.insert(p->spec.uid);
  pod_events_.Keep(unschedulable);
  nomination_warnings_.Keep(unschedulable);
  return result;
}

std::vector<PodPtr> ScaleUpStep::PodsToPlan(const PodsToScaleFor& pods) const {
  const PendingPods& pending = pods.pending;
  std::vector<PodPtr> out;
  out.reserve(pending.eligible.size());
  for (const PodPtr& p : pending.eligible) {
    if (!nominations_.Held(p->spec.uid)) out.push_back(p);
  }
  for (const PodPtr& p : pending.nominated_pods) {
    if (nominations_.SlotOf(p->spec.uid) != nullptr) out.push_back(p);
  }
  out.insert(out.end(), pods.homeless.begin(), pods.homeless.end());
  // Last: a pod that waits takes the room there is before warm capacity does.
  out.insert(out.end(), pods.placeholders.begin(), pods.placeholders.end());
  return out;
}

ScaleUpResult ScaleUpStep::Rounds(const PlanningInput& in, const std::vector<PodPtr>& pods,
                                  const std::map<std::string, int>& added_earlier) {
  const ClusterState& state = in.state;
  const absl::Time now = in.now;
  ScaleUpResult result;
  if (pods.empty()) return result;
  std::unique_ptr<Expander> expander = expanders_.For(in.view);
  EarlierRounds earlier;
  earlier.added = added_earlier;
  std::vector<PodWithoutScaleUp> without;
  std::vector<PodPtr> remaining = pods;
  // Pods promised a node still on its way as the loop began: an increase for them only is
  // a repeat, which nominations are there to prevent.
  absl::flat_hash_set<absl::string_view> promised;
  for (const PodPtr& p : pods) {
    if (nominations_.OnItsWay(p->spec.uid, state)) promised.insert(p->spec.uid);
  }
  // Each round plans the pods of groups that failed in the round before, without them.
  for (size_t round = 0; !remaining.empty() && round <= state.groups.size(); ++round) {
    const ScaleUpDecision decision =
        planner_.Plan(in, {remaining, *expander, earlier, nominations_}, kept_);
    if (round == 0) {
      // Warm capacity that fits is the point of it, not pods about to land.
      result.fit_existing =
          static_cast<int>(std::count_if(decision.fit_existing.begin(), decision.fit_existing.end(),
                                         [](const PodPtr& p) { return !IsPlaceholder(*p); }));
    }
    Nominate(decision, state, now);
    // A pod its node no longer holds (another pod took the room) needs a node again.
    for (const MissedPod& m : decision.missed) promised.erase(m.pod->spec.uid);
    without.insert(without.end(), decision.without.begin(), decision.without.end());
    std::vector<ScaleUpOutcome> outcomes = actuator_.Execute(decision.requests, in, earlier.added);
    remaining.clear();
    for (ScaleUpOutcome& o : outcomes) {
      if (o.status.ok()) {
        earlier.added[o.request.group] += o.request.delta;
        const std::vector<PodPtr>& asked_for = o.request.pods;
        o.repeat = !asked_for.empty() &&
                   std::all_of(asked_for.begin(), asked_for.end(),
                               [&](const PodPtr& p) { return promised.contains(p->spec.uid); });
        if (o.repeat) {
          log_.Warning(absl::StrCat(
              "Scale-up of group ", o.request.group,
              " was for pods already promised nodes on their way: ", DescribePods(asked_for)));
        }
        nominations_.Increase(o.request.group, o.request.node_pods, now);
      } else {
        earlier.excluded.insert(o.request.group);
        remaining.insert(remaining.end(), o.request.pods.begin(), o.request.pods.end());
      }
      result.outcomes.push_back(std::move(o));
    }
  }
  result.without_scale_up = static_cast<int>(
      std::count_if(without.begin(), without.end(),
                    [](const PodWithoutScaleUp& p) { return !IsPlaceholder(*p.pod); }));
  SayWithoutScaleUp(without, now);
  return result;
}

void ScaleUpStep::Nominate(const ScaleUpDecision& decision, const ClusterState& state,
                           absl::Time now) {
  for (const MissedPod& m : decision.missed) nominations_.Miss(m.pod->spec, m.why, log_);
  for (const PodOnNode& p : decision.on_their_way) {
    nominations_.Place(p.pod->spec, p.slot, state, now);
  }
}

void ScaleUpStep::WriteNominations(const ClusterView& view, const ClusterState& state,
                                   absl::Time now) {
  // A ClusterRole without pods/status (cluster-autoscaler's, say) fails each write: said once
  // a pod in a while, not every loop.
  const auto warn = [&](const PodObject& p, const absl::Status& s) {
    const std::string message(s.message());
    if (nomination_warnings_.ShouldSay(p.spec.uid, message, now)) log_.Warning(message);
  };
  absl::flat_hash_map<std::pair<absl::string_view, absl::string_view>, const PodObject*> pods;
  const std::vector<Nominations::Released> released = nominations_.TakeReleased();
  if (!released.empty()) {
    for (const PodPtr& p : view.unschedulable) {
      pods[{p->spec.namespace_name, p->spec.name}] = p.get();
    }
  }
  for (const Nominations::Released& r : released) {
    auto it = pods.find({r.namespace_name, r.name});
    if (it == pods.end() || it->second->nominated_node != r.node) continue;
    if (nominations_.SlotOf(it->second->spec.uid) != nullptr) continue;  // nominated again
    const absl::Status s = writer_.Nominate(r.namespace_name, r.name, std::nullopt);
    if (!s.ok()) warn(*it->second, s);
  }
  for (const PodPtr& p : view.unschedulable) {
    const NodeSlot* slot = nominations_.SlotOf(p->spec.uid);
    if (slot == nullptr || slot->state_node < 0) continue;
    // Set only while unset (KEP-5278): a nomination another component made is its own, and
    // kube-scheduler clears the field after a failed attempt; the next loop sets it again.
    if (!p->nominated_node.empty()) continue;
    const std::string& node = state.nodes[slot->state_node].node->node.name;
    const absl::Status s = writer_.Nominate(p->spec.namespace_name, p->spec.name, node);
    if (!s.ok()) warn(*p, s);
  }
}

void ScaleUpStep::SayWithoutScaleUp(const std::vector<PodWithoutScaleUp>& pods, absl::Time now) {
  for (const PodWithoutScaleUp& p : pods) {
    const std::string message = WithoutMessage(*p.reasons);
    if (IsPlaceholder(*p.pod)) {  // no such pod to tell: the log says it, now and then
      if (pod_events_.ShouldSay(p.pod->spec.uid, message, now)) {
        log_.Info(
            absl::StrCat("Warm capacity of CapacityBuffer ", p.pod->capacity_buffer, ": ", message),
            1);
      }
      continue;
    }
    if (!pod_events_.ShouldSay(p.pod->spec.uid, message, now)) continue;
    log_.Info(absl::StrCat("Pod ", p.pod->spec.Key(), ": ", message), 1);
    (void)writer_.RecordEvent(
        PodEvent(p.pod->spec, "Normal", event_reason::kNotTriggerScaleUp, message));
  }
}

void ScaleUpStep::ReportInvalidPods(const std::vector<PodPtr>& pods, absl::Time now) {
  for (const PodPtr& p : pods) {
    const std::string message =
        absl::StrCat("pod didn't trigger scale-up: it cannot be read: ", p->spec.invalid.message());
    if (!pod_events_.ShouldSay(p->spec.uid, message, now)) continue;
    log_.Warning(std::string(p->spec.invalid.message()));
    (void)writer_.RecordEvent(
        PodEvent(p->spec, "Warning", event_reason::kNotTriggerScaleUp, message));
  }
}

}  // namespace gpua
