// Decoders and paths for the informers of Pods, Nodes, PodDisruptionBudgets and DaemonSets,
// and the pod indexes: by node name ("" for pods not yet bound) and the unschedulable ones
// apart. ClusterWatch (cluster_watch.h) puts them together.
#ifndef GPUA_AUTOSCALER_KUBE_CLUSTER_INFORMERS_H_
#define GPUA_AUTOSCALER_KUBE_CLUSTER_INFORMERS_H_

#include <memory>

#include "autoscaler/kube/informer.h"
#include "kubeobjects/device_classes.h"
#include "kubeobjects/nodes.h"
#include "kubeobjects/pods.h"
#include "kubeobjects/policy.h"
#include "kubeobjects/resource_claims.h"
#include "kubeobjects/resource_slices.h"
#include "kubeobjects/workloads.h"

namespace gpua::kube {

inline constexpr char kByNode[] = "node";
inline constexpr char kUnschedulable[] = "unschedulable";

// A pod that cannot be read whole stays in the cache with its error, so it is reported,
// not silently dropped. Pods of one controller share one copy of their labels and node
// selector.
inline Informer<PodObject>::Decode PodDecoder() {
  auto interner = std::make_shared<StringMapInterner>();
  return [interner](const JsonReader& o) -> absl::StatusOr<PodObject> {
    PodObject pod = DecodePodObject(o);
    pod.spec.labels = interner->Intern(std::move(pod.spec.labels));
    pod.spec.node_selector = interner->Intern(std::move(pod.spec.node_selector));
    return pod;
  };
}

inline void AddPodIndexes(Informer<PodObject>& pods) {
  pods.AddIndex(kByNode,
                [](const PodObject& p) { return std::vector<std::string>{p.spec.node_name}; });
  pods.AddIndex(kUnschedulable, [](const PodObject& p) {
    return p.unschedulable && p.spec.node_name.empty() ? std::vector<std::string>{"true"}
                                                       : std::vector<std::string>{};
  });
  // A pod that cannot be read still says where it runs: that node is not known to be idle.
  pods.SalvageUnreadable([](const JsonReader& o) {
    return std::string(o.Field("spec").Field("nodeName").StringView().value_or(""));
  });
}

inline Informer<NodeObject>::Decode NodeDecoder() {
  return [](const JsonReader& o) { return DecodeNode(o); };
}
inline Informer<PdbObject>::Decode PdbDecoder() {
  return [](const JsonReader& o) { return DecodePdb(o); };
}
inline Informer<DaemonSetObject>::Decode DaemonSetDecoder() {
  return [](const JsonReader& o) { return DecodeDaemonSet(o); };
}

// Where the informers list and watch.
inline constexpr char kPodsPath[] = "/api/v1/pods";
inline constexpr char kNodesPath[] = "/api/v1/nodes";
inline constexpr char kPdbsPath[] = "/apis/policy/v1/poddisruptionbudgets";
inline constexpr char kDaemonSetsPath[] = "/apis/apps/v1/daemonsets";

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_KUBE_CLUSTER_INFORMERS_H_
