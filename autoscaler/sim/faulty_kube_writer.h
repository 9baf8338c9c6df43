// The controller's writes to the simulated cluster, through a fault soak: each kind of write
// fails now and then as an API server fails (500, 429 with Retry-After, a timeout after
// which the write may or may not have been made), and nothing gets through once the
// controller process is dead.
#ifndef GPUA_AUTOSCALER_SIM_FAULTY_KUBE_WRITER_H_
#define GPUA_AUTOSCALER_SIM_FAULTY_KUBE_WRITER_H_

#include <functional>
#include <string>

#include "autoscaler/controller/model/kube_writer.h"
#include "autoscaler/sim/fault_injector.h"

namespace gpua::sim {

// Hears of the controller's writes as it tries them, before they are made or fail.
class WriteObserver {
 public:
  virtual ~WriteObserver() = default;
  // A write that takes our marks off a node, or deletes it.
  virtual void TriedNode(const std::string& node) = 0;
  virtual void Evicting(const std::string& namespace_name, const std::string& pod) = 0;
};

class FaultyKubeWriter : public KubeWriter {
 public:
  FaultyKubeWriter(KubeWriter& inner, FaultInjector& faults, WriteObserver& observer)
      : inner_(inner), faults_(faults), observer_(observer) {}

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

 private:
  // `write` made, failed, or made and reported failed, as the dice say.
  absl::Status Write(FaultKind kind, const std::string& what,
                     const std::function<absl::Status()>& write);

  KubeWriter& inner_;
  FaultInjector& faults_;
  WriteObserver& observer_;
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_FAULTY_KUBE_WRITER_H_
