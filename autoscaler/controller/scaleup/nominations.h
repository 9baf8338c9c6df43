// Which pending pods were promised which node on its way, as Karpenter nominates a pod to a
// NodeClaim. Each increase records the pods each of its new nodes is for; each loop places
// those pods on their own node before any other pod, so a pod that accepts any GPU never
// takes the room an increase made for a pod that accepts one, and the same pods are never
// asked for twice. A nomination ends when its pod is no longer pending (it bound, or went),
// when its node failed or left, when its node registered with its GPUs and the pod still
// does not fit (the planner says why), or when its group's max-node-provision-time passed.
//
// Once its node has registered, a nominated pod carries it in status.nominatedNodeName, which
// kube-scheduler honours: it tries that node first and keeps its room for the pod.
//
// Kept in memory, handed to the planner and taken back each loop. A restart loses nothing:
// pods whose nominatedNodeName names a node of a group still starting are nominated there
// again, and the planner places the other pending pods on the nodes on their way most
// constrained first, nominating the pods those nodes hold.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEUP_NOMINATIONS_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEUP_NOMINATIONS_H_

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "base/log.h"

namespace gpua {

// A node a pod may be nominated to: a registered node of the group, or the group's
// `upcoming`-th node still to register.
struct NodeSlot {
  int group = -1;       // index into ClusterState::groups
  int state_node = -1;  // index into ClusterState::nodes
  int upcoming = -1;
  bool operator==(const NodeSlot& o) const {
    return group == o.group && state_node == o.state_node && upcoming == o.upcoming;
  }
};

class Nominations {
 public:
  // Ends what no longer holds (each end logged) and finds each nominated node's slot in
  // `state`: a node already matched keeps its name; the others take, oldest first, a node of
  // their group that registered since and is not yet started (or started since), else one of
  // the group's upcoming slots in order. `unschedulable`: the pods still pending; those not
  // nominated here whose nominatedNodeName names a starting node of a group are adopted.
  void Update(const ClusterState& state, const std::vector<PodPtr>& unschedulable, absl::Time now,
              LogSink& log);

  // The slot of the node pod `uid` is nominated to this loop, if any.
  const NodeSlot* SlotOf(const std::string& uid) const;
  // Whether that node is still on its way (not registered, or GPUs not yet advertised).
  bool OnItsWay(const std::string& uid, const ClusterState& state) const;
  // The pod's nomination stands, but its group's answers failed this loop, so where its node
  // is cannot be told: the pod waits for the next loop rather than get a second node.
  bool Held(const std::string& uid) const;

  // The planner placed `pod` on the node in `slot`: nominated there (kept if it was).
  void Place(const PodSpec& pod, const NodeSlot& slot, const ClusterState& state, absl::Time now);
  // The planner found that `pod`'s node no longer holds it, and why.
  void Miss(const PodSpec& pod, absl::string_view why, LogSink& log);
  // An increase of `group`: the pods each new node is for.
  void Increase(const std::string& group, const std::vector<std::vector<PodPtr>>& nodes,
                absl::Time now);

  size_t size() const { return of_pod_.size(); }

  // A pod whose nomination to a registered node ended: its nominatedNodeName, if it still
  // names that node, is to be cleared.
  struct Released {
    std::string namespace_name;
    std::string name;
    std::string node;
  };
  // What ended since the last call.
  std::vector<Released> TakeReleased();

 private:
  struct Planned {
    std::string group;
    std::string node;  // the registered node it became; empty while not registered
    absl::Time since;
    absl::flat_hash_map<std::string, std::pair<std::string, std::string>> pods;  // uid -> ns, name
    NodeSlot slot;  // this loop's; group -1 until Update resolves it
  };
  // Pods that name a starting node of a group in nominatedNodeName, and are not nominated.
  void Adopt(const ClusterState& state, const std::vector<PodPtr>& unschedulable, absl::Time now);
  void Release(const Planned& p, const std::string& uid);
  using SlotKey = std::tuple<int, int, int>;
  static SlotKey KeyOf(const NodeSlot& s) { return {s.group, s.state_node, s.upcoming}; }
  void End(uint64_t id, absl::string_view why, LogSink& log);
  void Drop(const std::string& uid);
  void Join(uint64_t id, const PodSpec& pod);

  std::map<uint64_t, Planned> planned_;  // by id: oldest first
  absl::flat_hash_map<std::string, uint64_t> of_pod_;
  absl::flat_hash_map<SlotKey, uint64_t> of_slot_;  // this loop's
  absl::flat_hash_set<uint64_t> held_;              // this loop's: groups that did not answer
  uint64_t next_id_ = 1;
  std::vector<Released> released_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEUP_NOMINATIONS_H_
