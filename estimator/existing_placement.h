// The first part of an estimate: the pending pods that the nodes there are, and those on their
// way, hold. Nominated pods go to their own node first, then the others first fit in node
// order, the most constrained first; a gang is placed there whole or not at all. What is
// left is packed onto new nodes (estimate.cc).
#ifndef GPUA_ESTIMATOR_EXISTING_PLACEMENT_H_
#define GPUA_ESTIMATOR_EXISTING_PLACEMENT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "estimator/cluster_snapshot.h"
#include "estimator/estimate.h"
#include "estimator/pod_class.h"
#include "estimator/static_admissions.h"

namespace gpua {

// Members of the gang `name` already on the snapshot's nodes.
int64_t GangMembersOnNodes(const ClusterSnapshot& snapshot, const std::string& name);

// The gangs among `classes`, by name (a stable order), each with its classes in the order
// `order` lists them (class order when null).
std::map<std::string, std::vector<size_t>> GangClasses(const std::vector<PodClass>& classes,
                                                       const std::vector<size_t>* order = nullptr);

// Places what fits on the existing and upcoming nodes into plan.on_existing (and the nominated
// pods their node no longer holds into plan.missed). `admitting_groups`: by class, how many
// groups admit it.
void PlaceOnExisting(std::vector<PodClass>& classes, const std::vector<int>& admitting_groups,
                     const ExistingNodes& nodes, const EstimateOptions& options, ScaleUpPlan& plan);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_EXISTING_PLACEMENT_H_
