#!/usr/bin/env bash
# e2e: MIG partitions as DRA devices on the real control plane. A pool at zero of one-A100
# nodes whose template says what NVIDIA's DRA driver publishes: the GPU and every MIG partition
# it can make, consuming its memory and compute slices from the GPU's shared counters (in a
# slice of their own, as the API requires). Eight pods each claiming a 1g.10gb partition: seven
# fit one GPU, so two nodes; the real kube-scheduler allocates the partitions over the
# counters and binds every pod.
# Usage: dra_mig_claims_from_zero.sh KUBECONFIG GPU_AUTOSCALER EXAMPLE_PLUGIN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/scenario.sh"
scenario_begin dramig "$@"

class="e2e-mig-$scenario"
dra_pool 4 NVIDIA-A100-SXM4-80GB 1 4.10 > "$work/groups.yaml"
start_plugin "$work/groups.yaml"
start_controller controller --leader-elect=false --address=127.0.0.1:0
device_class "$class" "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"
kubectl -n "$ns" apply -f - >/dev/null <<TEMPLATE || fail "the ResourceClaimTemplate was refused"
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: mig-1g}
spec:
  spec:
    devices:
      requests:
      - name: mig
        exactly:
          deviceClassName: $class
          selectors: [{cel: {expression: "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"}}]
TEMPLATE
wait_until 30 "the controller settled" settled controller

mig_pod() {
  cat <<POD
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  nodeSelector: {e2e-scenario: $scenario}
  terminationGracePeriodSeconds: 0
  resourceClaims: [{name: mig, resourceClaimTemplateName: mig-1g}]
  containers: [{name: main, image: registry.invalid/$1:1, resources: {claims: [{name: mig}]}}]
POD
}
for i in $(seq 0 7); do mig_pod "infer-$i"; echo ---; done |
  create_in_namespace "$ns" || fail "the pods were never created"
wait_until 90 "all eight pods bound" pods_bound 8
holds_for 6 "two nodes for eight 1g.10gb claims" nodes_are 2
echo "ok: eight pods claiming a 1g.10gb MIG partition each brought up exactly two one-A100 nodes; the scheduler allocated them over the GPUs' counters"
