// Writes against the fake API server: taints that keep the others and survive a conflict,
// cordons, annotations, deletes, evictions under PodDisruptionBudgets, aggregated Events and
// the status ConfigMap.
#include <catch2/catch.hpp>

#include "autoscaler/kube/api_kube_writer.h"
#include "tests/support/fake_api_client.h"
#include "tests/support/fake_api_server.h"

namespace gpua::kube {
namespace {

using testing::FakeApiServer;

struct Fixture {
  FakeApiServer server;
  std::unique_ptr<ApiClient> client;
  std::unique_ptr<ApiKubeWriter> writer;
  Fixture() {
    client = testing::ClientFor(server);
    writer = std::make_unique<ApiKubeWriter>(*client, testing::TestClock());
    server.Upsert(
        "nodes",
        {{"metadata", {{"name", "gpu-1"}}},
         {"spec",
          {{"taints",
            {{{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}}}}}}});
  }
  nlohmann::json Get(const std::string& path) {
    auto res = client->Request("GET", path);
    REQUIRE(res.ok());
    return nlohmann::json::parse(res->body);
  }
  nlohmann::json Node() { return Get("/api/v1/nodes/gpu-1"); }
};

TEST_CASE("a taint is added beside the others, even when someone wrote the node meanwhile",
          "[kube][writer]") {
  Fixture f;
  f.server.ConflictNextUpdate();
  REQUIRE(f.writer
              ->AddTaint("gpu-1", {"gpu-autoscaler.io/to-be-deleted", "1700000000",
                                   TaintEffect::kNoSchedule})
              .ok());
  nlohmann::json taints = f.Node()["spec"]["taints"];
  REQUIRE(taints.size() == 2);
  CHECK(taints[0]["key"] == "nvidia.com/gpu");
  CHECK(taints[1]["key"] == "gpu-autoscaler.io/to-be-deleted");
  REQUIRE(f.writer->RemoveTaint("gpu-1", "gpu-autoscaler.io/to-be-deleted").ok());
  CHECK(f.Node()["spec"]["taints"].size() == 1);
  CHECK(absl::IsNotFound(f.writer->AddTaint("ghost", {"k", "", TaintEffect::kNoSchedule})));
}

TEST_CASE("cordon, annotations, labels and delete", "[kube][writer]") {
  Fixture f;
  REQUIRE(f.writer->SetUnschedulable("gpu-1", true).ok());
  CHECK(f.Node()["spec"]["unschedulable"] == true);
  REQUIRE(f.writer->Annotate("gpu-1", "gpu-autoscaler.io/idle-since", "2026-11-30T10:00:00Z").ok());
  CHECK(f.Node()["metadata"]["annotations"]["gpu-autoscaler.io/idle-since"] ==
        "2026-11-30T10:00:00Z");
  REQUIRE(f.writer->Annotate("gpu-1", "gpu-autoscaler.io/idle-since", std::nullopt).ok());
  CHECK(!f.Node()["metadata"]
             .value("annotations", nlohmann::json::object())
             .contains("gpu-autoscaler.io/idle-since"));
  CHECK(f.Node()["spec"]["taints"].size() == 1);  // a merge patch leaves the rest alone
  REQUIRE(f.writer->Label("gpu-1", "nvidia.com/mig.config", "all-1g.10gb").ok());
  CHECK(f.Node()["metadata"]["labels"]["nvidia.com/mig.config"] == "all-1g.10gb");
  REQUIRE(f.writer->Label("gpu-1", "nvidia.com/mig.config", std::nullopt).ok());
  CHECK(!f.Node()["metadata"]
             .value("labels", nlohmann::json::object())
             .contains("nvidia.com/mig.config"));
  REQUIRE(f.writer->DeleteNode("gpu-1").ok());
  CHECK(f.writer->DeleteNode("gpu-1").ok());  // already gone is fine
}

TEST_CASE(
    "a nomination is written to a pending pod, and is moot once the scheduler bound the pod, "
    "which the API server refuses to nominate",
    "[kube][writer]") {
  Fixture f;
  f.server.Upsert("pods", {{"metadata", {{"name", "infer-0"}, {"namespace", "ml"}}}});
  f.server.Upsert("pods", {{"metadata", {{"name", "infer-1"}, {"namespace", "ml"}}},
                           {"spec", {{"nodeName", "gpu-2"}}}});
  REQUIRE(f.writer->Nominate("ml", "infer-0", "gpu-1").ok());
  CHECK(f.Get("/api/v1/namespaces/ml/pods/infer-0")["status"]["nominatedNodeName"] == "gpu-1");
  // Bound between the loop's view and the write: not an error, and nothing is written.
  REQUIRE(f.writer->Nominate("ml", "infer-1", "gpu-1").ok());
  CHECK_FALSE(f.Get("/api/v1/namespaces/ml/pods/infer-1").contains("status"));
  // Any other refusal still is one.
  f.server.FailNext(1, 422);
  CHECK_FALSE(f.writer->Nominate("ml", "infer-0", "gpu-3").ok());
  CHECK(absl::IsNotFound(f.writer->Nominate("ml", "ghost", "gpu-1")));
}

TEST_CASE("evictions respect PodDisruptionBudgets", "[kube][writer]") {
  Fixture f;
  const auto pod = [](const std::string& name, const std::string& app) {
    return nlohmann::json{
        {"metadata", {{"name", name}, {"namespace", "ml"}, {"labels", {{"app", app}}}}}};
  };
  f.server.Upsert("pods", pod("infer-0", "infer"));
  f.server.Upsert("pods", pod("infer-1", "infer"));
  f.server.Upsert("pods", pod("train-0", "train"));
  f.server.Upsert("poddisruptionbudgets",
                  {{"metadata", {{"name", "infer"}, {"namespace", "ml"}}},
                   {"spec", {{"selector", {{"matchLabels", {{"app", "infer"}}}}}}},
                   {"status", {{"disruptionsAllowed", 1}}}});
  CHECK(*f.writer->Evict("ml", "infer-0", std::nullopt) == EvictionResult::kEvicted);
  CHECK(*f.writer->Evict("ml", "infer-1", std::nullopt) == EvictionResult::kBlockedByBudget);
  CHECK(*f.writer->Evict("ml", "infer-0", std::nullopt) == EvictionResult::kGone);
  f.server.Upsert("poddisruptionbudgets",
                  {{"metadata", {{"name", "all"}, {"namespace", "ml"}}},
                   {"spec", {{"selector", {{"matchLabels", nlohmann::json::object()}}}}},
                   {"status", {{"disruptionsAllowed", 5}}}});
  auto misconfigured = f.writer->Evict("ml", "infer-1", std::nullopt);
  REQUIRE(!misconfigured.ok());
  CHECK_THAT(std::string(misconfigured.status().message()),
             Catch::Contains("more than one PodDisruptionBudget"));
}

TEST_CASE("repeated Events are counted on one Event", "[kube][writer]") {
  Fixture f;
  EventRecord e{{"Pod", "ml", "train-0", "uid-1"},
                "Normal",
                "NotTriggerScaleUp",
                "pod didn't trigger scale-up: 2 node(s) had untolerated taint"};
  for (int i = 0; i < 3; ++i) REQUIRE(f.writer->RecordEvent(e).ok());
  f.writer->Flush();
  nlohmann::json events = f.Get("/api/v1/namespaces/ml/events")["items"];
  REQUIRE(events.size() == 1);
  CHECK(events[0]["count"] == 3);
  CHECK(events[0]["involvedObject"]["name"] == "train-0");
  CHECK(events[0]["source"]["component"] == "gpu-autoscaler");
  e.reason = "TriggeredScaleUp";
  REQUIRE(f.writer->RecordEvent(e).ok());
  f.writer->Flush();
  CHECK(f.Get("/api/v1/namespaces/ml/events")["items"].size() == 2);
}

TEST_CASE("the status ConfigMap is created, then updated, with its annotation", "[kube][writer]") {
  Fixture f;
  const std::string annotation = "cluster-autoscaler.kubernetes.io/last-updated";
  REQUIRE(f.writer
              ->WriteConfigMap("kube-system", "gpu-autoscaler-status", {{"status", "v1"}},
                               {{annotation, "2026-12-01 10:00:00 +0000 UTC"}})
              .ok());
  REQUIRE(f.writer
              ->WriteConfigMap("kube-system", "gpu-autoscaler-status", {{"status", "v2"}},
                               {{annotation, "2026-12-01 10:00:10 +0000 UTC"}})
              .ok());
  nlohmann::json cm = f.Get("/api/v1/namespaces/kube-system/configmaps/gpu-autoscaler-status");
  CHECK(cm["data"]["status"] == "v2");
  CHECK(cm["metadata"]["annotations"][annotation] == "2026-12-01 10:00:10 +0000 UTC");
}

}  // namespace
}  // namespace gpua::kube
