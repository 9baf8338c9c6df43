#include "autoscaler/controller/repair/node_repair.h"

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "autoscaler/controller/model/events.h"

namespace gpua {
namespace {

// A taint's value is a label value: at most 63 of [A-Za-z0-9-_.], alphanumeric at both ends.
std::string TaintValue(absl::string_view reason) {
  std::string out;
  for (char c : reason) {
    const bool ok =
        absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    out.push_back(ok ? c : '-');
    if (out.size() == 63) break;
  }
  while (!out.empty() && !absl::ascii_isalnum(static_cast<unsigned char>(out.back()))) {
    out.pop_back();
  }
  while (!out.empty() && !absl::ascii_isalnum(static_cast<unsigned char>(out.front()))) {
    out.erase(out.begin());
  }
  return out;
}

bool HasPodsToMove(const ClusterView& view, const std::string& node) {
  for (const PodPtr& p : view.PodsOn(node)) {
    if (!p->daemonset() && !p->mirror && !p->finished()) return true;
  }
  return false;
}

// At most `percent` of `nodes`, and at least one.
int Allowed(double percent, int nodes) {
  return std::max(1, static_cast<int>(std::floor(percent / 100.0 * nodes)));
}

// Budget and sizes, as the plan takes its starts one by one.
struct Tally {
  std::vector<int> repairing;  // by group
  std::vector<int> asked;      // replacements asked this loop, by group
  int cluster_repairing = 0;
  int cluster_nodes = 0;
};

// Whether the node's group takes one more repair now; the reason it waits when not.
std::string BudgetRefusal(const GroupState& g, size_t gi, const Tally& t, double percent) {
  const int group_allowed = Allowed(percent, g.counts.registered);
  if (t.repairing[gi] >= group_allowed) {
    return absl::StrCat(t.repairing[gi], " of the ", g.counts.registered, " nodes of group ",
                        g.id(), " are under repair, and at most ", group_allowed,
                        " may be at once (--max-unhealthy-percent)");
  }
  const int cluster_allowed = Allowed(percent, t.cluster_nodes);
  if (t.cluster_repairing >= cluster_allowed) {
    return absl::StrCat(t.cluster_repairing, " of the cluster's ", t.cluster_nodes,
                        " nodes are under repair, and at most ", cluster_allowed,
                        " may be at once (--max-unhealthy-percent)");
  }
  return "";
}

// Which group to ask for a replacement ("" for none), or why the repair must wait.
std::pair<std::string, std::string> Replacement(const NodeStatus& s, const GroupState& g,
                                                const ClusterView& view, int asked) {
  const ProviderGroup& p = *g.provider;
  const int target = p.target_size + asked;
  const bool below_min = target - 1 < p.min_size;
  if (!below_min && !HasPodsToMove(view, s.node->node.name)) return {"", ""};
  if (target + 1 <= p.max_size) return {p.id, ""};
  if (below_min) {
    return {"", absl::StrCat("group ", p.id, " is at its maximum size (", p.max_size,
                             ") and its minimum (", p.min_size,
                             "): no replacement can be asked for before the node goes")};
  }
  return {"", ""};  // at its maximum: its pods are planned again once it is gone
}

}  // namespace

RepairPlan PlanRepairs(const ClusterState& state, const ClusterView& view,
                       std::vector<UnhealthyNode> unhealthy, const RepairOptions& options) {
  RepairPlan plan;
  plan.unhealthy = std::move(unhealthy);
  if (!options.enabled) return plan;
  const absl::Time now = state.now;
  Tally t;
  t.repairing.assign(state.groups.size(), 0);
  t.asked.assign(state.groups.size(), 0);
  for (const GroupState& g : state.groups) t.cluster_nodes += g.counts.registered;
  absl::flat_hash_map<int, const UnhealthyNode*> signal_of;
  for (const UnhealthyNode& u : plan.unhealthy) signal_of[u.node] = &u;
  std::vector<RepairStart> candidates;
  for (size_t i = 0; i < state.nodes.size(); ++i) {
    const NodeStatus& s = state.nodes[i];
    const NodeMarks& marks = s.node->Marks();
    if (s.group < 0 || marks.repair.empty()) continue;
    ++t.repairing[s.group];
    ++t.cluster_repairing;
    ++plan.under_repair;
    // Its intent was written and its removal not begun: a restart came between.
    if (!marks.to_be_deleted) {
      candidates.push_back({static_cast<int>(i), "", marks.repair, /*resumed=*/true, ""});
    }
  }
  std::vector<const UnhealthyNode*> due;
  for (const UnhealthyNode& u : plan.unhealthy) {
    if (u.Due(now)) due.push_back(&u);
  }
  std::stable_sort(due.begin(), due.end(), [](const UnhealthyNode* a, const UnhealthyNode* b) {
    return a->due() < b->due();
  });
  for (const UnhealthyNode* u : due) {
    const NodeStatus& s = state.nodes[u->node];
    if (!s.node->Marks().unhealthy) plan.cordon.push_back(u->node);
    if (!s.node->Marks().repair.empty()) continue;  // under way
    const GroupState& g = state.groups[s.group];
    if (!g.provider->call_error.ok()) {
      plan.waiting.push_back({*u, absl::StrCat("its group ", g.id(), " did not answer: ",
                                               g.provider->call_error.message())});
      continue;
    }
    if (std::string refused = BudgetRefusal(g, s.group, t, options.max_unhealthy_percent);
        !refused.empty()) {
      plan.waiting.push_back({*u, std::move(refused)});
      continue;
    }
    ++t.repairing[s.group];
    ++t.cluster_repairing;
    candidates.push_back({u->node, u->policy.Reason(), u->Describe(now), false, ""});
  }
  for (RepairStart& r : candidates) {
    const NodeStatus& s = state.nodes[r.node];
    if (r.resumed) {
      auto it = signal_of.find(r.node);
      r.reason = it != signal_of.end() ? it->second->policy.Reason() : "resumed";
    }
    if (!s.node->Marks().repair_replacement.empty()) {
      plan.start.push_back(std::move(r));  // asked for before
      continue;
    }
    auto [group, wait] = Replacement(s, state.groups[s.group], view, t.asked[s.group]);
    if (!wait.empty()) {
      auto it = signal_of.find(r.node);
      if (it != signal_of.end()) plan.waiting.push_back({*it->second, std::move(wait)});
      continue;
    }
    if (!group.empty()) ++t.asked[s.group];
    r.replacement_group = std::move(group);
    plan.start.push_back(std::move(r));
  }
  absl::flat_hash_set<int> due_nodes;
  for (const UnhealthyNode* u : due) due_nodes.insert(u->node);
  for (size_t i = 0; i < state.nodes.size(); ++i) {
    const NodeMarks& m = state.nodes[i].node->Marks();
    if (m.unhealthy && m.repair.empty() && !m.to_be_deleted &&
        !due_nodes.contains(static_cast<int>(i))) {
      plan.uncordon.push_back(static_cast<int>(i));
    }
  }
  return plan;
}

void MarkRepaired(const RepairPlan& plan, ClusterState& state) {
  for (const RepairStart& r : plan.start) CountAsBeingDeleted(r.node, state);
}

void NodeRepairer::Cordon(const UnhealthyNode& u, const ClusterState& state, absl::Time now,
                          RepairReport& report) {
  const std::string& name = state.nodes[u.node].node->node.name;
  // The taint first: it says the cordon is ours, so the node is uncordoned if it recovers.
  // The cordon keeps off even pods that tolerate every taint.
  absl::Status st = writer_.AddTaint(
      name, {kUnhealthyTaint, TaintValue(u.policy.Reason()), TaintEffect::kNoSchedule});
  if (st.ok() && !state.nodes[u.node].node->node.unschedulable) {
    st = writer_.SetUnschedulable(name, true);
  }
  if (!st.ok()) {
    report.errors.push_back(absl::StrCat("tainting node ", name, ": ", st.message()));
    log_.Warning(absl::StrCat("Tainting unhealthy node ", name, " failed: ", st.message()));
    return;
  }
  ++report.cordoned;
  const std::string what =
      absl::StrCat("node ", name, " is unhealthy: ", u.Describe(now), ", past its toleration of ",
                   absl::FormatDuration(u.policy.toleration), "; no new pods are placed on it");
  log_.Warning(absl::StrCat("Repair: ", what));
  (void)writer_.RecordEvent(NodeEvent(name, "Warning", event_reason::kNodeUnhealthy, what));
}

void NodeRepairer::Uncordon(const NodeStatus& s, RepairReport& report) {
  const std::string& name = s.node->node.name;
  absl::Status st =
      s.node->node.unschedulable ? writer_.SetUnschedulable(name, false) : absl::OkStatus();
  if (st.ok()) st = writer_.RemoveTaint(name, kUnhealthyTaint);
  if (!st.ok()) {
    report.errors.push_back(absl::StrCat("untainting node ", name, ": ", st.message()));
    return;
  }
  ++report.uncordoned;
  log_.Info(absl::StrCat("Repair: node ", name, " shows no unhealthy signal any more"));
  (void)writer_.RecordEvent(NodeEvent(name, "Normal", event_reason::kNodeRecovered,
                                      "the node shows no unhealthy signal any more"));
}

void NodeRepairer::SayWaiting(const RepairWait& w, const ClusterState& state, absl::Time now) {
  const std::string& name = state.nodes[w.why.node].node->node.name;
  std::string& said = said_waiting_[name];
  if (said == w.reason) return;
  said = w.reason;
  const std::string what =
      absl::StrCat("the repair of ", w.why.Describe(now), " waits: ", w.reason);
  log_.Info(absl::StrCat("Repair: node ", name, ": ", what));
  (void)writer_.RecordEvent(NodeEvent(name, "Normal", event_reason::kNodeRepairDeferred, what));
}

bool NodeRepairer::Begin(const RepairStart& r, const PlanningInput& in, RepairReport& report) {
  const NodeStatus& s = in.state.nodes[r.node];
  const std::string& name = s.node->node.name;
  const auto failed = [&](absl::string_view what, const absl::Status& st) {
    report.errors.push_back(absl::StrCat(what, " node ", name, ": ", st.message()));
    log_.Warning(absl::StrCat("Repair: ", what, " node ", name, " failed: ", st.message()));
    return false;
  };
  // The intent first: a restart finds it and carries the repair on, never begins it twice.
  if (!r.resumed) {
    if (absl::Status st = writer_.Annotate(name, kRepairAnnotation, r.description); !st.ok()) {
      return failed("writing the repair intent on", st);
    }
  }
  std::string replaced_by = s.node->Marks().repair_replacement;
  if (!r.replacement_group.empty()) {
    if (absl::Status st = writer_.Annotate(name, kRepairReplacementAnnotation, r.replacement_group);
        !st.ok()) {
      return failed("writing the replacement intent on", st);
    }
    ScaleUpRequest ask;
    ask.group = r.replacement_group;
    ask.delta = 1;
    const ProviderGroup& p = *in.state.groups[s.group].provider;
    if (!s.mig_layout.empty() && p.gpus != nullptr && !p.gpus->mig_layouts().empty()) {
      ask.mig_layouts = {s.mig_layout};
    }
    ask.replaces = absl::StrCat("node ", name, ", broken: ", r.description);
    ask.asked_by = "Repair";
    const ScaleUpOutcome outcome = increases_.Execute({ask}, in, {}).front();
    if (!outcome.status.ok()) {
      // Not asked: the next loop asks again, and a group at its minimum keeps the node till then.
      (void)writer_.Annotate(name, kRepairReplacementAnnotation, std::nullopt);
      if (p.target_size - 1 < p.min_size) return failed("asking a replacement for", outcome.status);
      log_.Warning(absl::StrCat("Repair: no replacement for node ", name, ": ",
                                outcome.status.message(), "; its pods are planned again"));
    } else {
      replaced_by = r.replacement_group;
      report.replacements.push_back(r.replacement_group);
    }
  }
  report.started.push_back(name);
  if (!r.resumed) {
    ++report.by_reason[r.reason];
    ++report.by_group[in.state.groups[s.group].id()];
  }
  const std::string what = absl::StrCat(
      r.resumed ? "carrying on the replacement of the node: " : "replacing the node: ",
      r.description,
      replaced_by.empty() ? "" : absl::StrCat("; a new node of group ", replaced_by, " asked for"));
  log_.Info(absl::StrCat("Repair: node ", name, ": ", what));
  (void)writer_.RecordEvent(NodeEvent(name, "Normal", event_reason::kRepairingNode, what));
  return true;
}

std::vector<int> NodeRepairer::Act(const RepairPlan& plan, const PlanningInput& in,
                                   RepairReport& report) {
  const ClusterState& state = in.state;
  for (int i : plan.cordon) {
    auto u = std::find_if(plan.unhealthy.begin(), plan.unhealthy.end(),
                          [&](const UnhealthyNode& x) { return x.node == i; });
    if (u != plan.unhealthy.end()) Cordon(*u, state, in.now, report);
  }
  for (int i : plan.uncordon) Uncordon(state.nodes[i], report);
  absl::flat_hash_set<std::string> waiting;
  for (const RepairWait& w : plan.waiting) {
    SayWaiting(w, state, in.now);
    waiting.insert(state.nodes[w.why.node].node->node.name);
  }
  absl::erase_if(said_waiting_, [&](const auto& e) { return !waiting.contains(e.first); });
  std::vector<int> begun;
  for (const RepairStart& r : plan.start) {
    if (Begin(r, in, report)) begun.push_back(r.node);
  }
  return begun;
}

}  // namespace gpua
