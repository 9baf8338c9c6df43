#!/usr/bin/env bash
# e2e: the real control plane (tests/cluster) places a GPU pod as the autoscaler expects, and
# gpu-autoscaler reads it. A Node made here stands for a kubelet: its status is patched in
# (the control plane makes no not-ready taint to lift); the pod must be bound to it by
# the real kube-scheduler, and `gpu-autoscaler inspect` must list the node and no unschedulable
# pod. Usage: scheduler_binds_gpu_pod.sh KUBECONFIG GPU_AUTOSCALER
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/scenario.sh"
scenario_begin bind "$@"
node="e2e-gpu-$$"
kubectl create -f - >/dev/null <<NODE
apiVersion: v1
kind: Node
metadata: {name: $node, labels: {kubernetes.io/hostname: $node, e2e-scenario: $scenario, nvidia.com/gpu.product: NVIDIA-L4}}
NODE
now="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
kubectl patch node "$node" --subresource=status --type=merge -p "{\"status\": {
  \"capacity\": {\"cpu\": \"8\", \"memory\": \"32Gi\", \"pods\": \"110\", \"nvidia.com/gpu\": \"1\"},
  \"allocatable\": {\"cpu\": \"8\", \"memory\": \"32Gi\", \"pods\": \"110\", \"nvidia.com/gpu\": \"1\"},
  \"conditions\": [{\"type\": \"Ready\", \"status\": \"True\", \"reason\": \"KubeletReady\",
    \"message\": \"e2e\", \"lastHeartbeatTime\": \"$now\", \"lastTransitionTime\": \"$now\"}]}}" >/dev/null

create_in_namespace "$ns" <<POD || fail "the pod was never created"
apiVersion: v1
kind: Pod
metadata: {name: train}
spec:
  nodeSelector: {kubernetes.io/hostname: $node}
  containers: [{name: main, image: registry.invalid/train:1, resources: {limits: {nvidia.com/gpu: "1"}}}]
POD

wait_until 30 "the pod bound" pods_bound 1
bound="$(kubectl -n "$ns" get pod train -o jsonpath='{.spec.nodeName}')"
[[ "$bound" == "$node" ]] || fail "the pod is bound to \"$bound\", not to $node"

report="$("$binary" inspect --kubeconfig "$KUBECONFIG" --sync-timeout 20s --output json)" ||
  fail "gpu-autoscaler inspect failed"
echo "$report" | python3 -c '
import json, sys
r = json.load(sys.stdin)
node = sys.argv[1]
text = json.dumps(r)
assert node in text, "inspect does not list the node " + node
' "$node" || fail "inspect does not list $node"
echo "ok: the real scheduler bound the GPU pod to $node, and inspect lists it"
