#include "kubeobjects/pods.h"

#include <catch2/catch.hpp>

#include "absl/time/civil_time.h"
#include "kubeobjects/api_time.h"
#include "kubeobjects/documents.h"
#include "kubeobjects/pod_groups.h"

namespace gpua {
namespace {

PodSpec FirstPod(const std::string& text) {
  auto objects = ParseObjects(text, "pods.yaml");
  REQUIRE(objects.ok());
  REQUIRE(!objects->empty());
  return DecodePod(objects->front());
}

TEST_CASE("a pod as kubectl prints it decodes with limits-only GPUs requested", "[decode]") {
  PodSpec p = FirstPod(R"(
apiVersion: v1
kind: Pod
metadata: {name: train-0, namespace: ml, labels: {app: train},
  ownerReferences: [{kind: Job, name: train, uid: u1, controller: true}]}
spec:
  priority: 1000
  nodeSelector: {gpu: h100}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: gpus, operator: Gt, values: ["4"]}]
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: train}}
        topologyKey: kubernetes.io/hostname
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
     labelSelector: {matchLabels: {app: train}}}
  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}
  containers:
  - name: main
    resources:
      requests: {cpu: 8, memory: 64Gi}
      limits: {nvidia.com/gpu: 8}
    ports: [{containerPort: 8080, hostPort: 8080}]
)");
  REQUIRE(p.invalid.ok());
  CHECK(p.Key() == "ml/train-0");
  CHECK(p.owner->kind == "Job");
  CHECK(p.priority == 1000);
  CHECK(p.requests.ToString() == "cpu: 8, memory: 64Gi, nvidia.com/gpu: 8");
  CHECK(p.tolerations.size() == 1);
  CHECK(p.required_node_affinity->terms.size() == 1);
  CHECK(p.anti_affinity.size() == 1);
  CHECK(p.spread.size() == 1);  // ScheduleAnyway never filters
  CHECK(p.host_ports.size() == 1);
}

TEST_CASE("a PodList is flattened into its pods", "[decode]") {
  auto objects = ParseObjects(
      R"({"kind":"PodList","items":[{"kind":"Pod","metadata":{"name":"a"}},{"kind":"Pod","metadata":{"name":"b"}}]})",
      "pods.json");
  REQUIRE(objects.ok());
  CHECK(objects->size() == 2);
}

TEST_CASE(
    "JSON documents one after another (kubectl get -o json --watch) are read in turn, and "
    "a broken one is named by its place",
    "[decode]") {
  auto objects = ParseObjects(
      "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"}}\n"
      "{\"kind\":\"PodList\",\"items\":[{\"kind\":\"Pod\",\"metadata\":{\"name\":\"b\"}}]}\n",
      "watch.json");
  REQUIRE(objects.ok());
  REQUIRE(objects->size() == 2);
  CHECK((*objects)[1]["metadata"]["name"] == "b");
  auto broken = ParseObjects("{\"kind\":\"Pod\"}\n{\"kind\": Pod}\n", "watch.json");
  REQUIRE_FALSE(broken.ok());
  CHECK_THAT(std::string(broken.status().message()),
             Catch::StartsWith("watch.json: invalid JSON in document 2: "));
}

TEST_CASE("a pod with a bad quantity is invalid with the pod and field named", "[decode]") {
  PodSpec p = FirstPod(R"(
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  containers: [{name: c, resources: {requests: {memory: 10KB}}}]
)");
  REQUIRE_FALSE(p.invalid.ok());
  CHECK_THAT(std::string(p.invalid.message()),
             Catch::StartsWith("Pod shop/web: spec.containers[0].resources.requests[memory]: "
                               "quantity \"10KB\""));
}

TEST_CASE("an unknown operator, a wrong type and a negative request make the pod invalid",
          "[decode]") {
  PodSpec op = FirstPod(R"(
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c}]
  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms:
    [{matchExpressions: [{key: zone, operator: Like, values: [a]}]}]}}}
)");
  REQUIRE_FALSE(op.invalid.ok());
  CHECK_THAT(std::string(op.invalid.message()),
             Catch::Contains("operator: unknown operator \"Like\""));

  PodSpec type = FirstPod(
      R"({"kind":"Pod","metadata":{"name":"p"},"spec":{"priority":"high","containers":[{"name":"c"}]}})");
  REQUIRE_FALSE(type.invalid.ok());
  CHECK_THAT(std::string(type.invalid.message()),
             Catch::Contains("spec.priority: expected an integer, found string"));

  PodSpec negative = FirstPod(R"(
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, resources: {requests: {cpu: "-1"}}}]}
)");
  REQUIRE_FALSE(negative.invalid.ok());
  CHECK_THAT(std::string(negative.invalid.message()), Catch::Contains("negative request for cpu"));
}

