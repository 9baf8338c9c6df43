// A realistic pod as the API server sends it, for the benchmarks that decode or record pods.
#ifndef GPUA_TESTS_BENCH_REALISTIC_POD_H_
#define GPUA_TESTS_BENCH_REALISTIC_POD_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace gpua {

// Unschedulable, as the scheduler leaves it.
inline constexpr absl::string_view kPendingStatus =
    R"({"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/40 nodes are available: 40 Insufficient nvidia.com/gpu.","lastTransitionTime":"2026-11-30T10:00:01Z"}],"qosClass":"Burstable"})";

// A realistic pod of about 3 KiB as the API server sends it: labels and annotations,
// an owner, managed fields, two containers with env, mounts and probes, volumes, status.
inline std::string PodJson(int i, absl::string_view status = kPendingStatus) {
  const std::string name = absl::StrCat("trainer-7d9f8c6b5-", i);
  return absl::StrCat(R"({"metadata":{"name":")", name, R"(","namespace":"ml-team-)", i % 20,
                      R"(","uid":"6f1c2d3e-4b5a-6789-abcd-)", 100000000000 + i, R"(","resourceVersion":")", 1000000 + i, R"(","creationTimestamp":"2026-11-30T10:00:00Z","labels":{"app":"trainer","team":"ml","pod-template-hash":"7d9f8c6b5","version":"v2","tier":"gpu","job":"j)", i % 500, R"("},"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-11-29T08:00:00Z","prometheus.io/scrape":"true","prometheus.io/port":"9090","gpu-autoscaler.io/cuda-version":"12.4"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"trainer-7d9f8c6b5","uid":"0a1b2c3d-0000-1111-2222-333344445555","controller":true,"blockOwnerDeletion":true}],"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-11-30T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{},"f:team":{}}},"f:spec":{"f:containers":{}}}}]},)", R"("spec":{"containers":[{"name":"trainer","image":"registry.example.com/ml/trainer:2026.11.3","command":["python","-m","train"],"args":["--epochs","40","--batch","512"],"env":[{"name":"NCCL_DEBUG","value":"WARN"},{"name":"OMP_NUM_THREADS","value":"8"},{"name":"MASTER_ADDR","value":"trainer-0"},{"name":"MASTER_PORT","value":"29500"},{"name":"WORLD_SIZE","value":"8"},{"name":"POD_NAME","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],"resources":{"requests":{"cpu":"8","memory":"64Gi","nvidia.com/gpu":"1"},"limits":{"memory":"64Gi","nvidia.com/gpu":"1"}},"volumeMounts":[{"name":"data","mountPath":"/data"},{"name":"shm","mountPath":"/dev/shm"},{"name":"kube-api-access","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","readOnly":true}],"ports":[{"containerPort":29500,"protocol":"TCP"}],"readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":10}},)", R"({"name":"sidecar","image":"registry.example.com/ml/metrics:1.4","resources":{"requests":{"cpu":"100m","memory":"128Mi"}}}],"volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"data"}},{"name":"shm","emptyDir":{"medium":"Memory"}},{"name":"kube-api-access","projected":{"sources":[{"serviceAccountToken":{"path":"token","expirationSeconds":3607}}]}}],"tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"},{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"nodeSelector":{"nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"},"schedulerName":"default-scheduler","priority":0,"serviceAccountName":"trainer","restartPolicy":"Always"},)",
                      R"("status":)", status, "}");
}

}  // namespace gpua

#endif  // GPUA_TESTS_BENCH_REALISTIC_POD_H_
