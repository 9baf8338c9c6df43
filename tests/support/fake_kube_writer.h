// The one fake KubeWriter every unit test and benchmark uses: it records each call, keeps
// what the calls would have left on the cluster (taints, annotations, labels, deleted nodes,
// evictions, nominations, events, ConfigMaps), and fails the calls a test names.
#ifndef GPUA_TESTS_SUPPORT_FAKE_KUBE_WRITER_H_
#define GPUA_TESTS_SUPPORT_FAKE_KUBE_WRITER_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "autoscaler/controller/model/kube_writer.h"

namespace gpua::testing {

class FakeKubeWriter : public KubeWriter {
 public:
  struct ConfigMapWrite {
    std::map<std::string, std::string> data;
    std::map<std::string, std::string> annotations;
  };

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

  // Every call in order: "AddTaint n1 key=value:NoSchedule", "Evict ml/p0", "DeleteNode n1"...
  std::vector<std::string> calls;
  // What the calls left: taints by node (keys), annotations and labels by node, ...
  std::map<std::string, std::map<std::string, Taint>> taints;
  std::map<std::string, std::map<std::string, std::string>> annotations;
  std::map<std::string, std::map<std::string, std::string>> labels;
  std::map<std::string, bool> unschedulable;
  std::vector<std::string> deleted_nodes;
  std::vector<std::string> evicted;  // namespace/name, evictions that were granted
  std::map<std::string, std::optional<absl::Duration>> eviction_grace;  // namespace/name
  std::map<std::string, std::string> nominated;  // namespace/name -> node; erased when cleared
  std::vector<EventRecord> events;
  std::map<std::string, ConfigMapWrite> config_maps;  // namespace/name

  // A method's name ("AddTaint", "Evict", ...) -> what each call to it returns instead of
  // acting, until erased.
  std::map<std::string, absl::Status> failing;
  // namespace/name -> the Eviction API's answer for that pod (kEvicted when unset).
  std::map<std::string, EvictionResult> eviction_results;

  int CallsTo(const std::string& method) const;
  std::vector<EventRecord> EventsWithReason(const std::string& reason) const;
  bool HasTaint(const std::string& node, const std::string& key) const;

 private:
  // Records the call; the failure set for `method`, if any.
  absl::Status Call(const std::string& method, const std::string& what);
};

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_FAKE_KUBE_WRITER_H_
