#include "autoscaler/controller/spot/homeless_pods.h"

#include "autoscaler/controller/model/preemptions.h"
#include "autoscaler/controller/planning/drain_facts.h"

namespace gpua {

std::vector<PodPtr> HomelessPods(const ClusterView& view, const ClusterState& state) {
  std::vector<const NodeObject*> preempted;
  for (const Preemption& p : state.preemptions) preempted.push_back(state.nodes[p.node].node.get());
  for (const NodeStatus& s : state.nodes) {
    const NodeMarks& marks = s.node->Marks();
    if (marks.to_be_deleted && marks.removal_reason == kPreemptedReason) {
      preempted.push_back(s.node.get());
    }
  }
  std::vector<PodPtr> out;
  for (const NodeObject* node : preempted) {
    for (const PodPtr& pod : view.PodsOn(node->node.name)) {
      const PodDrainFacts facts = DrainFactsFor(view, *pod);
      if (facts.daemonset || facts.mirror || facts.finished || facts.terminating ||
          facts.controller == PodDrainFacts::Controller::kNone ||
          facts.controller == PodDrainFacts::Controller::kGone) {
        continue;
      }
      out.push_back(pod);
    }
  }
  return out;
}

}  // namespace gpua
