// ClusterWatch over the fake API server: every kind the controller reads, one view per
// loop in which bound and unschedulable pods agree, pods matched to the controllers that
// would recreate them, and objects that cannot be read reported while the rest go on.
#include "autoscaler/kube/cluster_watch.h"

#include <catch2/catch.hpp>
#include <mutex>
#include <thread>

#include "tests/support/eventually.h"
#include "tests/support/fake_api_client.h"
#include "tests/support/fake_api_server.h"

namespace gpua::kube {
namespace {

using testing::FakeApiServer;

nlohmann::json OwnedPod(const std::string& name, const std::string& node,
                        const std::string& owner_kind, const std::string& owner,
                        const std::string& owner_uid) {
  nlohmann::json p = {{"metadata", {{"name", name}, {"namespace", "ml"}, {"uid", "pod-" + name}}},
                      {"spec", {{"containers", {{{"name", "main"}}}}}},
                      {"status", {{"phase", node.empty() ? "Pending" : "Running"}}}};
  if (!node.empty()) p["spec"]["nodeName"] = node;
  if (node.empty()) {
    p["status"]["conditions"] = {
        {{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}};
  }
  if (!owner.empty()) {
    p["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"},
                                         {"kind", owner_kind},
                                         {"name", owner},
                                         {"uid", owner_uid},
                                         {"controller", true}}};
  }
  return p;
}

nlohmann::json Workload(const std::string& name, const std::string& uid, nlohmann::json spec) {
  return {{"metadata", {{"name", name}, {"namespace", "ml"}, {"uid", uid}}}, {"spec", spec}};
}

nlohmann::json Node(const std::string& name) {
  return {{"metadata", {{"name", name}}},
          {"status", {{"allocatable", {{"cpu", "8"}, {"nvidia.com/gpu", "1"}}}}}};
}

using testing::Eventually;

TEST_CASE("a cluster view holds every kind and knows which pods a controller would recreate",
          "[kube][cluster-watch]") {
  FakeApiServer server;
  server.Upsert("nodes", Node("gpu-1"));
  server.Upsert("replicasets", Workload("web-7d9f", "rs-uid", {{"replicas", 3}}));
  server.Upsert("statefulsets", Workload("db", "ss-uid", {}));
  server.Upsert("jobs", Workload("train", "job-uid", {{"parallelism", 4}}));
  server.Upsert("statefulsets", Workload("broken", "ss-2", {{"replicas", "three"}}));
  server.Upsert("pods", OwnedPod("web-a", "gpu-1", "ReplicaSet", "web-7d9f", "rs-uid"));
  server.Upsert("pods", OwnedPod("db-0", "gpu-1", "StatefulSet", "db", "ss-uid"));
  server.Upsert("pods", OwnedPod("train-x", "", "Job", "train", "job-uid"));
  // Its ReplicaSet was deleted and made again under the same name: not its controller.
  server.Upsert("pods", OwnedPod("stale", "gpu-1", "ReplicaSet", "web-7d9f", "old-uid"));
  server.Upsert("pods", OwnedPod("bare", "gpu-1", "", "", ""));

  std::unique_ptr<ApiClient> client = testing::ClientFor(server);
  MemoryLogSink log;
  RealClock clock;
  ClusterWatchOptions options;
  options.reflector.watch_timeout = absl::Seconds(2);
  options.reflector.initial_backoff = absl::Milliseconds(20);
  options.reflector.log = &log;
  ClusterWatch cluster(*client, clock, options);
  cluster.Start();
  REQUIRE(cluster.WaitForSync(absl::Seconds(10)));

  const ClusterView view = *cluster.View();
  CHECK(view.nodes.size() == 1);
  CHECK(view.pods.size() == 5);
  CHECK(view.PodsOn("gpu-1").size() == 4);
  CHECK(view.PodsOn("gpu-2").empty());
  REQUIRE(view.unschedulable.size() == 1);
  CHECK(view.unschedulable[0]->spec.name == "train-x");
  CHECK(view.workloads.size() == 3);  // the broken StatefulSet is reported, not cached

  const auto controller = [&](const std::string& pod) -> std::string {
    for (const auto& [key, p] : view.pods) {
      if (p->spec.name != pod) continue;
      WorkloadPtr w = view.ControllerOf(p->spec);
      return w == nullptr ? "none" : absl::StrCat(w->kind, " ", w->name, " x", w->replicas);
    }
    return "no such pod";
  };
  CHECK(controller("web-a") == "ReplicaSet web-7d9f x3");
  CHECK(controller("db-0") == "StatefulSet db x1");  // replicas defaults to 1
  CHECK(controller("train-x") == "Job train x4");
  CHECK(controller("stale") == "none");
  CHECK(controller("bare") == "none");
  CHECK(log.Contains("StatefulSet ml/broken: spec.replicas: expected an integer, found string"));

  // A pod that gets bound moves from unschedulable to its node in the next view, never both.
  server.Upsert("pods", OwnedPod("train-x", "gpu-1", "Job", "train", "job-uid"));
  REQUIRE(Eventually([&] { return cluster.View()->unschedulable.empty(); }));
  const ClusterView later = *cluster.View();
  CHECK(later.PodsOn("gpu-1").size() == 5);
  // And the informer's own indexes say the same.
  CHECK(cluster.pods().ByIndex(kByNode, "gpu-1").size() == 5);
  CHECK(cluster.pods().ByIndex(kUnschedulable, "true").empty());
}

TEST_CASE("a watch limited to nodes and pods syncs without the other kinds",
          "[kube][cluster-watch]") {
  FakeApiServer server;
  server.Upsert("nodes", Node("gpu-1"));
  std::unique_ptr<ApiClient> client = testing::ClientFor(server);
  ClusterWatchOptions options;
  options.budgets = options.daemonsets = options.workloads = false;
  MemoryLogSink quiet;
  RealClock clock;
  options.reflector.log = &quiet;
  ClusterWatch cluster(*client, clock, options);
  cluster.Start();
  REQUIRE(cluster.WaitForSync(absl::Seconds(10)));
  CHECK(cluster.View()->nodes.size() == 1);
  CHECK(cluster.View()->workloads.empty());
}

}  // namespace
}  // namespace gpua::kube

