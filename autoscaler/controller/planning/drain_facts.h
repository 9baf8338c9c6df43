// What the cluster says about each pod of a node, for the drain rules
// (estimator/drain_rules.h): its controller (watched kinds that exist, are gone, or kinds
// not watched), the PodDisruptionBudgets that cover it, and its own marks.
#ifndef GPUA_AUTOSCALER_CONTROLLER_PLANNING_DRAIN_FACTS_H_
#define GPUA_AUTOSCALER_CONTROLLER_PLANNING_DRAIN_FACTS_H_

#include <vector>

#include "autoscaler/controller/model/cluster_view.h"
#include "estimator/drain_rules.h"

namespace gpua {

// `view.pdbs` indexes the budgets.
PodDrainFacts DrainFactsFor(const ClusterView& view, const PodObject& pod);

// What each of the view's budgets allows now, in the order of view.pdbs.
std::vector<int> BudgetsAllowed(const ClusterView& view);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_PLANNING_DRAIN_FACTS_H_
