// Decoding a 100,000-pod list as the informer does (issue 5): pages of 500 parsed with
// simdjson by the reflector's ReadListPage, every pod decoded into the cached model (labels
// and node selectors interned), indexed by node and unschedulable. Prints pods/s and the
// heap bytes each cached pod keeps (malloc's in-use bytes after the list, over the pods;
// the pages themselves are not counted, the informer, its indexes and interner are).
// Targets: at least 60,000 pods/s on one core; at most 2 KiB per cached pod.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "autoscaler/kube/cluster_informers.h"
#include "autoscaler/kube/reflector.h"

namespace gpua {
namespace {

// A realistic pod of about 3 KiB as the API server sends it: labels and annotations,
// an owner, managed fields, two containers with env, mounts and probes, volumes, status.
std::string PodJson(int i) {
  const std::string name = absl::StrCat("trainer-7d9f8c6b5-", i);
  return absl::
      StrCat(
          R"({"metadata":{"name":")", name, R"(","namespace":"ml-team-)", i % 20,
          R"(","uid":"6f1c2d3e-4b5a-6789-abcd-)", 100000000000 + i, R"(","resourceVersion":")",
          1000000 + i,
          R"(","creationTimestamp":"2026-11-30T10:00:00Z","labels":{"app":"trainer","team":"ml","pod-template-hash":"7d9f8c6b5","version":"v2","tier":"gpu","job":"j)",
          i % 500,
          R"("},"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-11-29T08:00:00Z","prometheus.io/scrape":"true","prometheus.io/port":"9090","gpu-autoscaler.io/cuda-version":"12.4"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"trainer-7d9f8c6b5","uid":"0a1b2c3d-0000-1111-2222-333344445555","controller":true,"blockOwnerDeletion":true}],"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-11-30T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{},"f:team":{}}},"f:spec":{"f:containers":{}}}}]},)",
          R"("spec":{"containers":[{"name":"trainer","image":"registry.example.com/ml/trainer:2026.11.3","command":["python","-m","train"],"args":["--epochs","40","--batch","512"],"env":[{"name":"NCCL_DEBUG","value":"WARN"},{"name":"OMP_NUM_THREADS","value":"8"},{"name":"MASTER_ADDR","value":"trainer-0"},{"name":"MASTER_PORT","value":"29500"},{"name":"WORLD_SIZE","value":"8"},{"name":"POD_NAME","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],"resources":{"requests":{"cpu":"8","memory":"64Gi","nvidia.com/gpu":"1"},"limits":{"memory":"64Gi","nvidia.com/gpu":"1"}},"volumeMounts":[{"name":"data","mountPath":"/data"},{"name":"shm","mountPath":"/dev/shm"},{"name":"kube-api-access","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","readOnly":true}],"ports":[{"containerPort":29500,"protocol":"TCP"}],"readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":10}},)", R"({"name":"sidecar","image":"registry.example.com/ml/metrics:1.4","resources":{"requests":{"cpu":"100m","memory":"128Mi"}}}],"volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"data"}},{"name":"shm","emptyDir":{"medium":"Memory"}},{"name":"kube-api-access","projected":{"sources":[{"serviceAccountToken":{"path":"token","expirationSeconds":3607}}]}}],"tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"},{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"nodeSelector":{"nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"},"schedulerName":"default-scheduler","priority":0,"serviceAccountName":"trainer","restartPolicy":"Always"},)",
          R"("status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/40 nodes are available: 40 Insufficient nvidia.com/gpu.","lastTransitionTime":"2026-11-30T10:00:01Z"}],"qosClass":"Burstable"}})");
}

// The list arrives as pages of 500 (the reflector's page size), each read with the
// reflector's own ReadListPage into a pod informer with its indexes.
std::vector<std::string> PodListPages(int pods, int page_size) {
  std::vector<std::string> pages;
  for (int first = 0; first < pods; first += page_size) {
    std::string page =
        R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"2000000")";
    if (first + page_size < pods) absl::StrAppend(&page, R"(,"continue":"c)", first, R"(")");
    page += R"(},"items":[)";
    for (int i = first; i < std::min(pods, first + page_size); ++i) {
      if (i > first) page += ',';
      page += PodJson(i);
    }
    page += "]}";
    pages.push_back(std::move(page));
  }
  return pages;
}

void BM_DecodePodList(benchmark::State& state) {
  const int pods = static_cast<int>(state.range(0));
  const std::vector<std::string> pages = PodListPages(pods, 500);
  size_t json_bytes = 0;
  for (const std::string& p : pages) json_bytes += p.size();
  simdjson::dom::parser parser;
  double bytes_per_pod = 0;
  for (auto _ : state) {
    state.PauseTiming();  // mallinfo2 walks the heap: not part of decoding
    const size_t before = mallinfo2().uordblks;
    state.ResumeTiming();
    auto informer = std::make_unique<kube::Informer<PodObject>>(kube::PodDecoder());
    kube::AddPodIndexes(*informer);
    informer->BeginList();
    for (const std::string& page : pages) {
      absl::StatusOr<kube::ListPage> read = kube::ReadListPage(parser, page, *informer);
      if (!read.ok()) state.SkipWithError(std::string(read.status().message()).c_str());
    }
    informer->EndList();
    if (informer->size() != static_cast<size_t>(pods)) state.SkipWithError("pods lost");
    state.PauseTiming();
    bytes_per_pod = static_cast<double>(mallinfo2().uordblks - before) / pods;
    informer.reset();
    state.ResumeTiming();
  }
  state.counters["pods_per_s"] =
      benchmark::Counter(static_cast<double>(pods), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes_per_cached_pod"] = bytes_per_pod;
  state.counters["json_bytes_per_pod"] = static_cast<double>(json_bytes) / pods;
}
BENCHMARK(BM_DecodePodList)->Arg(100'000)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace gpua

BENCHMARK_MAIN();
