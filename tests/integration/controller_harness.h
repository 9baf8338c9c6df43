// The controller wired as in a cluster, for integration tests: informers on the fake API
// server, the externalgrpc client talking to a real gRPC plugin on loopback that serves the
// simulated cloud, kubelets that register the cloud's instances as Nodes, and the
// controller's clock and the cloud's one manual clock, so minutes pass in a step.
#ifndef GPUA_TESTS_INTEGRATION_CONTROLLER_HARNESS_H_
#define GPUA_TESTS_INTEGRATION_CONTROLLER_HARNESS_H_

#include <memory>
#include <string>
#include <vector>

#include "autoscaler/controller/controller.h"
#include "autoscaler/kube/api_kube_writer.h"
#include "autoscaler/kube/cluster_watch.h"
#include "base/log.h"
#include "cloudproviders/externalgrpc/externalgrpc_provider.h"
#include "cloudproviders/externalgrpc/plugin_server.h"
#include "cloudproviders/simulated/simulated_cloud.h"
#include "tests/support/fake_api_client.h"
#include "tests/support/fake_api_server.h"
#include "tests/support/simulated_kubelet.h"

namespace gpua::testing {

class ControllerHarness {
 public:
  explicit ControllerHarness(const std::string& node_groups_yaml, ControllerOptions options = {},
                             SimulatedCloudOptions cloud_options = {});
  ~ControllerHarness();

  // A pending pod the scheduler could not place. `resources` are one container's requests,
  // {"nvidia.com/gpu": "8"}; it tolerates the GPU taint.
  void AddPendingPod(const std::string& name, const nlohmann::json& resources,
                     const nlohmann::json& extra_metadata = nlohmann::json::object());
  // A pod running on `node`, owned by `owner_kind`/`owner` (which is created too when it is a
  // kind the controller watches; "" for none), labelled app=<owner>.
  void AddRunningPod(const std::string& name, const std::string& node,
                     const nlohmann::json& resources, const std::string& owner_kind = "ReplicaSet",
                     const std::string& owner = "web",
                     const nlohmann::json& extra_metadata = nlohmann::json::object(),
                     const nlohmann::json& extra_spec = nlohmann::json::object());
  void AddPdb(const std::string& name, const std::string& app, int allowed);
  // Sets the node's condition `type` as a node agent does (status.conditions, the kubelet's
  // Ready left alone unless it is the one set), changed at `since` (the clock's now if unset).
  void SetCondition(const std::string& node, const std::string& type, const std::string& status,
                    const std::string& reason = "", std::optional<absl::Time> since = {});
  // The node's annotations; empty when the node is gone.
  std::map<std::string, std::string> Annotations(const std::string& node);
  // The controller process dies and a new one starts, with no memory of the old one.
  void RestartController();
  // The node's taints, "key=value:Effect" each; empty when the node is gone.
  std::vector<std::string> Taints(const std::string& node);
  bool NodeExists(const std::string& node);

  // Moves both clocks on, lets the kubelets register what came up, waits for the informers
  // to see it all, and runs one loop.
  LoopReport Step(absl::Duration elapsed = absl::ZeroDuration());
  // Waits until the informers hold what the fake API server holds.
  void WaitForInformers();

  int TargetSize(const std::string& group);
  // Events written so far for an object, "Reason: message" each.
  std::vector<std::string> EventsFor(const std::string& name);
  nlohmann::json StatusConfigMap();

  ManualClock clock;
  SimulatedCloud cloud;
  FakeApiServer server;
  MemoryLogSink log;
  MetricsRegistry registry;
  AutoscalerMetrics metrics{registry};

 private:
  std::vector<NodeGroupConfig> groups_;
  ControllerOptions options_;
  std::unique_ptr<externalgrpc::PluginServer> plugin_;
  std::unique_ptr<ExternalGrpcProvider> provider_;
  std::unique_ptr<kube::ApiClient> client_;
  std::unique_ptr<kube::ClusterWatch> watch_;
  std::unique_ptr<kube::ApiKubeWriter> writer_;
  std::unique_ptr<Controller> controller_;

 public:
  std::unique_ptr<SimulatedKubelet> kubelet;
};

}  // namespace gpua::testing

#endif  // GPUA_TESTS_INTEGRATION_CONTROLLER_HARNESS_H_
