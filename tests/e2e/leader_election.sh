#!/usr/bin/env bash
# e2e: two replicas of the real binary, each with only the RBAC deploy/ grants (applied to the
# real API server, which enforces it), elect one leader through the Lease cluster-autoscaler
# uses; only the leader acts, and writes what a cluster-autoscaler user reads: the status
# ConfigMap, the events on the pod and on that ConfigMap, the metrics. When the leader dies
# without a word, the other takes the Lease over and acts on the next pod.
# Usage: leader_election.sh KUBECONFIG GPU_AUTOSCALER EXAMPLE_PLUGIN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/scenario.sh"
deploy="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../deploy" && pwd)"
scenario_begin leader "$@"

# deploy/'s ServiceAccount and RBAC as the externalgrpc overlay renders them (kube-system; the
# Deployment is not applied: there is no kubelet to run it), and a token of that account.
kubectl kustomize "$deploy/overlays/externalgrpc" | python3 -c '
import sys
keep = {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}
docs = sys.stdin.read().split("\n---\n")
print("\n---\n".join(d for d in docs if any(l == "kind: " + k for l in d.splitlines() for k in keep)))
' > "$work/rbac.yaml"
kubectl apply -f "$work/rbac.yaml" >/dev/null || fail "deploy/'s RBAC does not apply"
token="$(kubectl -n kube-system create token gpu-autoscaler --duration=1h)"
controller_kubeconfig="$work/service-account.kubeconfig"
controller_namespace=kube-system
server="$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')"
ca="$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.certificate-authority}')"
kubectl config --kubeconfig="$controller_kubeconfig" set-cluster e2e --server="$server" \
  --certificate-authority="$ca" >/dev/null
kubectl config --kubeconfig="$controller_kubeconfig" set-credentials gpu-autoscaler \
  --token="$token" >/dev/null
kubectl config --kubeconfig="$controller_kubeconfig" set-context e2e --cluster=e2e \
  --user=gpu-autoscaler >/dev/null
kubectl config --kubeconfig="$controller_kubeconfig" use-context e2e >/dev/null

l4_pool 3 1 1 > "$work/groups.yaml"
start_plugin "$work/groups.yaml"
election=(--leader-elect=true --leader-elect-lease-duration=4s --leader-elect-renew-deadline=3s
          --leader-elect-retry-period=1s --address=127.0.0.1:0)
says() { grep -q "$2" "$work/$1.log"; }
start_controller replica-a "${election[@]}"
replica_a=$last_pid
wait_until 30 "replica-a leading" says replica-a "Leading: the controller acts"
wait_until 30 "replica-a settled" settled replica-a
start_controller replica-b "${election[@]}"
wait_until 30 "replica-b campaigning" says replica-b "Campaigning for lease"
holder() { kubectl -n kube-system get lease cluster-autoscaler -o jsonpath='{.spec.holderIdentity}'; }
identity_a="$(sed -n 's/.*Campaigning for lease .* as \(.*\)$/\1/p' "$work/replica-a.log")"
[[ "$(holder)" == "$identity_a" ]] || fail "the Lease is held by \"$(holder)\", not replica-a"

since="$(date +%s.%N)"
gpu_pod first nvidia.com/gpu 1 | create_in_namespace "$ns" || fail "the first pod was never created"
wait_until 60 "the first pod bound" pods_bound 1
note_increase_latency "$since" "$work/replica-a.log" "$scenario"
holds_for 3 "one node for one pod, from one of two replicas" nodes_are 1
! says replica-b "Scale-up:" || fail "replica-b acted without the Lease"

# What cluster-autoscaler's users read, under its names, as it writes them (words unquoted).
status="$(kubectl -n kube-system get configmap cluster-autoscaler-status -o jsonpath='{.data.status}')"
for want in "autoscalerStatus: Running" "name: $scenario" "cloudProviderTarget: 1"; do
  grep -q "$want" <<< "$status" || fail "the status ConfigMap lacks \"$want\": $status"
done
kubectl -n kube-system get configmap cluster-autoscaler-status \
  -o jsonpath='{.metadata.annotations.cluster-autoscaler\.kubernetes\.io/last-updated}' | grep -q . ||
  fail "the status ConfigMap has no last-updated annotation"
event_on() {  # NAMESPACE OBJECT REASON
  kubectl -n "$1" get events --field-selector "involvedObject.name=$2,reason=$3" -o name | grep -q .
}
wait_until 10 "a TriggeredScaleUp event on the pod" event_on "$ns" first TriggeredScaleUp
wait_until 10 "a ScaledUpGroup event on the status ConfigMap" \
  event_on kube-system cluster-autoscaler-status ScaledUpGroup
metrics="$(curl -sf "http://127.0.0.1:$(served_port "$work/replica-a.log")/metrics")" ||
  fail "replica-a serves no /metrics"
for want in "cluster_autoscaler_cluster_safe_to_autoscale 1" \
            "cluster_autoscaler_node_group_target_count{node_group=\"$scenario\"} 1" \
            "cluster_autoscaler_scaled_up_nodes_total"; do
  grep -qF "$want" <<< "$metrics" || fail "replica-a's metrics lack \"$want\""
done

# The leader dies; the other takes over within the Lease's duration and acts.
kill_process "$replica_a"
wait_until 20 "replica-b leading after replica-a died" says replica-b "Leading: the controller acts"
wait_until 30 "replica-b's first loop" looped replica-b
[[ "$(holder)" != "$identity_a" ]] || fail "the Lease still names the dead replica-a"
since="$(date +%s.%N)"
gpu_pod second nvidia.com/gpu 1 | create_in_namespace "$ns" || fail "the second pod was never created"
wait_until 60 "the second pod bound" pods_bound 2
note_increase_latency "$since" "$work/replica-b.log" "$scenario"
nodes_are 2 || fail "$(node_count) nodes for two 1-GPU pods"
if grep -qiE "forbidden|\b403\b" "$work"/replica-*.log; then
  fail "a replica was refused something deploy/'s RBAC should grant: $(grep -hiE 'forbidden|\b403\b' "$work"/replica-*.log | head -3)"
fi
echo "ok: one leader at a time with deploy/'s RBAC, CA's status, events and metrics, and a takeover"
