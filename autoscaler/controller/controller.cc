#include "autoscaler/controller/controller.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autoscaler/controller/planning/drain_facts.h"
#include "autoscaler/controller/scaleup/priority_config.h"
#include "autoscaler/controller/spot/preemptions.h"
#include "estimator/gpu/gpu_resource.h"

namespace gpua {
namespace {

// "pod didn't trigger scale-up: a100, h100: Insufficient nvidia.com/gpu (...); cpu: ...":
// groups that give the same reason are named together.
std::string WithoutMessage(const GroupReasons& reasons) {
  if (reasons.empty()) return "pod didn't trigger scale-up: no node group can be scaled up";
  std::map<std::string, std::vector<std::string>> by_reason;
  for (const auto& [group, why] : reasons) by_reason[why].push_back(group);
  std::vector<std::string> parts;
  for (const auto& [why, groups] : by_reason) {
    parts.push_back(absl::StrCat(absl::StrJoin(groups, ", "), ": ", why));
  }
  return absl::StrCat("pod didn't trigger scale-up: ", absl::StrJoin(parts, "; "));
}

}  // namespace

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
      stale_cleaner_(writer, backoff_, log, options_.status),
      mig_layouts_(writer, log),
      scale_up_planner_(options_.scale_up, options_.limits),
      scale_up_actuator_(writer, backoff_, log, options_.status),
      status_(writer, options_.status, log),
      scale_down_planner_(options_.scale_down, options_.limits),
      scale_down_actuator_(writer, log, options_.scale_down, options_.status) {}

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
    node_cache_.BeginLoop(view);
    Timed(report, "cloudProviderRefresh", [&] {
      report.provider = std::make_unique<ProviderSnapshot>(provider_reader_.Read(view.nodes, now));
    });
    if (!report.provider->error.ok()) {
      report.skipped =
          absl::StrCat("the cloud provider failed: ", report.provider->error.message());
      log_.Warning(report.skipped);
      if (metrics_ != nullptr) metrics_->CountError("cloudProviderError");
    }
    Timed(report, "updateClusterState",
          [&] { report.state = state_builder_.Build(view, *report.provider, backoff_, now); });
    ClusterState& state = report.state;
    if (report.skipped.empty()) {
      report.stale = stale_cleaner_.Clean(state, now);
      for (GroupState& g : state.groups) g.backoff = backoff_.Get(g.id(), now);
      report.preemptions = DetectPreemptions(state);
      MarkPreempted(report.preemptions, state);
      mig_layouts_.Assign(state);
      for (GroupState& g : state.groups) g.upcoming_mig_layouts = mig_layouts_.Expected(g.id());
      report.unschedulable = static_cast<int>(view.unschedulable.size());
      const PendingPods pending = SelectPendingPods(view, options_.scale_up, now);
      Timed(report, "scaleDownNodeDeletion", [&] {
        scale_down_actuator_.Continue(view, state, now, report.removals);
        scale_down_actuator_.StartPreempted(report.preemptions, view, state, now, report.removals);
      });
      report.next_pod_eligible = pending.next_eligible;
      report.eligible = static_cast<int>(pending.eligible.size());
      for (const PodPtr& p : pending.eligible) {
        report.pending_gpu_pods += !GpuPart(p->spec.requests).empty();
      }
      ReportInvalidPods(pending.invalid, now);
      ReportHealth(state);
      absl::flat_hash_set<std::string> pending_uids;
      for (const PodPtr& p : view.unschedulable) pending_uids.insert(p->spec.uid);
      nominations_.Update(state, view.unschedulable, now, log_);
      if (state.healthy) {
        Timed(report, "scaleUp", [&] {
          RunScaleUp(view, WithPreemptedPods(view, report, WithOwnNominated(pending)), report,
                     now);
        });
      }
      WriteNominations(view, state, now);
      std::vector<double> gpu_use;
      Timed(report, "scaleDown", [&] { gpu_use = RunScaleDown(view, report, now); });
      CountIdleGpus(view, gpu_use, report);
      node_cache_.ForgetUnused();
      pod_events_.Keep(pending_uids);
      nomination_warnings_.Keep(pending_uids);
    }
    status_.Write(state, report.scale_down, now);
  }
  report.durations["main"] = clock_.Now() - began;
  report.end = now + (clock_.Now() - began);
  if (metrics_ != nullptr) metrics_->Record(report, options_);
  return report;
}