TEST_CASE("bound and finished pods are not pending", "[decode]") {
  CHECK_FALSE(IsPending(nlohmann::json::parse(R"({"spec":{"nodeName":"n1"}})")));
  CHECK_FALSE(IsPending(nlohmann::json::parse(R"({"status":{"phase":"Succeeded"}})")));
  CHECK(IsPending(nlohmann::json::parse(R"({"status":{"phase":"Pending"}})")));
}

TEST_CASE("broken YAML and JSON are errors that name the file and place", "[decode]") {
  auto yaml = ParseObjects("a: [1, 2\nb: 3\n", "pods.yaml");
  REQUIRE_FALSE(yaml.ok());
  CHECK_THAT(std::string(yaml.status().message()), Catch::StartsWith("pods.yaml: line"));
  auto json = ParseObjects("{\"a\": ", "pods.json");
  REQUIRE_FALSE(json.ok());
  CHECK_THAT(std::string(json.status().message()), Catch::StartsWith("pods.json: invalid JSON"));
}

TEST_CASE("GPU annotations on a pod: memory per share, CUDA version, per-container shares",
          "[decode][gpu]") {
  PodSpec p = FirstPod(R"(
kind: Pod
metadata:
  name: infer
  annotations: {gpu-autoscaler.io/gpu-memory: 10Gi, gpu-autoscaler.io/cuda-version: "12.4"}
spec:
  containers:
  - {name: a, resources: {requests: {nvidia.com/gpu: "1"}}}
  - {name: b, resources: {requests: {nvidia.com/gpu: "2"}}}
)");
  REQUIRE(p.invalid.ok());
  CHECK(p.gpu_memory_mib == 10 * 1024);
  CHECK(p.cuda_version == "12.4");
  CHECK(p.requests.Get("nvidia.com/gpu") == Quantity::FromUnits(3));
  CHECK(p.largest_container_request.Get("nvidia.com/gpu") == Quantity::FromUnits(2));
  PodSpec bad = FirstPod(R"(
kind: Pod
metadata: {name: bad, annotations: {gpu-autoscaler.io/cuda-version: "twelve"}}
spec: {containers: [{name: a}]}
)");
  CHECK_THAT(std::string(bad.invalid.message()),
             Catch::Contains("metadata.annotations.gpu-autoscaler.io/cuda-version"));
}

TEST_CASE("gang membership from Volcano, coscheduling and Kueue, sizes from PodGroups",
          "[decode][gang]") {
  auto objects = ParseObjects(R"(
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: train, namespace: ml}
spec: {minMember: 4}
---
kind: Pod
metadata:
  name: v-0
  namespace: ml
  annotations: {scheduling.k8s.io/group-name: train, gpu-autoscaler.io/gang-topology-label: nvidia.com/gpu.clique}
spec: {containers: [{name: a}]}
---
kind: Pod
metadata:
  name: k-0
  namespace: ml
  labels: {kueue.x-k8s.io/pod-group-name: batch}
  annotations: {kueue.x-k8s.io/pod-group-total-count: "3"}
spec: {containers: [{name: a}]}
---
kind: Pod
metadata:
  name: bad
  labels: {kueue.x-k8s.io/pod-group-name: batch}
  annotations: {kueue.x-k8s.io/pod-group-total-count: "many"}
spec: {containers: [{name: a}]}
)",
                              "pods.yaml");
  REQUIRE(objects.ok());
  std::vector<PodSpec> pods;
  for (const auto& o : *objects) {
    if (IsPodObject(o)) pods.push_back(DecodePod(o));
  }
  REQUIRE(pods.size() == 3);
  ApplyPodGroups(PodGroupMinMembers(*objects), pods);
  REQUIRE(pods[0].gang.has_value());
  CHECK(pods[0].gang->name == "ml/train");
  CHECK(pods[0].gang->min_member == 4);
  CHECK(pods[0].gang->required_label == "nvidia.com/gpu.clique");
  CHECK(pods[1].gang->name == "ml/batch");
  CHECK(pods[1].gang->min_member == 3);
  CHECK_THAT(std::string(pods[2].invalid.message()),
             Catch::Contains("kueue.x-k8s.io/pod-group-total-count: \"many\""));
}

}  // namespace
}  // namespace gpua

