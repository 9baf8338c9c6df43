// Stands in for the kubelets of the simulated cloud's instances in integration tests: a
// running instance registers as a Node in the fake API server (Ready, its template's labels,
// taints and allocatable, its provider ID), without its GPUs until the cloud says they are
// ready (driver and device plugin up), with the MIG layout its nvidia.com/mig.config label
// names once they are; an instance that is gone takes its Node with it. It also plays the
// AWS Node Termination Handler: a node whose instance is under a reclaim notice gets the
// aws-node-termination-handler/spot-itn taint.
#ifndef GPUA_TESTS_SUPPORT_SIMULATED_KUBELET_H_
#define GPUA_TESTS_SUPPORT_SIMULATED_KUBELET_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cloudproviders/node_group_file.h"
#include "cloudproviders/simulated/simulated_cloud.h"
#include "tests/support/fake_api_server.h"

namespace gpua::testing {

class SimulatedKubelet {
 public:
  SimulatedKubelet(SimulatedCloud& cloud, std::vector<NodeGroupConfig> groups,
                   FakeApiServer& server, Clock& clock)
      : cloud_(cloud), groups_(std::move(groups)), server_(server), clock_(clock) {}

  // Instances of these groups never register (a node that cannot join).
  void NeverRegister(const std::string& group) { broken_.insert(group); }
  // The node's device plugin advertises `gpus` fewer GPUs from the next Sync (a GPU marked
  // unhealthy, fallen off the bus); 0 again for all.
  void LoseGpus(const std::string& node, int gpus) { lost_gpus_[node] = gpus; }

  // The instances running now registered at `when` (a cluster that was up before the test).
  void RegisteredAt(absl::Time when);

  // Brings the Nodes in line with the cloud, and the pods of those nodes with their
  // terminations; returns the nodes' names and the resourceVersions written.
  std::map<std::string, std::string> Sync();

  static std::string NodeName(const std::string& provider_id);

 private:
  nlohmann::json NodeFor(const NodeGroupConfig& g, const std::string& provider_id, bool gpus_ready,
                         bool under_notice) const;

  // Plays the DRA drivers of groups whose template has ResourceSlices: once the node's GPUs
  // are ready, its slices as the template's, in a pool named for the node.
  void PublishSlices(const NodeGroupConfig& g, const std::string& node);
  void UnpublishSlices(const std::string& node);

  SimulatedCloud& cloud_;
  const std::vector<NodeGroupConfig> groups_;
  FakeApiServer& server_;
  Clock& clock_;
  std::set<std::string> broken_;
  std::map<std::string, int> lost_gpus_;  // node -> GPUs it no longer advertises
  // Stops evicted pods once their grace period has passed (as their kubelet would), and
  // lets the pod garbage collector take the pods of nodes that are gone.
  void FinishPods(const std::set<std::string>& nodes);

  std::map<std::string, std::string> registered_at_;        // node -> creationTimestamp
  std::map<std::string, absl::Time> terminating_since_;     // pod -> when it was first seen so
  std::map<std::string, std::string> written_;              // node -> the last object written
  std::map<std::string, std::vector<std::string>> slices_;  // node -> its slices' names
};

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_SIMULATED_KUBELET_H_
