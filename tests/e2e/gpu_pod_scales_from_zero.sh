#!/usr/bin/env bash
# e2e: a pending GPU pod on the real control plane scales its pool from zero, once. The real
# gpu-autoscaler binary runs as the controller against the example plugin (the simulated cloud
# over externalgrpc), which registers a Node for each instance it brings up, GPUs after a
# delay; the real kube-scheduler marks the pod unschedulable, then binds it to the new node.
# Usage: gpu_pod_scales_from_zero.sh KUBECONFIG GPU_AUTOSCALER EXAMPLE_PLUGIN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cluster/lib.sh"
export KUBECONFIG="${1:?KUBECONFIG}"
binary="${2:?GPU_AUTOSCALER}"
plugin="${3:?EXAMPLE_PLUGIN}"
ns="e2e-zero-$$"
scenario="scale-from-zero-$$"  # the pool's nodes carry it, so no other scenario's node fits
work="$(mktemp -d)"
pids=()
fail() {
  echo "FAIL: $*" >&2
  for log in "$work"/*.log; do echo "--- $log" >&2; tail -20 "$log" >&2; done
  exit 1
}
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  kubectl delete namespace "$ns" --wait=false >/dev/null 2>&1 || true
  kubectl delete nodes -l "e2e-scenario=$scenario" --wait=false >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
port="$(free_port)"

cat > "$work/groups.yaml" <<GROUPS
nodeGroups:
- id: $scenario
  maxSize: 3
  pricePerHour: 0.98
  template:
    metadata:
      labels: {e2e-scenario: $scenario, nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "1"}
    status:
      allocatable: {cpu: "8", memory: 32Gi, pods: "58", nvidia.com/gpu: "1"}
  simulation:
    provisioningDelay: {p50: 2s, p95: 3s}
    gpuReadyDelay: {p50: 2s, p95: 3s}
GROUPS
printf 'address: "127.0.0.1:%s"\n' "$port" > "$work/cloud-config.yaml"
kubectl create namespace "$ns" >/dev/null

"$plugin" --node-groups "$work/groups.yaml" --address "127.0.0.1:$port" \
  --kubeconfig "$KUBECONFIG" > "$work/plugin.log" 2>&1 &
pids+=($!)
"$binary" --cloud-provider=externalgrpc --cloud-config="$work/cloud-config.yaml" \
  --kubeconfig="$KUBECONFIG" --namespace="$ns" --leader-elect=false --address=127.0.0.1:0 \
  --scan-interval=2s --v=2 > "$work/controller.log" 2>&1 &
pids+=($!)

create_in_namespace "$ns" <<POD || fail "the pod was never created"
apiVersion: v1
kind: Pod
metadata: {name: infer}
spec:
  nodeSelector: {e2e-scenario: $scenario}
  containers: [{name: main, image: registry.invalid/infer:1, resources: {limits: {nvidia.com/gpu: "1"}}}]
POD

bound=""
for _ in $(seq 1 300); do
  bound="$(kubectl -n "$ns" get pod infer -o jsonpath='{.spec.nodeName}')"
  [[ -n "$bound" ]] && break
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || fail "a process ended early"; done
  sleep 0.2
done
[[ -n "$bound" ]] || fail "the pod was not bound within 60s"
nodes="$(kubectl get nodes -l "e2e-scenario=$scenario" -o name | wc -l)"
[[ "$nodes" == 1 ]] || fail "$nodes nodes came up for one pod"
grep -q "$scenario" "$work/controller.log" || fail "the controller's log never names the group"
echo "ok: the pod is bound to $bound, the one node its pool scaled up from zero"
