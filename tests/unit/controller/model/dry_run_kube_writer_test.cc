#include "autoscaler/controller/model/dry_run_kube_writer.h"

#include <catch2/catch.hpp>
#include <vector>

#include "tests/support/fake_kube_writer.h"

namespace gpua {
namespace {

TEST_CASE("a dry run changes no node, pod or Event: it logs what it would do",
          "[controller][dry-run]") {
  testing::FakeKubeWriter cluster;
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
  testing::FakeKubeWriter cluster;
  MemoryLogSink log;
  DryRunKubeWriter writer(cluster, log);
  CHECK(writer.WriteConfigMap("kube-system", "gpu-autoscaler-dry-run-status", {{"status", "x"}}, {})
            .ok());
  CHECK(cluster.calls ==
        std::vector<std::string>{"WriteConfigMap kube-system/gpu-autoscaler-dry-run-status"});
}

}  // namespace
}  // namespace gpua
