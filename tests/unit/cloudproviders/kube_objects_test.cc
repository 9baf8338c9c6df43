#include "cloudproviders/kube_objects.h"

#include <catch2/catch.hpp>

#include "absl/time/civil_time.h"
#include "cloudproviders/api_time.h"
#include "cloudproviders/node_group_file.h"

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

const char* kGroup = R"(
nodeGroups:
- id: h100-spot
  minSize: 0
  maxSize: 10
  pricePerHour: 55.04
  capacityType: spot
  template:
    metadata: {labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
    spec: {taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
    status: {allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}}
  options: {scaleDownUnneededTime: 5m, scaleDownGpuUtilizationThreshold: 0.5}
  simulation: {provisioningDelay: {p50: 90s, p95: 4m}, spotInterruptionsPerHour: 0.02}
)";

TEST_CASE("the node-group file reads every documented field", "[node-groups]") {
  auto groups = ParseNodeGroupFile(kGroup, "groups.yaml");
  REQUIRE(groups.ok());
  REQUIRE(groups->size() == 1);
  const NodeGroupConfig& g = groups->front();
  CHECK(g.spec.id == "h100-spot");
  CHECK(g.spec.max_size == 10);
  CHECK(g.capacity_type == CapacityType::kSpot);
  CHECK(g.spec.node_template.allocatable.Get("nvidia.com/gpu").Value() == 8);
  CHECK(g.spec.node_template.taints.size() == 1);
  CHECK(*g.options.scale_down_unneeded_time == absl::Minutes(5));
  CHECK(g.simulation.provisioning_delay.p95 == absl::Minutes(4));
}

std::string Broken(const std::string& from, const std::string& to) {
  std::string text = kGroup;
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST_CASE("mistakes in the node-group file name the file, the group and the field",
          "[node-groups]") {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {Broken("maxSize: 10", "maxSize: 10\n  maxsize: 3"), "unknown key \"maxsize\""},
      {Broken("scaleDownUnneededTime: 5m", "scaleDownUnneededTime: five"),
       "options.scaleDownUnneededTime: invalid duration \"five\""},
      {Broken("minSize: 0", "minSize: 20"), "minSize 20 exceeds maxSize 10"},
      {Broken("capacityType: spot", "capacityType: reserved"), "capacityType: unknown value"},
      {Broken("memory: 1900Gi", "memory: 1900GB"), "status.allocatable[memory]: quantity"},
      {Broken("effect: NoSchedule", "effect: Never"), "effect: unknown taint effect"},
      {Broken("0.5}", "1.5}"), "scaleDownGpuUtilizationThreshold: must be between 0 and 1"},
      {std::string(kGroup) + std::string(kGroup).substr(std::string(kGroup).find("- id")),
       "duplicate node group id"},
  };
  for (const Case& c : cases) {
    INFO(c.message);
    auto groups = ParseNodeGroupFile(c.text, "groups.yaml");
    REQUIRE_FALSE(groups.ok());
    const std::string message(groups.status().message());
    CHECK_THAT(message, Catch::StartsWith("groups.yaml: "));
    CHECK_THAT(message, Catch::Contains(c.message));
  }
}

TEST_CASE("a template without allocatable is refused for that group", "[node-groups]") {
  auto groups = ParseNodeGroupFile(
      "nodeGroups:\n- id: empty\n  maxSize: 1\n  template: {metadata: {name: x}}\n", "g.yaml");
  REQUIRE_FALSE(groups.ok());
  CHECK_THAT(
      std::string(groups.status().message()),
      Catch::Contains("node group empty: nodeGroups[0].template.status.allocatable: missing"));
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
      {"name":"data","persistentVolumeClaim":{"claimName":"d"}}]}})");
  const PodObject o = DecodePodObject(pod);
  REQUIRE(o.spec.invalid.ok());
  CHECK(o.created ==
        absl::FromCivil(absl::CivilSecond(2026, 11, 30, 10, 0, 0), absl::UTCTimeZone()));
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
}

TEST_CASE("API times: whole seconds, fractions and offsets; not-times refused", "[decode]") {
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