void Controller::RunScaleUp(const ClusterView& view, const std::vector<PodPtr>& pending,
                            LoopReport& report, absl::Time now) {
  if (pending.empty()) return;
  std::unique_ptr<Expander> expander = MakeExpander(view);
  std::map<std::string, int> added;
  std::set<std::string> excluded;
  std::vector<PodWithoutScaleUp> without;
  std::vector<PodPtr> remaining = pending;
  // Pods promised a node still on its way as the loop began: an increase for them only is
  // a repeat, which nominations are there to prevent.
  absl::flat_hash_set<absl::string_view> promised;
  for (const PodPtr& p : pending) {
    if (nominations_.OnItsWay(p->spec.uid, report.state)) promised.insert(p->spec.uid);
  }
  // Each round plans the pods of groups that failed in the round before, without them.
  for (size_t round = 0; !remaining.empty() && round <= report.state.groups.size(); ++round) {
    ScaleUpDecision decision = scale_up_planner_.Plan(view, report.state, remaining, *expander,
                                                      added, excluded, nominations_, node_cache_);
    if (round == 0) report.fit_existing = static_cast<int>(decision.fit_existing.size());
    Nominate(decision, report.state, now);
    without.insert(without.end(), decision.without.begin(), decision.without.end());
    std::vector<ScaleUpOutcome> outcomes =
        scale_up_actuator_.Execute(decision.requests, report.state, added, now);
    remaining.clear();
    for (ScaleUpOutcome& o : outcomes) {
      if (o.status.ok()) {
        added[o.request.group] += o.request.delta;
        mig_layouts_.Expect(o.request.group, o.request.mig_layouts);
        const std::vector<PodPtr>& pods = o.request.pods;
        o.repeat = !pods.empty() && std::all_of(pods.begin(), pods.end(), [&](const PodPtr& p) {
          return promised.contains(p->spec.uid);
        });
        if (o.repeat) {
          log_.Warning(absl::StrCat("Scale-up of group ", o.request.group,
                                    " was for pods already promised nodes on their way: ",
                                    DescribePods(pods)));
        }
        nominations_.Increase(o.request.group, o.request.node_pods, now);
      } else {
        excluded.insert(o.request.group);
        remaining.insert(remaining.end(), o.request.pods.begin(), o.request.pods.end());
      }
      report.scale_ups.push_back(std::move(o));
    }
  }
  report.without_scale_up = static_cast<int>(without.size());
  SayWithoutScaleUp(without, now);
}

std::vector<PodPtr> Controller::WithOwnNominated(const PendingPods& pending) const {
  std::vector<PodPtr> out = pending.eligible;
  for (const PodPtr& p : pending.nominated_pods) {
    if (nominations_.SlotOf(p->spec.uid) != nullptr) out.push_back(p);
  }
  return out;
}

