// The controller's command line: cluster-autoscaler's flags, names and defaults, so an
// existing cluster-autoscaler Deployment's arguments carry over. Every flag is one of:
// implemented; accepted with no effect here (said at start, never silently dropped); or
// refused at start, by name, with the reason. A flag neither program knows is refused too.
#ifndef GPUA_AUTOSCALER_CLI_CONTROLLER_FLAGS_H_
#define GPUA_AUTOSCALER_CLI_CONTROLLER_FLAGS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "autoscaler/cli/command.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/kube/leader_election.h"

namespace gpua {

struct ControllerConfig {
  ControllerOptions controller;
  std::string cloud_provider = "externalgrpc";  // a name in ProviderRegistry::Builtin()
  std::string cloud_config;                     // what the provider reads its settings from
  std::vector<std::string> auto_discovery;      // --node-group-auto-discovery, as given
  std::string kubeconfig;
  // --cloud-provider=clusterapi without --cloud-config: the management cluster is the one the
  // controller runs in (in-cluster), and --kubeconfig names only the workload cluster.
  bool clusterapi_cloud_config_authoritative = false;
  std::string address = ":8085";  // metrics and health check
  bool leader_elect = true;
  // Ours: decide and report, but change no node, pod or Event (DryRunKubeWriter).
  bool dry_run = false;
  kube::LeaderElectionConfig leader_election;
  double kube_api_qps = 5;
  int kube_api_burst = 10;
  std::string user_agent = "gpu-autoscaler";
  int verbosity = 0;
  // The health check fails when no loop has completed for this long (default: three scan
  // intervals, at least 30 s) or none has succeeded for max_failing_time.
  absl::Duration max_inactivity = absl::ZeroDuration();
  absl::Duration max_failing_time = absl::Minutes(15);
  std::vector<std::string> notes;  // flags given that have no effect here, and why
};

// Parses the arguments. `*help` is set (and the usage returned in `*usage`) for --help.
absl::StatusOr<ControllerConfig> ParseControllerFlags(const CommandArgs& args, bool* help,
                                                      std::string* usage);

// The flags that shape the controller's decisions (the groups, the scan interval, limits,
// scale-up and scale-down), with cluster-autoscaler's names and defaults, and none of the
// cluster's or the provider's connection flags: what `simulate` takes beside its own.
class DecisionFlags {
 public:
  explicit DecisionFlags(FlagSet& flags);
  ~DecisionFlags();
  // After flags.Parse: the options, or an error that names the flag.
  absl::StatusOr<ControllerOptions> Finish(FlagSet& flags);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_CONTROLLER_FLAGS_H_
