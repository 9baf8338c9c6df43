#!/usr/bin/env bash
# e2e: scale-down drains through the real Eviction API under a real PodDisruptionBudget, whose
# status the real disruption controller keeps (it counts a pod only once it is Ready, so this
# scenario plays the kubelet). Two 2-GPU nodes hold one pod each of a ReplicaSet: either could
# go, its pod fitting beside the other. While the budget allows no disruption, both stay;
# relaxed to allow one, one node is drained and removed and the pod's replacement binds beside
# the other; with the ReplicaSet and the budget gone, the pool goes to zero.
# Usage: drain_under_pdb.sh KUBECONFIG GPU_AUTOSCALER EXAMPLE_PLUGIN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/scenario.sh"
scenario_begin drain "$@"

l4_pool 3 2 1 > "$work/groups.yaml"
start_plugin "$work/groups.yaml"
start_controller controller --leader-elect=false --address=127.0.0.1:0 --scan-interval=1s \
  --scale-down-unneeded-time=1s --scale-down-delay-after-add=0s \
  --scale-down-delay-after-delete=0s --scale-down-gpu-utilization-threshold=0.6
background kubelet play_kubelet

replicas() {
  kubectl -n "$ns" scale replicaset web --replicas="$1" >/dev/null || fail "scaling web to $1"
}
# One node with web's first pod, filled by a pod that cannot move, so web's second pod needs a
# second node; the filler then goes, leaving one web pod on each node, each half used.
create_in_namespace "$ns" <<RS || fail "the ReplicaSet was never created"
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {e2e-scenario: $scenario}
      terminationGracePeriodSeconds: 0
      containers: [{name: main, image: registry.invalid/web:1, resources: {limits: {nvidia.com/gpu: "1"}}}]
RS
wait_until 60 "web's first pod bound" pods_bound 1
gpu_pod filler nvidia.com/gpu 1 | create_in_namespace "$ns" || fail "the filler was never created"
wait_until 30 "the filler bound beside it" pods_bound 2
replicas 2
wait_until 60 "web's second pod bound on a second node" pods_bound 3
nodes_are 2 || fail "$(node_count) nodes for three 1-GPU pods on 2-GPU nodes"
kubectl -n "$ns" delete pod filler --grace-period=0 --force >/dev/null 2>&1
wait_until 20 "the filler gone" pods_bound 2

create_in_namespace "$ns" <<PDB || fail "the PodDisruptionBudget was never created"
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
PDB
budget() { kubectl -n "$ns" get pdb web -o jsonpath='{.status.currentHealthy}/{.status.disruptionsAllowed}'; }
budget_is() { [[ "$(budget)" == "$1" ]]; }
wait_until 30 "the disruption controller counting both pods healthy, allowing none" budget_is 2/0
holds_for 6 "both nodes kept while the budget allows no disruption" nodes_are 2

kubectl -n "$ns" patch pdb web --type=merge -p '{"spec": {"minAvailable": 1}}' >/dev/null
wait_until 30 "the budget allowing one disruption" budget_is 2/1
wait_until 60 "one node drained and removed" nodes_are 1
wait_until 30 "the evicted pod's replacement bound beside the other" pods_bound 2
last="$(kubectl get nodes -l "e2e-scenario=$scenario" -o jsonpath='{.items[0].metadata.name}')"
on_last="$(kubectl -n "$ns" get pods -o jsonpath='{.items[*].spec.nodeName}' | tr ' ' '\n' | grep -c "^$last$")"
[[ "$on_last" == 2 ]] || fail "web's pods are not both on the node that stayed, $last"

replicas 0
kubectl -n "$ns" delete pdb web >/dev/null
wait_until 60 "the pool at zero" nodes_are 0
echo "ok: no node went while the budget allowed no disruption; one did when it allowed one; zero at the end"
