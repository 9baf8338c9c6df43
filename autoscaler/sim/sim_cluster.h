// The simulated cluster: what the API server, the kubelets and the workload controllers do
// in `gpu-autoscaler simulate`, in memory. The controller reads it as a ClusterSource and acts
// on it as a KubeWriter, exactly as on a real cluster. Its nodes follow the simulated cloud's
// machines (registered when running, GPUs advertised once ready, a MIG layout from the node's
// label, DRA slices once its GPUs are up (sim_devices.h), the Node Termination Handler's taint
// under a reclaim notice); its pods arrive from
// the trace, run for their time once bound, and when evicted or lost with their node are
// made again by their Job, pending from that moment. It keeps the accounts the report needs.
#ifndef GPUA_AUTOSCALER_SIM_SIM_CLUSTER_H_
#define GPUA_AUTOSCALER_SIM_SIM_CLUSTER_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "autoscaler/controller/model/cluster_source.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "autoscaler/sim/node_change_log.h"
#include "autoscaler/sim/share_spread.h"
#include "autoscaler/sim/sim_devices.h"
#include "autoscaler/sim/sim_jobs.h"
#include "autoscaler/sim/trace.h"
#include "autoscaler/sim/warm_buffers.h"
#include "base/clock.h"
#include "cloudproviders/node_group_file.h"
#include "cloudproviders/simulated/simulated_cloud.h"
#include "estimator/cluster_snapshot.h"

namespace gpua::sim {

struct SimPod;

// A node group as the simulated kubelets know it.
struct SimGroup {
  const NodeGroupConfig* config = nullptr;
  std::optional<GpuInventory> gpus;
};

// How long a Node object whose machine is gone stays when nobody deletes it (see
// SimCluster::set_node_object_lingers).
inline constexpr absl::Duration kNodeObjectLingerTime = absl::Minutes(2);

struct SimNode {
  std::shared_ptr<const NodeObject> object;
  std::shared_ptr<const NodeProps> props;  // for the scheduler's checks
  const SimGroup* group = nullptr;
  // In the cluster's catalog (SimCluster::catalog()), as kube-scheduler counts them: each
  // pod's requests rounded up to whole units (millicores for cpu).
  ResourceVector allocatable;
  ResourceVector free;  // allocatable less the requests of the pods bound to it
  std::map<std::string, const SimPod*> pods;  // by key, into the cluster's pods
  double gpus_used = 0;                       // physical GPUs its pods use
  bool gpus_ready = false;
  bool noticed = false;
  std::optional<absl::Time> gpu_failed_at;  // its machine's GPUs failed then
  int64_t synced = 0;                       // the last SyncNodes round that found its machine
  // Its machine is gone and its object stays until then (or until deleted): NotReady, its
  // pods gone, unreachable.
  std::optional<absl::Time> lingers_until;
  // The scheduler's verdicts on this node as it is now, by pod shape: 1 admits, 0 not, -1
  // not yet asked. Cleared whenever its labels, cordon or the taints that keep pods off change.
  mutable std::vector<int8_t> admits;
};

struct SimPod {
  std::shared_ptr<const PodObject> object;
  const TraceArrival* arrival = nullptr;
  ResourceVector request;  // its requests and one of the node's "pods", in the catalog
  const PodDeviceNeeds* needs = nullptr;  // what it asks of DRA, per its shape
  std::string base_name;  // its name in the trace; incarnations after a loss add -r1, -r2
  int incarnation = 0;    // 0 for the first; each loss makes the next
  absl::Time created;
  int64_t seq = 0;  // its place in the pending queue
  absl::Time bound = absl::InfiniteFuture();
  std::string node;
  double gpus = 0;  // physical GPUs it uses on its node
  bool stopping = false;
  // The cluster's room_version() when the scheduler last found no node for it: until room
  // is made, it would find none again.
  int64_t found_no_node_at = -1;
};

// What the report reads.
struct ClusterAccounts {
  std::map<std::string, absl::Duration> gpu_time_used;  // by group, physical GPUs x time
  std::vector<float> pending_seconds;      // one per pod bound (or still pending at the end)
  std::vector<float> gpu_pending_seconds;  // the same, GPU pods only
  // By the group of the node they were bound to.
  std::map<std::string, std::vector<float>> pending_seconds_by_group;
  std::map<std::string, std::vector<float>> gpu_pending_seconds_by_group;
  int64_t pods_bound = 0;
  int64_t pods_restarted = 0;  // made again after an eviction or a lost node
  int64_t pods_finished = 0;
  int64_t events = 0;             // Events the controller recorded
  int64_t evictions_refused = 0;  // by a PodDisruptionBudget that allowed no disruption
  // GPU failures: nodes whose GPUs failed, how long each was billed broken before it went
  // (repaired or removed), by group, and those still there at the end.
  int64_t gpu_failures = 0;
  std::map<std::string, absl::Duration> broken_node_time;
  std::vector<float> broken_seconds;  // one per broken node gone, failure to gone
  int64_t broken_at_end = 0;
  int64_t pods_bound_to_broken = 0;  // placed on a node after its GPUs failed
};

// A pod placed on a node whose GPUs had failed, for the invariant that no pod is placed on a
// node known to be broken past its toleration.
struct BrokenBind {
  std::string pod;
  std::string node;
  std::string group;
  absl::Time failed_at;
  absl::Time bound_at;
};

class SimCluster : public ClusterSource, public KubeWriter {
 public:
  // `dra`: the trace's DeviceClasses, ResourceClaimTemplates and ResourceClaims, if any.
  SimCluster(const std::vector<NodeGroupConfig>& groups, Clock& clock,
             const std::shared_ptr<const DraObjects>& dra = nullptr);

