#!/usr/bin/env bash
# e2e: pods whose GPUs are DRA claims, on the real control plane: the real resourceclaim
# controller makes each pod's claim from its template, the controller scales a pool at zero
# whose template's slices (derived from its GPU labels) say what NVIDIA's DRA driver will
# publish, the example plugin publishes each node's ResourceSlices seconds after it registers
# (as a driver would), and the real kube-scheduler allocates the claims and binds the pods.
# Three one-GPU claims, 2-GPU nodes: two nodes, never a third while the slices come late.
# Usage: dra_claims_scale_from_zero.sh KUBECONFIG GPU_AUTOSCALER EXAMPLE_PLUGIN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/scenario.sh"
scenario_begin dra "$@"

class="e2e-gpu-$scenario"
dra_pool 5 NVIDIA-L4 2 1.96 > "$work/groups.yaml"
start_plugin "$work/groups.yaml"
start_controller controller --leader-elect=false --address=127.0.0.1:0
device_class "$class" "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu' && device.attributes['gpu.nvidia.com'].productName == 'NVIDIA L4'"
kubectl -n "$ns" apply -f - >/dev/null <<TEMPLATE || fail "the ResourceClaimTemplate was refused"
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: $class, count: 1}
TEMPLATE
wait_until 30 "the controller settled" settled controller

claim_pod() {
  cat <<POD
apiVersion: v1
kind: Pod
metadata: {name: $1, labels: {app: $1}}
spec:
  nodeSelector: {e2e-scenario: $scenario}
  terminationGracePeriodSeconds: 0
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers: [{name: main, image: registry.invalid/$1:1, resources: {claims: [{name: gpu}]}}]
POD
}
since="$(date +%s.%N)"
for pod in infer-0 infer-1 infer-2; do claim_pod "$pod"; echo ---; done |
  create_in_namespace "$ns" || fail "the pods were never created"
wait_until 90 "all three pods bound" pods_bound 3
note_increase_latency "$since" "$work/controller.log" "$scenario"
allocated() {
  [[ "$(kubectl -n "$ns" get resourceclaims -o jsonpath='{range .items[*]}{.status.allocation.devices.results[0].device}{"\n"}{end}' | grep -c .)" == 3 ]]
}
wait_until 30 "the three claims allocated" allocated
holds_for 6 "two nodes for three one-GPU claims" nodes_are 2
echo "ok: three pods claiming one GPU each through DRA brought up exactly two 2-GPU nodes from zero; the scheduler allocated and bound them all"