void Controller::WriteNominations(const ClusterView& view, const ClusterState& state,
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

void Controller::Nominate(const ScaleUpDecision& decision, const ClusterState& state,
                          absl::Time now) {
  for (const MissedPod& m : decision.missed) nominations_.Miss(m.pod->spec, m.why, log_);
  for (const PodOnNode& p : decision.on_their_way) {
    nominations_.Place(p.pod->spec, p.slot, state, now);
  }
}

std::vector<PodPtr> Controller::WithPreemptedPods(const ClusterView& view, const LoopReport& report,
                                                  std::vector<PodPtr> pending) const {
  // Nodes found preempted this loop, and those whose preemption drain is under way.
  std::vector<const NodeObject*> preempted;
  for (const Preemption& p : report.preemptions) {
    preempted.push_back(report.state.nodes[p.node].node.get());
  }
  for (const NodeStatus& s : report.state.nodes) {
    const NodeMarks& marks = s.node->Marks();
    if (marks.to_be_deleted && marks.removal_reason == kPreemptedReason) {
      preempted.push_back(s.node.get());
    }
  }
  for (const NodeObject* node : preempted) {
    for (const PodPtr& pod : view.PodsOn(node->node.name)) {
      const PodDrainFacts facts = DrainFactsFor(view, *pod);
      // An evicted pod is recreated by its controller and asks for itself; a pod without
      // one is not coming back.
      if (facts.daemonset || facts.mirror || facts.finished || facts.terminating ||
          facts.controller == PodDrainFacts::Controller::kNone ||
          facts.controller == PodDrainFacts::Controller::kGone) {
        continue;
      }
      pending.push_back(pod);  // it needs a new home before this one goes
    }
  }
  return pending;
}

std::vector<double> Controller::RunScaleDown(const ClusterView& view, LoopReport& report,
                                             absl::Time now) {
  ClusterState& state = report.state;
  if (report.nodes_added() > 0) scale_down_clock_.last_scale_up = now;
  // After a restart the newest node says when the last scale-up came.
  for (const NodeStatus& s : state.nodes) {
    if (s.group >= 0 && s.node->created != absl::InfinitePast()) {
      scale_down_clock_.last_scale_up = std::max(scale_down_clock_.last_scale_up, s.node->created);
    }
  }
  const ScaleDownPlan plan = scale_down_planner_.Plan(view, state, scale_down_clock_,
                                                      report.fit_existing, now, node_cache_);
  report.scale_down = plan.status;
  report.next_removal_due = plan.next_due;
  report.scale_down_cooldown = plan.cooldown;
  absl::flat_hash_map<absl::string_view, int> unremovable;  // a few reasons, many nodes
  for (const NodeJudgement& j : plan.judged) {
    if (j.unneeded) {
      ++report.unneeded;
    } else {
      ++unremovable[j.reason];
      if (log_.V(2)) {  // every node, every loop: the line is built only when written
        log_.Info(
            absl::StrCat("Node ", state.nodes[j.node].node->node.name, " stays: ", j.Detail()), 2);
      }
    }
  }
  for (const auto& [reason, nodes] : unremovable) report.unremovable[std::string(reason)] += nodes;
  scale_down_actuator_.Mark(plan, state);
  scale_down_actuator_.Start(plan.removals, view, state, now, report.removals);
  if (!report.removals.deleted.empty()) scale_down_clock_.last_delete = now;
  if (report.removals.rolled_back > 0) scale_down_clock_.last_failure = now;
  std::vector<double> gpu_use(state.nodes.size(), -1);
  for (const NodeJudgement& j : plan.judged) {
    if (j.utilization_known) gpu_use[j.node] = j.utilization.gpu;
  }
  return gpu_use;
}

void Controller::CountIdleGpus(const ClusterView& view, const std::vector<double>& known_gpu_use,
                               LoopReport& report) {
  // Summed by group index, filed by group name once: a map lookup per GPU node showed.
  std::vector<std::optional<double>> idle(report.state.groups.size());
  for (size_t i = 0; i < report.state.nodes.size(); ++i) {
    const NodeStatus& s = report.state.nodes[i];
    if (s.group < 0) continue;
    const ProviderGroup& g = *report.state.groups[s.group].provider;
    if (g.gpus == nullptr) continue;
    double used = 0;
    if (s.condition == NodeCondition::kReady) {
      used =
          i < known_gpu_use.size() && known_gpu_use[i] >= 0
              ? known_gpu_use[i]
              : UtilizationOf(s, g, view, g.options.ignore_daemonsets_utilization, node_cache_).gpu;
    }
    idle[s.group] = idle[s.group].value_or(0) + g.gpus->physical_count * (1 - used);
  }
  for (size_t g = 0; g < idle.size(); ++g) {
    if (idle[g].has_value()) report.idle_gpus[report.state.groups[g].id()] += *idle[g];
  }
}

void Controller::SayWithoutScaleUp(const std::vector<PodWithoutScaleUp>& pods, absl::Time now) {
  for (const PodWithoutScaleUp& p : pods) {
    const std::string message = WithoutMessage(*p.reasons);
    if (!pod_events_.ShouldSay(p.pod->spec.uid, message, now)) continue;
    log_.Info(absl::StrCat("Pod ", p.pod->spec.Key(), ": ", message), 1);
    (void)writer_.RecordEvent(
        PodEvent(p.pod->spec, "Normal", event_reason::kNotTriggerScaleUp, message));
  }
}

void Controller::ReportInvalidPods(const std::vector<PodPtr>& pods, absl::Time now) {
  for (const PodPtr& p : pods) {
    const std::string message =
        absl::StrCat("pod didn't trigger scale-up: it cannot be read: ", p->spec.invalid.message());
    if (!pod_events_.ShouldSay(p->spec.uid, message, now)) continue;
    log_.Warning(std::string(p->spec.invalid.message()));
    (void)writer_.RecordEvent(
        PodEvent(p->spec, "Warning", event_reason::kNotTriggerScaleUp, message));
  }
}

void Controller::ReportHealth(const ClusterState& state) {
  if (state.healthy == was_healthy_) return;
  was_healthy_ = state.healthy;
  if (state.healthy) {
    log_.Info("The cluster is healthy again; scaling resumes");
    return;
  }
  log_.Warning(absl::StrCat("The cluster is unhealthy, no scaling until it recovers: ",
                            state.unhealthy_reason));
  (void)writer_.RecordEvent(
      StatusEvent(options_.status.namespace_name, options_.status.configmap_name, "Warning",
                  event_reason::kClusterUnhealthy,
                  absl::StrCat("Cluster is unhealthy: ", state.unhealthy_reason)));
}

std::unique_ptr<Expander> Controller::MakeExpander(const ClusterView& view) {
  ExpanderConfig config;
  config.random_seed = options_.scale_up.random_seed;
  if (ConfigMapPtr cm =
          view.FindConfigMap(options_.status.namespace_name, kPriorityExpanderConfigMap)) {
    auto text = cm->data.find("priorities");
    const std::string yaml = text == cm->data.end() ? "" : std::string(text->second);
    absl::StatusOr<PriorityConfig> priorities = ParsePriorityConfig(
        yaml, absl::StrCat("ConfigMap ", cm->namespace_name, "/", cm->name, " key priorities"));
    if (priorities.ok()) {
      config.priorities = *std::move(priorities);
    } else if (yaml != priority_config_seen_) {
      log_.Error(std::string(priorities.status().message()));
    }
    priority_config_seen_ = yaml;
  }
  absl::StatusOr<std::unique_ptr<Expander>> chain =
      MakeExpanderChain(options_.scale_up.expander, config);
  if (chain.ok()) return *std::move(chain);
  // A priority regex that does not compile: plan with the rest of the chain's judgement.
  log_.Error(absl::StrCat("--expander ", options_.scale_up.expander, ": ", chain.status().message(),
                          "; using least-waste this loop"));
  return *MakeExpanderChain("least-waste", {});
}

}  // namespace gpua
