// Informers over the fake API server: typed caches, indexes, handlers, and objects that
// cannot be read reported without stopping the rest.
#include <catch2/catch.hpp>
#include <thread>

#include "autoscaler/kube/cluster_informers.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_api_client.h"
#include "tests/support/fake_api_server.h"

namespace gpua::kube {
namespace {

using testing::FakeApiServer;

nlohmann::json Pod(const std::string& name, const std::string& node, bool unschedulable) {
  nlohmann::json p = {
      {"metadata", {{"name", name}, {"namespace", "ml"}}},
      {"spec",
       {{"containers",
         {{{"name", "main"}, {"resources", {{"requests", {{"nvidia.com/gpu", "1"}}}}}}}}}},
      {"status", {{"phase", "Pending"}}}};
  if (!node.empty()) p["spec"]["nodeName"] = node;
  if (unschedulable) {
    p["status"]["conditions"] = {
        {{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}};
  }
  return p;
}

using testing::Eventually;

struct Running {
  std::unique_ptr<ApiClient> client;
  std::unique_ptr<Reflector> reflector;
  std::atomic<bool> stop{false};
  std::thread thread;
  RealClock clock;
  Running(const FakeApiServer& server, const std::string& path, ReflectorStore& store) {
    client = testing::ClientFor(server);
    ReflectorOptions r;
    r.watch_timeout = absl::Seconds(2);
    r.initial_backoff = absl::Milliseconds(20);
    reflector = std::make_unique<Reflector>(*client, path, store, clock, r);
    thread = std::thread([this] { reflector->Run(stop); });
  }
  ~Running() {
    stop = true;
    thread.join();
  }
};

TEST_CASE("the pod informer indexes pods by node and keeps unschedulable ones apart",
          "[kube][informer]") {
  FakeApiServer server;
  server.Upsert("pods", Pod("bound", "gpu-1", false));
  server.Upsert("pods", Pod("waiting", "", true));
  std::atomic<int> woken{0};
  Informer<PodObject>::Handlers handlers;
  handlers.on_add = [&](const Informer<PodObject>::Ptr& p) {
    if (p->unschedulable) ++woken;  // what wakes the controller early
  };
  Informer<PodObject> pods(PodDecoder(), handlers);
  AddPodIndexes(pods);
  Running run(server, "/api/v1/pods", pods);
  REQUIRE(Eventually([&] { return pods.synced() && pods.size() == 2; }));
  CHECK(pods.ByIndex(kByNode, "gpu-1").size() == 1);
  REQUIRE(pods.ByIndex(kUnschedulable, "true").size() == 1);
  CHECK(pods.ByIndex(kUnschedulable, "true")[0]->spec.name == "waiting");
  CHECK(pods.Get("ml/waiting")->spec.requests.Get("nvidia.com/gpu") == Quantity::FromUnits(1));

  server.Upsert("pods", Pod("new-waiting", "", true));
  REQUIRE(Eventually([&] { return pods.ByIndex(kUnschedulable, "true").size() == 2; }));
  CHECK(woken == 2);
  server.Upsert("pods", Pod("waiting", "gpu-2", false));  // the scheduler placed it
  REQUIRE(Eventually([&] { return pods.ByIndex(kUnschedulable, "true").size() == 1; }));
  CHECK(pods.ByIndex(kByNode, "gpu-2").size() == 1);
  server.Delete("pods", "ml", "bound");
  REQUIRE(Eventually([&] { return pods.ByIndex(kByNode, "gpu-1").empty(); }));
}

TEST_CASE("a node that cannot be read is reported by name and field, the rest are cached",
          "[kube][informer]") {
  FakeApiServer server;
  server.Upsert("nodes", {{"metadata", {{"name", "good"}, {"labels", {{"zone", "a"}}}}},
                          {"spec", {{"providerID", "sim://gpu/0"}}},
                          {"status",
                           {{"allocatable", {{"cpu", "8"}, {"nvidia.com/gpu", "1"}}},
                            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}});
  server.Upsert("nodes",
                {{"metadata", {{"name", "bad"}}}, {"spec", {{"unschedulable", "yes please"}}}});
  MemoryLogSink log;
  Informer<NodeObject> nodes(NodeDecoder(), {}, log);
  Running run(server, "/api/v1/nodes", nodes);
  REQUIRE(Eventually([&] { return nodes.synced(); }));
  CHECK(nodes.size() == 1);
  auto good = nodes.Get("good");
  REQUIRE(good != nullptr);
  CHECK(good->ready);
  CHECK(good->provider_id == "sim://gpu/0");
  CHECK(good->node.allocatable.Get("nvidia.com/gpu") == Quantity::FromUnits(1));
  CHECK(log.Contains("Node bad: spec.unschedulable"));
  // Said once: the same broken node written again is not reported again.
  server.Upsert("nodes", {{"metadata", {{"name", "bad"}, {"labels", {{"x", "1"}}}}},
                          {"spec", {{"unschedulable", "yes please"}}}});
  server.Upsert("nodes", {{"metadata", {{"name", "marker"}}}});
  REQUIRE(Eventually([&] { return nodes.Get("marker") != nullptr; }));
  CHECK(log.lines().size() == 1);
}

TEST_CASE("budgets and DaemonSets are cached typed: who a budget covers, what a node runs",
          "[kube][informer]") {
  FakeApiServer server;
  server.Upsert("poddisruptionbudgets",
                {{"metadata", {{"name", "infer"}, {"namespace", "ml"}}},
                 {"spec", {{"selector", {{"matchLabels", {{"app", "infer"}}}}}}},
                 {"status", {{"disruptionsAllowed", 1}}}});
  server.Upsert("poddisruptionbudgets", {{"metadata", {{"name", "broken"}, {"namespace", "ml"}}},
                                         {"status", {{"disruptionsAllowed", "one"}}}});
  server.Upsert(
      "daemonsets",
      {{"metadata", {{"name", "dcgm-exporter"}, {"namespace", "gpu-operator"}}},
       {"spec",
        {{"template",
          {{"metadata", {{"labels", {{"app", "dcgm"}}}}},
           {"spec",
            {{"containers",
              {{{"name", "exporter"},
                {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "128Mi"}}}}}}}}}}}}}}});
  MemoryLogSink log;
  Informer<PdbObject> pdbs(PdbDecoder(), {}, log);
  Informer<DaemonSetObject> daemonsets(DaemonSetDecoder(), {}, log);
  Running run_pdbs(server, kPdbsPath, pdbs);
  Running run_ds(server, kDaemonSetsPath, daemonsets);
  REQUIRE(Eventually([&] { return pdbs.synced() && daemonsets.synced(); }));
  REQUIRE(pdbs.size() == 1);
  auto infer = pdbs.Get("ml/infer");
  REQUIRE(infer != nullptr);
  CHECK(infer->disruptions_allowed == 1);
  PodSpec pod;
  pod.namespace_name = "ml";
  pod.labels = {{"app", "infer"}};
  CHECK(infer->Covers(pod));
  pod.namespace_name = "other";
  CHECK(!infer->Covers(pod));
  auto dcgm = daemonsets.Get("gpu-operator/dcgm-exporter");
  REQUIRE(dcgm != nullptr);
  CHECK(dcgm->pod.requests.Get("cpu") == Quantity::FromMilli(100));
  CHECK(log.Contains("PodDisruptionBudget ml/broken: status.disruptionsAllowed"));
}

}  // namespace
}  // namespace gpua::kube

namespace gpua::kube {
namespace {

TEST_CASE("a relist tells the handlers only what changed", "[kube][informer]") {
  int added = 0, updated = 0, deleted = 0;
  Informer<PodObject>::Handlers handlers;
  handlers.on_add = [&](const auto&) { ++added; };
  handlers.on_update = [&](const auto&, const auto&) { ++updated; };
  handlers.on_delete = [&](const auto&) { ++deleted; };
  MemoryLogSink quiet;
  Informer<PodObject> pods(PodDecoder(), handlers, quiet);
  const auto pod = [](const std::string& name, const std::string& rv) {
    nlohmann::json p = Pod(name, "", true);
    p["metadata"]["resourceVersion"] = rv;
    return p;
  };
  pods.Replace({pod("a", "1"), pod("b", "2")});
  CHECK(added == 2);
  pods.Replace({pod("a", "1"), pod("b", "3"), pod("c", "4")});  // as after a 410
  CHECK(added == 3);
  CHECK(updated == 1);
  pods.Replace({pod("a", "1")});
  CHECK(deleted == 2);
  CHECK(updated == 1);
  CHECK(pods.size() == 1);
}

}  // namespace
}  // namespace gpua::kube
