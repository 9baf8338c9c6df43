// An in-process cloud for the simulator, the example plugin and tests. Groups come from the
// node-group file (template, sizes, price, capacity type and its `simulation` section).
// Everything happens on an injected clock, so an afternoon of cloud behaviour runs in
// milliseconds and the same seed gives the same afternoon:
// - an instance asked for is `creating` for a provisioning delay drawn from the group's
//   distribution (log-normal through its p50 and p95), then `running`;
// - a stockout makes new instances fail with an out-of-resources error, as a cloud that
//   has no capacity does; they stay until deleted, as cluster-autoscaler expects;
// - a spot instance is reclaimed at the group's interruption rate: first a notice
//   (SpotNotices), then after the notice period it is gone and, the target being unchanged,
//   a replacement is asked for;
// - API errors and slow answers can be injected for any call.
#ifndef GPUA_CLOUDPROVIDERS_SIMULATED_SIMULATED_CLOUD_H_
#define GPUA_CLOUDPROVIDERS_SIMULATED_SIMULATED_CLOUD_H_

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "base/clock.h"
#include "cloudproviders/cloud_provider.h"
#include "cloudproviders/node_group_file.h"

namespace gpua {

struct SimulatedCloudOptions {
  uint64_t seed = 1;
  absl::Duration spot_notice = absl::Minutes(2);  // AWS gives two minutes
  absl::Duration deletion_delay = absl::Seconds(30);
  std::string gpu_label = "nvidia.com/gpu.product";
};

// What a group has cost so far: instances are billed from running until gone.
struct GroupBilling {
  absl::Duration node_time;  // summed over its instances
  int running = 0;           // instances billed now
  int interruptions = 0;     // reclaim notices given
  int gpu_failures = 0;      // instances whose GPUs failed
};

// A running instance as its kubelet knows it.
struct Machine {
  std::string group;
  std::string provider_id;
  absl::Time running_at;
  absl::Time gpu_ready_at;                  // its driver and device plugin are up
  std::optional<absl::Time> reclaim_at;     // set once its reclaim notice is given
  std::optional<absl::Time> gpu_failed_at;  // set once its GPUs have failed
};

struct SpotNotice {
  std::string group;
  std::string provider_id;
  absl::Time reclaim_at;
};

class SimulatedCloud : public CloudProvider {
 public:
  SimulatedCloud(std::vector<NodeGroupConfig> groups, Clock& clock,
                 SimulatedCloudOptions options = {});
  ~SimulatedCloud() override;

  std::string Name() const override { return "simulated"; }
  absl::StatusOr<std::vector<std::shared_ptr<NodeGroup>>> NodeGroups() override;
  absl::StatusOr<std::shared_ptr<NodeGroup>> NodeGroupForNode(const NodeRef& node) override;
  absl::StatusOr<double> NodePrice(const NodeRef& node, absl::Time start, absl::Time end) override;
  // Not offered: cluster-autoscaler's price expander then uses node prices only.
  absl::StatusOr<double> PodPrice(const PodSpec& pod, absl::Time start, absl::Time end) override;
  absl::StatusOr<std::string> GpuLabel() override;
  absl::StatusOr<std::vector<std::string>> AvailableGpuTypes() override;
  absl::Status Refresh() override;
  absl::Status Cleanup() override;

  // Injected trouble.
  void SetStockout(const std::string& group, bool out_of_capacity);
  // The next `count` calls (any of them) answer `error`.
  void FailNextCalls(absl::Status error, int count);
  // The instance's GPUs fail now (it keeps running, as a node whose GPU fell off the bus
  // does); NotFound for no such instance, FailedPrecondition for one not running.
  absl::Status FailGpus(const std::string& provider_id);
  // Every GPU group's running instances fail at this rate per node-hour from now on, on top
  // of their groups' own gpuFailuresPerNodeHour; drawn per instance from the seed.
  void AddGpuFailureRate(double per_node_hour);
  // Every call of the group's (its size, instances, template, options, changes) answers
  // `error` until cleared with OK: one group's API broken, the others not.
  void FailGroupCalls(const std::string& group, absl::Status error);
  // Every call takes this long on the clock before it answers.
  void SetLatency(absl::Duration latency);
  // The group's increases answer `error` (a quota, a refused API call) until cleared with OK.
  void FailIncreases(const std::string& group, absl::Status error);

  // Gives a running instance its reclaim notice now: it is gone after the notice period (a
  // spot interruption or a scheduled preemption, on demand, for tests and traces).
  absl::Status Interrupt(const std::string& provider_id);
  // The running instances, group by group, as the machines themselves know it: no injected
  // error or latency (what a kubelet sees, not what the cloud's API answers).
  std::vector<Machine> Machines();
  // Spot instances under notice now.
  std::vector<SpotNotice> SpotNotices();
  // Billing by group id, up to the clock's now.
  std::map<std::string, GroupBilling> Billing();
  // The next time after now at which an instance changes (comes up, gets its GPUs, gets or
  // runs out its notice, goes); InfiniteFuture when nothing is due. A discrete-event
  // simulation steps to it.
  absl::Time NextChange();
  // How many changes were made from outside (instances launched, deleted, interrupted): when
  // it has not moved, the machines change only at NextChange().
  int64_t ChangesFromOutside();

  struct State;  // one group's instances and target; see the .cc

 private:
  class Group;
  absl::Status BeginCall();  // latency and injected errors
  // Applies `change(group, instance, now)` to the running instance `provider_id`, brought up
  // to now; NotFound or FailedPrecondition (not running) otherwise.
  template <typename Change>
  absl::Status WithRunning(const std::string& provider_id, Change change);

  Clock& clock_;
  const SimulatedCloudOptions options_;
  std::unique_ptr<State> state_;
  std::vector<std::shared_ptr<Group>> groups_;
};

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_SIMULATED_SIMULATED_CLOUD_H_
