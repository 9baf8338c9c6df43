#include "autoscaler/controller/planning/drain_facts.h"

#include <algorithm>

namespace gpua {
namespace {

// The controllers the cluster watch keeps, whose pods come back elsewhere.
bool Watched(const std::string& kind) {
  static const char* kKinds[] = {"ReplicaSet", "StatefulSet", "Job", "ReplicationController"};
  return std::find(std::begin(kKinds), std::end(kKinds), kind) != std::end(kKinds);
}

}  // namespace

PodDrainFacts DrainFactsFor(const ClusterView& view, const PodObject& p) {
  PodDrainFacts f;
  f.pod = &p.spec;
  f.daemonset = p.daemonset();
  f.mirror = p.mirror;
  f.finished = p.finished();
  f.terminating = p.terminating;
  f.safe_to_evict = p.safe_to_evict;
  f.local_storage = p.local_storage;
  if (p.spec.owner.has_value() && !f.daemonset) {
    if (!Watched(p.spec.owner->kind)) {
      f.controller = PodDrainFacts::Controller::kCustom;
    } else {
      f.controller = view.ControllerOf(p.spec) != nullptr ? PodDrainFacts::Controller::kExists
                                                          : PodDrainFacts::Controller::kGone;
    }
  }
  for (size_t i = 0; i < view.pdbs.size(); ++i) {
    if (view.pdbs[i]->Covers(p.spec)) f.budgets.push_back(static_cast<int>(i));
  }
  return f;
}

std::vector<int> BudgetsAllowed(const ClusterView& view) {
  std::vector<int> out;
  out.reserve(view.pdbs.size());
  for (const PdbPtr& b : view.pdbs) out.push_back(b->disruptions_allowed);
  return out;
}

}  // namespace gpua