  // ClusterSource: one view kept from loop to loop and patched with what changed since.
  std::shared_ptr<const ClusterView> View() const override;
  bool Synced() const override { return true; }

  // KubeWriter
  absl::Status AddTaint(const std::string& node, const Taint& taint) override;
  absl::Status RemoveTaint(const std::string& node, const std::string& key) override;
  absl::Status SetUnschedulable(const std::string& node, bool unschedulable) override;
  absl::Status Annotate(const std::string& node, const std::string& key,
                        std::optional<std::string> value) override;
  absl::Status Label(const std::string& node, const std::string& key,
                     std::optional<std::string> value) override;
  absl::Status DeleteNode(const std::string& node) override;
  absl::StatusOr<EvictionResult> Evict(const std::string& namespace_name, const std::string& pod,
                                       std::optional<absl::Duration> grace) override;
  absl::Status Nominate(const std::string& namespace_name, const std::string& pod,
                        std::optional<std::string> node) override;
  absl::Status RecordEvent(const EventRecord& event) override;
  absl::Status WriteConfigMap(const std::string& namespace_name, const std::string& name,
                              const std::map<std::string, std::string>& data,
                              const std::map<std::string, std::string>& annotations) override;
  absl::Status AnnotateConfigMap(const std::string& namespace_name, const std::string& name,
                                 const std::map<std::string, std::string>& annotations) override;

  // The simulation's side, all at the clock's now.
  void Arrive(const TraceArrival& arrival);
  // Brings the nodes in line with the cloud's machines; true when anything changed.
  bool SyncNodes(const std::vector<Machine>& machines);
  // Asked once for each node whose machine is gone: true keeps its object for
  // kNodeObjectLingerTime (or until deleted), as a slow node lifecycle controller does. Unset:
  // objects go with their machines.
  void set_node_object_lingers(std::function<bool()> lingers) { lingers_ = std::move(lingers); }
  // When the next lingering Node object goes by itself; InfiniteFuture when none lingers.
  absl::Time NextLingerEnd() const;
  // The pods placed on broken nodes, in order (the first 10,000).
  const std::vector<BrokenBind>& broken_binds() const { return broken_binds_; }
  // When the next pod finishes or stops; InfiniteFuture when none will.
  absl::Time NextPodEvent() const;
  // Ends the pods due by now; true when any did.
  bool EndDuePods();
  // Counts the pods still pending as waiting until now, and the running ones' GPU time.
  void Close();

