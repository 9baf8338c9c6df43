// The example plugin against a real (development) cluster: it plays the kubelets of the
// simulated cloud's instances, so an author watches the whole loop. Each running instance
// gets a Node (its group template's labels, taints and allocatable, its provider ID, its GPUs
// once the cloud says they are ready), labelled as ours; a Node of ours whose instance is
// gone is deleted, as a cloud controller manager would. Nodes not labelled as ours, or of
// groups another plugin serves (several may share a cluster), are never touched.
#ifndef GPUA_AUTOSCALER_CLI_SIMULATED_NODE_REGISTRAR_H_
#define GPUA_AUTOSCALER_CLI_SIMULATED_NODE_REGISTRAR_H_

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "autoscaler/kube/api_client.h"
#include "base/clock.h"
#include "base/log.h"
#include "cloudproviders/node_group_file.h"
#include "cloudproviders/simulated/simulated_cloud.h"

namespace gpua::kube {

// Marks the Nodes the registrar owns.
inline constexpr char kSimulatedInstanceLabel[] = "gpu-autoscaler.io/simulated-instance";

class SimulatedNodeRegistrar {
 public:
  SimulatedNodeRegistrar(ApiClient& client, SimulatedCloud& cloud,
                         std::vector<NodeGroupConfig> groups, Clock& clock, LogSink& log);

  // One pass: Nodes created, updated (GPUs come ready) and deleted to match the instances.
  // A failed request is logged and tried again on the next pass.
  void Sync();

 private:
  absl::StatusOr<std::map<std::string, nlohmann::json>> OurNodes();
  // The group of this registrar's that the Node's provider ID names, or null.
  const NodeGroupConfig* GroupOf(const nlohmann::json& node) const;
  bool OfOurGroups(const nlohmann::json& node) const;
  // Whether the Node's group has DRA drivers (its template has ResourceSlices).
  bool PublishesSlices(const nlohmann::json& node) const;
  static std::string UidOf(const nlohmann::json& object);
  void Register(const NodeGroupConfig& g, const Machine& m, const nlohmann::json* existing);
  // Plays the DRA drivers of a group whose template has ResourceSlices (simulated_node.h),
  // the slices owned by the Node `node_uid` (none when it is not known).
  void PublishSlices(const NodeTemplate& t, const std::string& node, const std::string& node_uid);
  void UnpublishSlices(const std::string& node);
  absl::Status Expect(absl::string_view what, absl::StatusOr<HttpResponse> res,
                      std::initializer_list<long> ok);

  ApiClient& client_;
  SimulatedCloud& cloud_;
  const std::vector<NodeGroupConfig> groups_;
  Clock& clock_;
  LogSink& log_;
  std::set<std::string> published_;  // nodes whose slices are published
};

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_CLI_SIMULATED_NODE_REGISTRAR_H_