namespace gpua::kube {
namespace {

nlohmann::json CapacityBuffer(const std::string& name, int replicas) {
  return {{"apiVersion", "autoscaling.x-k8s.io/v1beta1"},
          {"kind", "CapacityBuffer"},
          {"metadata", {{"name", name}, {"namespace", "serving"}, {"uid", "cb-" + name}}},
          {"spec", {{"podTemplateRef", {{"name", "slot"}}}, {"replicas", replicas}}}};
}

nlohmann::json PodTemplate() {
  return {{"metadata", {{"name", "slot"}, {"namespace", "serving"}}},
          {"template",
           {{"spec",
             {{"containers",
               {{{"name", "c"}, {"resources", {{"requests", {{"nvidia.com/gpu", "1"}}}}}}}}}}}}};
}

struct BufferWatch {
  FakeApiServer server;
  std::unique_ptr<ApiClient> client = testing::ClientFor(server);
  MemoryLogSink log;
  RealClock clock;
  std::unique_ptr<ClusterWatch> cluster;

  void Start(absl::Duration absent_retry = absl::Minutes(5)) {
    ClusterWatchOptions options;
    options.capacity_buffers = true;
    options.reflector.watch_timeout = absl::Seconds(2);
    options.reflector.initial_backoff = absl::Milliseconds(20);
    options.reflector.absent_retry = absent_retry;
    options.reflector.log = &log;
    cluster = std::make_unique<ClusterWatch>(*client, clock, options);
    cluster->Start();
  }
};

TEST_CASE("CapacityBuffers are read at the newest version the server serves, with their templates",
          "[kube][cluster-watch][warm]") {
  BufferWatch w;
  w.server.RefusePath("/apis/autoscaling.x-k8s.io/v1/", 404);  // a CRD serving v1beta1 only
  w.server.Upsert("capacitybuffers", CapacityBuffer("warm", 2));
  w.server.Upsert("podtemplates", PodTemplate());
  w.Start();
  REQUIRE(w.cluster->WaitForSync(absl::Seconds(10)));
  const ClusterView view = *w.cluster->View();
  REQUIRE(view.capacity_buffers.size() == 1);
  CHECK(view.capacity_buffers[0]->replicas == 2);
  REQUIRE(view.pod_templates.size() == 1);
  CHECK(view.pod_templates[0]->pod.requests.Get("nvidia.com/gpu").Value() == 1);
  // And it is watched there: a change shows in a later view.
  w.server.Upsert("capacitybuffers", CapacityBuffer("warm", 3));
  CHECK(testing::Eventually([&] {
    const auto v = w.cluster->View();
    return v->capacity_buffers.size() == 1 && v->capacity_buffers[0]->replicas == 3;
  }));
}

TEST_CASE("without the CapacityBuffer CRD, or the right to read it, the cluster still syncs",
          "[kube][cluster-watch][warm]") {
  BufferWatch w;
  w.server.RefusePath("/apis/autoscaling.x-k8s.io/", 404);
  w.server.RefusePath("/api/v1/podtemplates", 403);
  w.server.Upsert("nodes", Node("gpu-1"));
  w.Start(absl::Milliseconds(300));
  REQUIRE(w.cluster->WaitForSync(absl::Seconds(10)));
  const ClusterView view = *w.cluster->View();
  CHECK(view.nodes.size() == 1);
  CHECK(view.capacity_buffers.empty());
  CHECK(view.pod_templates.empty());
  CHECK(w.log.Contains("capacitybuffers"));
  CHECK(w.log.Contains("read as empty"));
  // The CRD installed later is found by the next look.
  w.server.RefusePath("/apis/autoscaling.x-k8s.io/", 0);
  w.server.Upsert("capacitybuffers", CapacityBuffer("late", 1));
  CHECK(testing::Eventually([&] { return w.cluster->View()->capacity_buffers.size() == 1; }));
}

}  // namespace
}  // namespace gpua::kube

