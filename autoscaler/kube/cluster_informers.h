// The informers the controller reads Pods, Nodes, PodDisruptionBudgets and DaemonSets
// through, with the pod indexes: by node name ("" for pods not yet bound) and the
// unschedulable ones apart.
#ifndef GPUA_AUTOSCALER_KUBE_CLUSTER_INFORMERS_H_
#define GPUA_AUTOSCALER_KUBE_CLUSTER_INFORMERS_H_

#include "autoscaler/kube/informer.h"
#include "cloudproviders/kube_objects.h"

namespace gpua::kube {

inline constexpr char kByNode[] = "node";
inline constexpr char kUnschedulable[] = "unschedulable";

// A pod that cannot be read whole stays in the cache with its error, so it is reported,
// not silently dropped.
inline Informer<PodObject>::Decode PodDecoder() {
  return [](const nlohmann::json& o) -> absl::StatusOr<PodObject> { return DecodePodObject(o); };
}

inline void AddPodIndexes(Informer<PodObject>& pods) {
  pods.AddIndex(kByNode,
                [](const PodObject& p) { return std::vector<std::string>{p.spec.node_name}; });
  pods.AddIndex(kUnschedulable, [](const PodObject& p) {
    return p.unschedulable && p.spec.node_name.empty() ? std::vector<std::string>{"true"}
                                                       : std::vector<std::string>{};
  });
}

inline Informer<NodeObject>::Decode NodeDecoder() { return DecodeNode; }
inline Informer<PdbObject>::Decode PdbDecoder() { return DecodePdb; }
inline Informer<DaemonSetObject>::Decode DaemonSetDecoder() { return DecodeDaemonSet; }

// Where the informers list and watch.
inline constexpr char kPodsPath[] = "/api/v1/pods";
inline constexpr char kNodesPath[] = "/api/v1/nodes";
inline constexpr char kPdbsPath[] = "/apis/policy/v1/poddisruptionbudgets";
inline constexpr char kDaemonSetsPath[] = "/apis/apps/v1/daemonsets";

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_KUBE_CLUSTER_INFORMERS_H_