namespace gpua {
namespace {

TEST_CASE("a cached pod keeps what draining its node needs", "[decode]") {
  const nlohmann::json pod = nlohmann::json::parse(R"({"metadata":{"name":"w","namespace":"ml",
    "creationTimestamp":"2026-11-30T10:00:00Z","deletionTimestamp":"2026-11-30T11:00:00Z",
    "annotations":{"cluster-autoscaler.kubernetes.io/safe-to-evict":"false",
                   "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes":"scratch"}},
    "spec":{"containers":[{"name":"c"}],"volumes":[{"name":"scratch","emptyDir":{}},
      {"name":"data","persistentVolumeClaim":{"claimName":"d"}}]},
    "status":{"startTime":"2026-11-30T10:02:30Z"}})");
  const PodObject o = DecodePodObject(pod);
  REQUIRE(o.spec.invalid.ok());
  CHECK(o.created ==
        absl::FromCivil(absl::CivilSecond(2026, 11, 30, 10, 0, 0), absl::UTCTimeZone()));
  CHECK(o.started ==
        absl::FromCivil(absl::CivilSecond(2026, 11, 30, 10, 2, 30), absl::UTCTimeZone()));
  CHECK(o.terminating);
  CHECK(o.safe_to_evict == std::optional<bool>(false));
  CHECK_FALSE(o.local_storage);  // its one emptyDir is named safe
  CHECK_FALSE(o.mirror);

  const PodObject host = DecodePodObject(nlohmann::json::parse(R"({"metadata":{"name":"h",
    "annotations":{"kubernetes.io/config.mirror":"abc"}},"spec":{"containers":[{"name":"c"}],
    "volumes":[{"name":"logs","hostPath":{"path":"/var/log"}}]}})"));
  CHECK(host.local_storage);
  CHECK(host.mirror);
  CHECK_FALSE(host.safe_to_evict.has_value());
  CHECK_FALSE(host.terminating);
  CHECK(host.created == absl::InfinitePast());
  CHECK(host.started == absl::InfinitePast());  // not started yet: nothing to lose
  CHECK_FALSE(host.termination_grace.has_value());

  const PodObject memory = DecodePodObject(nlohmann::json::parse(R"({"metadata":{"name":"m",
    "ownerReferences":[{"kind":"DaemonSet","name":"dcgm","uid":"u","controller":true}]},
    "spec":{"containers":[{"name":"c"}],"terminationGracePeriodSeconds":45,
    "volumes":[{"name":"shm","emptyDir":{"medium":"Memory"}}]}})"));
  CHECK_FALSE(memory.local_storage);  // in memory: gone with the pod wherever it runs
  CHECK(memory.termination_grace == absl::Seconds(45));
  CHECK(memory.daemonset());
}

TEST_CASE("API times: whole seconds, fractions and offsets, not-times refused", "[decode]") {
  absl::Time t;
  REQUIRE(ParseApiTime("2026-11-30T10:00:00Z", &t));
  CHECK(FormatMicroTime(t) == "2026-11-30T10:00:00.000000Z");
  REQUIRE(ParseApiTime("2026-11-30T10:00:00.250000Z", &t));
  CHECK(FormatMicroTime(t) == "2026-11-30T10:00:00.250000Z");
  REQUIRE(ParseApiTime("2026-11-30T12:00:00+02:00", &t));
  CHECK(FormatMicroTime(t) == "2026-11-30T10:00:00.000000Z");
  CHECK_FALSE(ParseApiTime("2026-13-30T10:00:00Z", &t));
  CHECK_FALSE(ParseApiTime("yesterday", &t));
  CHECK_FALSE(ParseApiTime("", &t));
}

}  // namespace
}  // namespace gpua
