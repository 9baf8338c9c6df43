// The DRA pools the controller's and the simulation's DRA tests share, as node-group file
// list items: h100-dra, 8-GPU H100 nodes (tainted nvidia.com/gpu), and a100-mig-dra, one-GPU
// A100 nodes; NVIDIA's DRA driver publishes their GPUs (and the A100's MIG partitions),
// derived from their GPU labels, 30 s and 10 s after a node registers.
#ifndef GPUA_TESTS_SUPPORT_DRA_POOLS_H_
#define GPUA_TESTS_SUPPORT_DRA_POOLS_H_

#include <string>

namespace gpua::testing {

inline constexpr char kDraGpuPools[] = R"(- id: h100-dra
  maxSize: 4
  pricePerHour: 98.32
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
      annotations: {gpu-autoscaler.io/dra-driver: gpu.nvidia.com}
    spec:
      taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110"}
  options: {maxNodeProvisionTime: 5m, scaleDownUnneededTime: 5m}
  simulation:
    provisioningDelay: {p50: 30s, p95: 30s}
    gpuReadyDelay: {p50: 30s, p95: 30s}
- id: a100-mig-dra
  maxSize: 8
  pricePerHour: 4.1
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB, nvidia.com/gpu.count: "1"}
      annotations: {gpu-autoscaler.io/dra-driver: gpu.nvidia.com}
    status:
      allocatable: {cpu: "30", memory: 200Gi, pods: "110"}
  simulation:
    provisioningDelay: {p50: 30s, p95: 30s}
    gpuReadyDelay: {p50: 10s, p95: 10s}
)";

// A node-group file of the DRA pools and `more` (further list items, or none).
inline std::string DraNodeGroups(const std::string& more = "") {
  return std::string("nodeGroups:\n") + kDraGpuPools + more;
}

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_DRA_POOLS_H_