  // For the scheduler. The pending pods, oldest first, each as its entry in pods(): a pass
  // over them looks none up by name.
  using PodEntry = std::map<std::string, SimPod>::iterator;
  const std::map<std::pair<absl::Time, int64_t>, PodEntry>& pending() const { return pending_; }
  const std::map<std::string, SimNode>& nodes() const { return nodes_; }
  const SimPod& pod(const std::string& key) const { return pods_.at(key); }
  const std::map<std::string, SimPod>& pods() const { return pods_; }
  // The slots of the nodes' and pods' resource vectors.
  const ResourceCatalog& catalog() const { return catalog_; }
  // Goes up whenever room may have been made for a pending pod: a bound pod left, or a node
  // came or changed (its taints, labels, cordon or what it advertises). Binding only takes
  // room, so it leaves the version as it is.
  int64_t room_version() const { return room_version_; }
  // Goes up whenever a node comes, goes, or changes what it may admit.
  int64_t nodes_version() const { return node_changes_.version(); }
  // Adds to `names` the nodes that came, went or changed after `version`, so a list of nodes
  // can follow them instead of being made again; false when those changes are no longer
  // all remembered (the last NodeChangeLog::kKept are).
  bool NodesChangedSince(int64_t version, std::vector<std::string>* names) const {
    return node_changes_.ChangedSince(version, names);
  }
  bool IsBound(const std::string& key) const;
  // `devices`: where its claims get their devices there (SimDevices::Place on the node's own
  // use); empty for a pod that asks for none.
  void Bind(const std::string& key, const std::string& node, const DevicePlacement& devices = {});
  const SimDevices& devices() const { return devices_; }
  // Marks it PodScheduled=False/Unschedulable (its nominated node cleared), found no node at
  // this room_version(); true when that changed it (an update the binary wakes its loop for).
  bool MarkUnschedulable(const std::string& key);
  bool MarkUnschedulable(const PodEntry& pending_pod);

  // Physical GPUs the pods of each group use now.
  const std::map<std::string, double>& gpus_in_use() const { return gpus_in_use_; }
  int NodesOf(const std::string& group) const;
  // Members of the gang (namespace/name) bound to nodes now.
  int BoundMembers(const std::string& gang) const;
  const ClusterAccounts& accounts() const { return accounts_; }
  // The PodDisruptionBudget over the pod's Job as it stands now (disruptionsAllowed
  // counted); null when the Job has none.
  std::shared_ptr<const PdbObject> BudgetOf(const SimPod& pod) const {
    return jobs_.BudgetOf(pod.object->spec);
  }
  absl::Time now() const { return clock_.Now(); }
  // Node time in a shared pool beyond the nodes its running shares would fill, packed.
  absl::Duration ShareSpreadTime(const std::string& group) const {
    return share_spread_.Kept(group, clock_.Now());
  }

 private:
  enum class PodEnd { kFinished, kStopped };
  struct DuePod {
    absl::Time at;
    std::string key;
    int incarnation;
    PodEnd end;
    bool operator>(const DuePod& o) const { return std::tie(at, key) > std::tie(o.at, o.key); }
  };

