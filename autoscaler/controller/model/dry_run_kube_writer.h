// A KubeWriter for --dry-run: the controller decides as ever, but no node, pod or Event in
// the cluster changes. What it would have done goes to the log instead; only the status
// ConfigMap is written (the dry run's report, under a name of its own), so a dry run can
// stand beside the autoscaler that acts, with a read-only ClusterRole.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_DRY_RUN_KUBE_WRITER_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_DRY_RUN_KUBE_WRITER_H_

#include "autoscaler/controller/model/kube_writer.h"
#include "base/log.h"

namespace gpua {

class DryRunKubeWriter : public KubeWriter {
 public:
  // `status_writer` receives the status ConfigMap writes, and nothing else.
  DryRunKubeWriter(KubeWriter& status_writer, LogSink& log)
      : status_writer_(status_writer), log_(log) {}

  absl::Status AddTaint(const std::string& node, const Taint& taint) override;
  absl::Status RemoveTaint(const std::string& node, const std::string& key) override;
  absl::Status SetUnschedulable(const std::string& node, bool unschedulable) override;
  absl::Status Annotate(const std::string& node, const std::string& key,
                        std::optional<std::string> value) override;
  absl::Status Label(const std::string& node, const std::string& key,
                     std::optional<std::string> value) override;
  absl::Status DeleteNode(const std::string& node) override;
  // Says the pod was evicted, so a drain goes on as it would; the pod stays, and the drain
  // is undone when its time runs out.
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

 private:
  absl::Status Would(absl::string_view what);

  KubeWriter& status_writer_;
  LogSink& log_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_DRY_RUN_KUBE_WRITER_H_