namespace gpua::kube {
namespace {

struct DraWatch {
  FakeApiServer server;
  std::unique_ptr<ApiClient> client = testing::ClientFor(server);
  MemoryLogSink log;
  RealClock clock;
  std::unique_ptr<ClusterWatch> cluster;

  void Start() {
    ClusterWatchOptions options;
    options.dra = true;
    options.reflector.watch_timeout = absl::Seconds(2);
    options.reflector.initial_backoff = absl::Milliseconds(20);
    options.reflector.absent_retry = absl::Milliseconds(300);
    options.reflector.log = &log;
    cluster = std::make_unique<ClusterWatch>(*client, clock, options);
    cluster->Start();
  }
};

nlohmann::json Slice(const std::string& api_version, bool basic) {
  nlohmann::json device = {{"name", "gpu-0"}};
  const nlohmann::json fields = {{"attributes", {{"productName", {{"string", "NVIDIA H100"}}}}},
                                 {"capacity", {{"memory", {{"value", "80Gi"}}}}}};
  if (basic) {
    device["basic"] = fields;
  } else {
    device.update(fields);
  }
  return {{"apiVersion", api_version},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", "gpu-1-gpu.nvidia.com"}}},
          {"spec",
           {{"driver", "gpu.nvidia.com"},
            {"nodeName", "gpu-1"},
            {"pool", {{"name", "gpu-1"}, {"generation", 1}, {"resourceSliceCount", 1}}},
            {"devices", {device}}}}};
}

TEST_CASE("DRA objects are read at the newest resource.k8s.io version the server serves",
          "[kube][cluster-watch][dra]") {
  for (const bool v1 : {true, false}) {
    INFO((v1 ? "v1" : "a 1.32 server: v1beta1 only"));
    DraWatch w;
    if (!v1) {
      w.server.RefusePath("/apis/resource.k8s.io/v1/", 404);
      w.server.RefusePath("/apis/resource.k8s.io/v1beta2/", 404);
    }
    w.server.Upsert("resourceslices",
                    Slice(v1 ? "resource.k8s.io/v1" : "resource.k8s.io/v1beta1", !v1));
    w.server.Upsert("deviceclasses",
                    {{"metadata", {{"name", "gpu.nvidia.com"}}},
                     {"spec", {{"selectors", {{{"cel", {{"expression", "true"}}}}}}}}});
    w.server.Upsert(
        "resourceclaimtemplates",
        {{"metadata", {{"name", "one-gpu"}, {"namespace", "ml"}}},
         {"spec",
          {{"spec",
            {{"devices",
              {{"requests",
                {{{"name", "gpu"}, {"exactly", {{"deviceClassName", "gpu.nvidia.com"}}}}}}}}}}}}});
    w.server.Upsert(
        "resourceclaims",
        {{"metadata", {{"name", "p-gpu"}, {"namespace", "ml"}}},
         {"spec",
          {{"devices",
            {{"requests", {{{"name", "gpu"}, {"deviceClassName", "gpu.nvidia.com"}}}}}}}}});
    w.Start();
    REQUIRE(w.cluster->WaitForSync(absl::Seconds(10)));
    const ClusterView view = *w.cluster->View();
    REQUIRE(view.resource_slices.size() == 1);
    CHECK(view.resource_slices[0]->devices.size() == 1);
    CHECK(view.resource_slices[0]->devices[0].capacity.at("gpu.nvidia.com").at("memory") ==
          *Quantity::Parse("80Gi"));
    CHECK(view.device_classes.size() == 1);
    CHECK(view.resource_claim_templates.size() == 1);
    REQUIRE(view.resource_claims.size() == 1);
    CHECK(view.resource_claims[0]->Key() == "ml/p-gpu");
  }
}

TEST_CASE("a cluster without DRA, or RBAC without it, syncs and reads none",
          "[kube][cluster-watch][dra]") {
  DraWatch w;
  w.server.RefusePath("/apis/resource.k8s.io/", 404);
  w.server.RefusePath("/apis/resource.k8s.io/v1/resourceclaims", 403);
  w.server.Upsert("nodes", Node("gpu-1"));
  w.Start();
  REQUIRE(w.cluster->WaitForSync(absl::Seconds(10)));
  CHECK(w.cluster->View()->nodes.size() == 1);
  CHECK(w.cluster->View()->resource_slices.empty());
  CHECK(w.log.Contains("resourceslices"));
}

}  // namespace
}  // namespace gpua::kube
