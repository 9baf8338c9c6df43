// The controller's hands on the cluster (docs/ARCHITECTURE.md's KubeWriter): node taints,
// cordons, annotations and deletion, pod evictions that respect PodDisruptionBudgets, the
// node a pending pod is nominated to, Events, and the status ConfigMap. The controller and the
// simulator act only through this.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_KUBE_WRITER_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_KUBE_WRITER_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "estimator/taints.h"

namespace gpua {

enum class EvictionResult {
  kEvicted,
  kBlockedByBudget,  // 429: a PodDisruptionBudget forbids it now; try again later
  kGone,             // 404: the pod is already gone
};

struct ObjectRef {
  std::string kind;  // Pod, Node, ConfigMap
  std::string namespace_name;
  std::string name;
  std::string uid;
};

struct EventRecord {
  ObjectRef object;
  std::string type = "Normal";  // Normal | Warning
  std::string reason;           // TriggeredScaleUp, NotTriggerScaleUp, ScaleDown, ...
  std::string message;
};

class KubeWriter {
 public:
  virtual ~KubeWriter() = default;
  // Adds (or replaces the value of) a taint, keeping the node's other taints.
  virtual absl::Status AddTaint(const std::string& node, const Taint& taint) = 0;
  virtual absl::Status RemoveTaint(const std::string& node, const std::string& key) = 0;
  virtual absl::Status SetUnschedulable(const std::string& node, bool unschedulable) = 0;
  // Sets an annotation, or removes it when `value` is empty.
  virtual absl::Status Annotate(const std::string& node, const std::string& key,
                                std::optional<std::string> value) = 0;
  // Sets a label (a MIG layout for the GPU operator, say), or removes it when `value` is
  // empty.
  virtual absl::Status Label(const std::string& node, const std::string& key,
                             std::optional<std::string> value) = 0;
  // A node already gone is not an error.
  virtual absl::Status DeleteNode(const std::string& node) = 0;
  // Asks the Eviction API to evict the pod (PodDisruptionBudgets decide), with `grace` as
  // its grace period when set (else its own terminationGracePeriodSeconds).
  virtual absl::StatusOr<EvictionResult> Evict(const std::string& namespace_name,
                                               const std::string& pod,
                                               std::optional<absl::Duration> grace) = 0;
  // Sets (or clears, when `node` is empty) a pending pod's status.nominatedNodeName: the node
  // an increase was for, now registered. kube-scheduler tries a pod's nominated node first
  // and keeps its room for it from pods of no higher priority (KEP-1923; KEP-5278 makes
  // external components setting it official), so another pod does not take that node.
  virtual absl::Status Nominate(const std::string& namespace_name, const std::string& pod,
                                std::optional<std::string> node) = 0;
  // Repeats of one event (same object, reason and message) raise its count instead of
  // adding Events, so a busy cluster is not flooded.
  virtual absl::Status RecordEvent(const EventRecord& event) = 0;
  // Creates or replaces the data of a ConfigMap, and sets these annotations on it.
  virtual absl::Status WriteConfigMap(const std::string& namespace_name, const std::string& name,
                                      const std::map<std::string, std::string>& data,
                                      const std::map<std::string, std::string>& annotations) = 0;
  // Sets these annotations on a ConfigMap and leaves its data and other annotations as they
  // are; creates it, with no data, when there is none.
  virtual absl::Status AnnotateConfigMap(const std::string& namespace_name, const std::string& name,
                                         const std::map<std::string, std::string>& annotations) = 0;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_KUBE_WRITER_H_
