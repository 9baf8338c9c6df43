#!/usr/bin/env bash
# e2e: a GPU node an agent says is broken is cordoned, drained and replaced on the real control
# plane. One 2-GPU node runs a ReplicaSet's 2-GPU pod; the scenario sets the condition EKS's
# node monitoring agent sets for a GPU that fell off the bus (AcceleratedHardwareReady=False,
# NvidiaXID79Error) through the Node's status subresource, as the agent does. Past the policy's
# toleration the node is tainted and cordoned, a replacement is asked for, the pod is evicted
# and its successor bound by the real kube-scheduler on the new node, and the broken node goes.
# Usage: gpu_node_repaired.sh KUBECONFIG GPU_AUTOSCALER EXAMPLE_PLUGIN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/scenario.sh"
scenario_begin repair "$@"

l4_pool 3 2 1 > "$work/groups.yaml"
cat > "$work/policy.yaml" <<'POLICY'
policies:
- {condition: AcceleratedHardwareReady, status: "False", toleration: 5s}
POLICY
start_plugin "$work/groups.yaml"
start_controller controller --leader-elect=false --address=127.0.0.1:0 --scan-interval=1s \
  --scale-down-unneeded-time=10m --gpu-repair-policy="$work/policy.yaml" --repair-drain-time=30s
background kubelet play_kubelet
wait_until 30 "the controller settled" settled controller

create_in_namespace "$ns" <<RS || fail "the ReplicaSet was never created"
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: train}
spec:
  replicas: 1
  selector: {matchLabels: {app: train}}
  template:
    metadata: {labels: {app: train}}
    spec:
      nodeSelector: {e2e-scenario: $scenario}
      terminationGracePeriodSeconds: 0
      containers: [{name: main, image: registry.invalid/train:1, resources: {limits: {nvidia.com/gpu: "2"}}}]
RS
wait_until 60 "the training pod bound" pods_bound 1
broken="$(kubectl -n "$ns" get pods -o jsonpath='{.items[0].spec.nodeName}')"
[[ -n "$broken" ]] || fail "the training pod has no node"

now="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
kubectl patch node "$broken" --subresource=status --type=strategic -p "{\"status\": {\"conditions\": [
  {\"type\": \"AcceleratedHardwareReady\", \"status\": \"False\", \"reason\": \"NvidiaXID79Error\",
   \"message\": \"GPU has fallen off the bus\", \"lastHeartbeatTime\": \"$now\",
   \"lastTransitionTime\": \"$now\"}]}}" >/dev/null || fail "setting the node's condition"

cordoned() {
  [[ "$(kubectl get node "$broken" -o jsonpath='{.spec.unschedulable}')" == "true" ]] &&
    kubectl get node "$broken" -o jsonpath='{.spec.taints[*].key}' | grep -q 'gpu-autoscaler.io/unhealthy'
}
gone() { ! kubectl get node "$broken" >/dev/null 2>&1; }
bound_elsewhere() {
  local on
  on="$(kubectl -n "$ns" get pods -o jsonpath='{range .items[?(@.spec.nodeName)]}{.spec.nodeName}{"\n"}{end}')"
  [[ -n "$on" && "$on" != *"$broken"* ]]
}
wait_until 30 "the broken node tainted and cordoned" cordoned
grep -q "Repair: node $broken: replacing the node: AcceleratedHardwareReady=False" \
  "$work/controller.log" || wait_until 10 "the repair begun" \
  grep -q "Repair: node $broken: replacing the node" "$work/controller.log"
wait_until 60 "the training pod's successor bound on the replacement" bound_elsewhere
wait_until 60 "the broken node removed" gone
nodes_are 1 || fail "$(node_count) nodes after the repair, not 1"
port="$(served_port "$work/controller.log")"
curl -sf "http://127.0.0.1:$port/metrics" |
  grep -q 'gpu_autoscaler_node_repairs_total{reason="AcceleratedHardwareReady=False"} 1' ||
  fail "the repair is not counted in gpu_autoscaler_node_repairs_total"
echo "ok: the node whose GPU fell off the bus was cordoned, replaced and removed; its pod runs on the new node"
