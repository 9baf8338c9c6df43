#include "autoscaler/controller/dry_run_kube_writer.h"

#include <catch2/catch.hpp>
#include <vector>

namespace gpua {
namespace {

// Records every call that reaches it: the cluster, as far as the dry run can touch it.
class RecordingWriter : public KubeWriter {
 public:
  std::vector<std::string> calls;

  absl::Status AddTaint(const std::string& node, const Taint&) override {
    return Record("AddTaint " + node);
  }
  absl::Status RemoveTaint(const std::string& node, const std::string&) override {
    return Record("RemoveTaint " + node);
  }
  absl::Status SetUnschedulable(const std::string& node, bool) override {
    return Record("SetUnschedulable " + node);
  }
  absl::Status Annotate(const std::string& node, const std::string&,
                        std::optional<std::string>) override {
    return Record("Annotate " + node);
  }
  absl::Status Label(const std::string& node, const std::string&,
                     std::optional<std::string>) override {
    return Record("Label " + node);
  }
  absl::Status DeleteNode(const std::string& node) override { return Record("DeleteNode " + node); }
  absl::StatusOr<EvictionResult> Evict(const std::string&, const std::string& pod,
                                       std::optional<absl::Duration>) override {
    calls.push_back("Evict " + pod);
    return EvictionResult::kEvicted;
  }
  absl::Status Nominate(const std::string& ns, const std::string& pod,
                        std::optional<std::string>) override {
    return Record("Nominate " + ns + "/" + pod);
  }
  absl::Status RecordEvent(const EventRecord& e) override { return Record("Event " + e.reason); }
  absl::Status WriteConfigMap(const std::string& ns, const std::string& name,
                              const std::map<std::string, std::string>&,
                              const std::map<std::string, std::string>&) override {
    return Record("ConfigMap " + ns + "/" + name);
  }

 private:
  absl::Status Record(std::string call) {
    calls.push_back(std::move(call));
    return absl::OkStatus();
  }
};

TEST_CASE("a dry run changes no node, pod or Event: it logs what it would do",
          "[controller][dry-run]") {
  RecordingWriter cluster;
  MemoryLogSink log;
  DryRunKubeWriter writer(cluster, log);

  CHECK(writer
            .AddTaint("gpu-1",
                      {"ToBeDeletedByClusterAutoscaler", "1700000000", TaintEffect::kNoSchedule})
            .ok());
  CHECK(writer.RemoveTaint("gpu-1", "DeletionCandidateOfClusterAutoscaler").ok());
  CHECK(writer.SetUnschedulable("gpu-1", true).ok());
  CHECK(writer.Annotate("gpu-1", "gpu-autoscaler.io/removal-reason", "idle").ok());
  CHECK(writer.Label("gpu-2", "nvidia.com/mig.config", std::nullopt).ok());
  CHECK(writer.DeleteNode("gpu-1").ok());
  absl::StatusOr<EvictionResult> evicted = writer.Evict("ml", "train-0", absl::Seconds(30));
  REQUIRE(evicted.ok());
  CHECK(*evicted == EvictionResult::kEvicted);
  CHECK(writer.Nominate("ml", "train-1", "gpu-3").ok());
  CHECK(writer
            .RecordEvent({{"Pod", "ml", "train-0", "uid-1"},
                          "Normal",
                          "TriggeredScaleUp",
                          "pod triggered scale-up: [{h100 0->1 (max: 4)}]"})
            .ok());

  CHECK(cluster.calls.empty());
  CHECK(log.Contains(
      "Dry run: would taint node gpu-1 with ToBeDeletedByClusterAutoscaler=1700000000:NoSchedule"));
  CHECK(log.Contains("Dry run: would remove taint DeletionCandidateOfClusterAutoscaler from node"));
  CHECK(log.Contains("Dry run: would cordon node gpu-1"));
  CHECK(log.Contains("would annotate node gpu-1: gpu-autoscaler.io/removal-reason=idle"));
  CHECK(log.Contains("would label node gpu-2: nvidia.com/mig.config removed"));
  CHECK(log.Contains("Dry run: would delete node object gpu-1"));
  CHECK(log.Contains("Dry run: would evict pod ml/train-0"));
  CHECK(log.Contains("Dry run: would set pod ml/train-1's nominatedNodeName=gpu-3"));
  CHECK(
      log.Contains("would record event Normal TriggeredScaleUp on Pod ml/train-0: pod "
                   "triggered scale-up: [{h100 0->1 (max: 4)}]"));
}

TEST_CASE("a dry run still writes its status ConfigMap, its report", "[controller][dry-run]") {
  RecordingWriter cluster;
  MemoryLogSink log;
  DryRunKubeWriter writer(cluster, log);
  CHECK(writer.WriteConfigMap("kube-system", "gpu-autoscaler-dry-run-status", {{"status", "x"}}, {})
            .ok());
  CHECK(cluster.calls ==
        std::vector<std::string>{"ConfigMap kube-system/gpu-autoscaler-dry-run-status"});
}

}  // namespace
}  // namespace gpua
