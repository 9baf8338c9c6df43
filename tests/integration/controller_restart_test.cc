// Restarts lose nothing: everything scale-down decides is written on the nodes (the
// DeletionCandidate and ToBeDeleted taints, the removal-reason annotation) before it is acted
// on, so a new controller process finishes a removal begun by the last one, or undoes it, and
// never deletes a node on what it cannot see.
#include <catch2/catch.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/integration/controller_harness.h"

namespace gpua::testing {
namespace {

// One H100 node running two small pods that fit on the cpu nodes, whose own pods keep them
// busy.
constexpr char kGroups[] = R"(
nodeGroups:
- id: h100
  minSize: 0
  maxSize: 4
  targetSize: 1
  pricePerHour: 98.32
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
  options: {scaleDownUnneededTime: 5m}
- id: cpu
  minSize: 0
  maxSize: 4
  targetSize: 2
  pricePerHour: 2.1
  template:
    status:
      allocatable: {cpu: "64", memory: 256Gi, pods: "110"}
  options: {scaleDownUnneededTime: 5m}
)";

bool HasOurTaint(ControllerHarness& h, const std::string& node) {
  for (const std::string& t : h.Taints(node)) {
    if (absl::StartsWith(t, "ToBeDeletedByClusterAutoscaler=") ||
        absl::StartsWith(t, "DeletionCandidateOfClusterAutoscaler=")) {
      return true;
    }
  }
  return false;
}

void AddBusyCpuNodesAndTail(ControllerHarness& h) {
  h.AddRunningPod("api-0", "cpu-0", {{"cpu", "40"}}, "ReplicaSet", "api");
  h.AddRunningPod("api-1", "cpu-1", {{"cpu", "40"}}, "ReplicaSet", "api");
  h.AddRunningPod("tail-0", "h100-0", {{"cpu", "4"}}, "ReplicaSet", "tail",
                  nlohmann::json::object(), {{"terminationGracePeriodSeconds", 120}});
}

// Steps a minute at a time until the H100 node's removal has begun.
void StepUntilRemovalBegins(ControllerHarness& h) {
  for (int i = 0; i < 8; ++i) {
    if (h.Step(absl::Minutes(1)).removals.started == 1) return;
  }
  FAIL("the removal of h100-0 never began");
}

bool StepUntil(ControllerHarness& h, int steps, absl::Duration each,
               const std::function<bool()>& done) {
  for (int i = 0; i < steps && !done(); ++i) h.Step(each);
  return done();
}

TEST_CASE("the controller killed mid-drain and restarted finishes the removal",
          "[controller][restart]") {
  ControllerHarness h(kGroups);
  AddBusyCpuNodesAndTail(h);
  h.Step();
  StepUntilRemovalBegins(h);
  REQUIRE(h.server.Get("pods", "ml", "tail-0")->at("metadata").contains("deletionTimestamp"));
  h.RestartController();  // the pod has two minutes to stop; the new process sees it out
  REQUIRE(StepUntil(h, 10, absl::Seconds(30), [&] { return h.TargetSize("h100") == 0; }));
  REQUIRE(StepUntil(h, 4, absl::Seconds(30), [&] { return !h.NodeExists("h100-0"); }));
  CHECK(h.TargetSize("cpu") == 2);
  for (const char* node : {"cpu-0", "cpu-1"}) CHECK_FALSE(HasOurTaint(h, node));
}

TEST_CASE(
    "the controller killed mid-drain and restarted rolls back a drain that cannot finish, "
    "leaving none of its taints",
    "[controller][restart]") {
  ControllerHarness h(kGroups);
  AddBusyCpuNodesAndTail(h);
  h.Step();
  StepUntilRemovalBegins(h);
  // A pod the scheduler bound just before the taint landed, under a budget that allows no
  // disruption: the drain cannot finish.
  h.AddRunningPod("db-0", "h100-0", {{"cpu", "2"}}, "StatefulSet", "db");
  h.AddPdb("db", "db", 0);
  h.RestartController();
  // --max-graceful-termination-sec (10m) and --max-pod-eviction-time (2m) after it began.
  REQUIRE(StepUntil(h, 16, absl::Minutes(1), [&] { return !HasOurTaint(h, "h100-0"); }));
  CHECK(h.TargetSize("h100") == 1);
  CHECK(h.NodeExists("h100-0"));
  auto node = h.server.Get("nodes", "", "h100-0");
  CHECK_FALSE(node->at("metadata")
                  .value("annotations", nlohmann::json::object())
                  .contains("gpu-autoscaler.io/removal-reason"));
  const std::vector<std::string> events = h.EventsFor("h100-0");
  CHECK(std::any_of(events.begin(), events.end(),
                    [](const std::string& e) { return absl::StartsWith(e, "ScaleDownFailed: "); }));
  // It is not taken up again while the budget holds.
  for (int i = 0; i < 6; ++i) h.Step(absl::Minutes(1));
  CHECK_FALSE(HasOurTaint(h, "h100-0"));
  CHECK(h.TargetSize("h100") == 1);
}

TEST_CASE("on start, the marks of a previous run come off nodes that are no longer unneeded",
          "[controller][restart]") {
  ControllerHarness h(kGroups);
  h.kubelet->Sync();
  // Left by a previous run: cpu-0 was unneeded then, and is busy now.
  auto node = *h.server.Get("nodes", "", "cpu-0");
  node["spec"]["taints"].push_back({{"key", "DeletionCandidateOfClusterAutoscaler"},
                                    {"value", "1700000000"},
                                    {"effect", "PreferNoSchedule"}});
  h.server.Upsert("nodes", node);
  h.AddRunningPod("api-0", "cpu-0", {{"cpu", "40"}}, "ReplicaSet", "api");
  h.AddRunningPod("api-1", "cpu-1", {{"cpu", "40"}}, "ReplicaSet", "api");
  h.AddRunningPod("train-0", "h100-0", {{"nvidia.com/gpu", "8"}}, "Job", "train");
  h.Step();
  h.Step();
  CHECK_FALSE(HasOurTaint(h, "cpu-0"));
}

TEST_CASE("a removal begun by a previous run waits while the provider cannot list the group",
          "[controller][restart]") {
  ControllerHarness h(kGroups);
  AddBusyCpuNodesAndTail(h);
  h.Step();
  StepUntilRemovalBegins(h);
  h.RestartController();
  h.cloud.FailNextCalls(absl::UnavailableError("cloud API down"), 1000);
  for (int i = 0; i < 4; ++i) h.Step(absl::Minutes(1));
  h.cloud.FailNextCalls(absl::OkStatus(), 0);
  CHECK(h.NodeExists("h100-0"));
  // The provider answers again: the removal goes on.
  REQUIRE(StepUntil(h, 6, absl::Seconds(30), [&] { return h.TargetSize("h100") == 0; }));
}

}  // namespace
}  // namespace gpua::testing