  void AddPendingPod(const TraceArrival& arrival, const std::string& name, int incarnation);
  void AddNode(const std::string& name, const Machine& m, bool gpus_ready, bool noticed);
  // Sets what the node advertises from its labels and readiness; its pods' room stays taken.
  void Advertise(SimNode& node, NodeObject& object);
  // Takes the pod off its node and out of the cluster, and counts what it used.
  SimPod Remove(std::string key);
  // A pod that stopped before its work was done: its Job makes it again.
  void Recreate(const SimPod& lost);
  // A gang runs whole or not at all: when a member is lost, the job's framework restarts the
  // others (as a training job does when a worker dies), so the gang forms again whole.
  void RestartGang(const std::string& gang);
  void RemoveNode(const std::string& name);
  // Its machine gone, the node's object stays NotReady and unreachable; its pods go.
  // Its machine's GPUs have failed: the node says so, as a node agent would, once; Advertise
  // then shows one GPU fewer.
  void NoteGpuFailure(SimNode& node, const Machine& m, NodeObject& object);
  void Orphan(SimNode& node, absl::Time until);
  // Applies `change` to a copy of the node and publishes it.
  absl::Status ChangeNode(const std::string& name, const std::function<void(NodeObject&)>& change);
  void Publish(SimNode& node, NodeObject object);
  void UpdatePod(SimPod& pod, const std::function<void(PodObject&)>& change);
  // Applies `change` to a copy of the ConfigMap (a new one when there is none) and publishes it.
  void ChangeConfigMap(const std::string& namespace_name, const std::string& name,
                       const std::function<void(ConfigMapObject&)>& change);
  // MarkUnschedulable, for a pod already found.
  bool Mark(SimPod& pod);
  // Notes for the next view that the pod changed (came, went, or was bound to a node).
  void PodChanged(const std::string& key, const std::string& node);
  // Bring the kept view's pods (and the unschedulable ones), and its nodes' pod lists, up to
  // what patch_ names.
  void PatchPods(ClusterView& view) const;
  void PatchNodePods(ClusterView& view) const;

  Clock& clock_;
  const std::vector<NodeGroupConfig> configs_;
  ResourceCatalog catalog_;
  // Each trace shape's request vector, by shape id: pods of one shape ask the same.
  std::vector<std::optional<ResourceVector>> shape_requests_;
  std::map<std::string, SimGroup> groups_;
  std::map<std::string, SimNode> nodes_;
  // Each node by the provider ID of its machine: every sync finds each machine's node, and
  // making its name to look it up by showed.
  absl::flat_hash_map<std::string, std::map<std::string, SimNode>::iterator> node_of_machine_;
  std::map<std::string, SimPod> pods_;
  std::map<std::pair<absl::Time, int64_t>, PodEntry> pending_;  // by (created, seq)
  int64_t seq_ = 0;
  int64_t sync_round_ = 0;
  int64_t room_version_ = 0;
  NodeChangeLog node_changes_;
  SimJobs jobs_;
  std::priority_queue<DuePod, std::vector<DuePod>, std::greater<DuePod>> due_;
  std::map<std::string, double> gpus_in_use_;
  std::map<std::string, int> gang_bound_;
  ClusterAccounts accounts_;
  std::vector<BrokenBind> broken_binds_;
  ShareSpreadTally share_spread_;
  SimDevices devices_;

  // What changed since the view was last handed out: rebuilding it from every pod each loop
  // was a fifth of the loop.
  struct ViewPatch {
    absl::flat_hash_set<std::string> pods;       // keys of pods that came, went or changed
    absl::flat_hash_set<std::string> node_pods;  // nodes whose bound pods changed
    bool nodes = true;
    bool config_maps = false;
  };
  mutable ViewPatch patch_;
  // The ConfigMaps the controller wrote (its status, with the intent kept there), by
  // namespace/name: read back after a restart, as from a real cluster.
  std::map<std::string, std::shared_ptr<const ConfigMapObject>> config_maps_;
  std::function<bool()> lingers_;
  WarmObjects warm_;  // the node-group file's warm capacity, as CapacityBuffers
  mutable std::shared_ptr<ClusterView> view_;
  mutable std::map<std::string, std::shared_ptr<const PodObject>> unschedulable_;  // by key
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_SIM_CLUSTER_H_
