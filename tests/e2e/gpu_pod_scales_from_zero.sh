#!/usr/bin/env bash
# e2e: pending GPU pods on the real control plane scale their pool from zero by exactly the
# nodes they need, though each node's GPUs are advertised seconds after it registers (the
# window in which cluster-autoscaler asks for more). Three 1-GPU pods, 2-GPU nodes: two nodes,
# then every pod bound by the real kube-scheduler.
# Usage: gpu_pod_scales_from_zero.sh KUBECONFIG GPU_AUTOSCALER EXAMPLE_PLUGIN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/scenario.sh"
scenario_begin zero "$@"

l4_pool 5 2 3 > "$work/groups.yaml"
start_plugin "$work/groups.yaml"
start_controller controller --leader-elect=false --address=127.0.0.1:0
wait_until 30 "the controller settled" settled controller

since="$(date +%s.%N)"
# In one request, as a Job or a Deployment's controller makes its pods: all pending at once.
for pod in infer-0 infer-1 infer-2; do gpu_pod "$pod" nvidia.com/gpu 1; echo ---; done |
  create_in_namespace "$ns" || fail "the pods were never created"
wait_until 60 "all three pods bound" pods_bound 3
note_increase_latency "$since" "$work/controller.log" "$scenario"
# Past the GPUs' delay and a few loops more: still two nodes.
holds_for 4 "two nodes for three pods" nodes_are 2
echo "ok: three 1-GPU pods brought up exactly two 2-GPU nodes from zero, and all are bound"
