#!/usr/bin/env bash
# e2e: MIG pods scale a pool of reconfigurable A100s from zero. The controller chooses each new
# node's layout (nvidia.com/mig.config, which NVIDIA's MIG manager applies), the example plugin
# plays the MIG manager and device plugin (the node then advertises that layout's slices), and
# the real scheduler binds every pod. Two 3g.20gb pods and three 1g.5gb pods on 1-GPU nodes:
# no one layout holds them all, so exactly two nodes, with the layouts that hold them.
# Usage: mig_layouts_from_zero.sh KUBECONFIG GPU_AUTOSCALER EXAMPLE_PLUGIN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/scenario.sh"
scenario_begin mig "$@"

cat > "$work/groups.yaml" <<GROUPS
nodeGroups:
- id: $scenario
  maxSize: 4
  pricePerHour: 4.10
  template:
    metadata:
      labels:
        e2e-scenario: $scenario
        nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
        nvidia.com/gpu.count: "1"
        nvidia.com/mig.strategy: mixed
      annotations:
        gpu-autoscaler.io/mig-layouts: all-1g.5gb,all-3g.20gb,all-balanced,all-7g.40gb
    status:
      allocatable: {cpu: "12", memory: 128Gi, pods: "58"}
  simulation:
    # The MIG manager applies the layout the controller labels the node with as it registers;
    # the device plugin advertises its slices after that.
    provisioningDelay: {p50: 1s, p95: 2s}
    gpuReadyDelay: {p50: 4s, p95: 5s}
GROUPS
start_plugin "$work/groups.yaml"
start_controller controller --leader-elect=false --address=127.0.0.1:0
wait_until 30 "the controller settled" settled controller

since="$(date +%s.%N)"
{
  for pod in large-0 large-1; do gpu_pod "$pod" nvidia.com/mig-3g.20gb 1; echo ---; done
  for pod in small-0 small-1 small-2; do gpu_pod "$pod" nvidia.com/mig-1g.5gb 1; echo ---; done
} | create_in_namespace "$ns" || fail "the pods were never created"
wait_until 90 "all five MIG pods bound" pods_bound 5
note_increase_latency "$since" "$work/controller.log" "$scenario"
holds_for 4 "two nodes for the five slices" nodes_are 2
layouts="$(kubectl get nodes -l "e2e-scenario=$scenario" \
  -o jsonpath='{range .items[*]}{.metadata.labels.nvidia\.com/mig\.config}{"\n"}{end}' | sort | tr '\n' ' ')"
case "$layouts" in
  "all-1g.5gb all-3g.20gb " | "all-balanced all-balanced ") ;;
  *) fail "the nodes' layouts are \"$layouts\": they do not hold two 3g.20gb and three 1g.5gb" ;;
esac
echo "ok: five MIG pods from zero on two A100s laid out as $layouts"
