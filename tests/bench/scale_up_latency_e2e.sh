#!/usr/bin/env bash
# Pending GPU pods to the provider's increase on a real control plane (docs/performance.md):
# starts tests/cluster's control plane from BIN_DIR, runs the real controller against the
# example plugin, and after a warm-up round ROUNDS times (default 40) creates a batch of 1 to 4
# GPU pods in one request and waits for the controller's increase and the pods' binding; prints
# the samples, p50, p99 and max.
# Usage: scale_up_latency_e2e.sh BIN_DIR GPU_AUTOSCALER EXAMPLE_PLUGIN [ROUNDS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin_dir="$(cd "${1:?BIN_DIR}" && pwd)"
binary="${2:?GPU_AUTOSCALER}"
plugin="${3:?EXAMPLE_PLUGIN}"
rounds="${4:-40}"
state="$(mktemp -d)"
export KUBECONFIG
KUBECONFIG="$(bash "$here/../cluster/control-plane.sh" start "$bin_dir" "$state")"
source "$here/../e2e/scenario.sh"
scenario_begin latency "$KUBECONFIG" "$binary" "$plugin"
trap 'scenario_end; bash "$here/../cluster/control-plane.sh" stop "$state"; rm -rf "$state"' EXIT
export E2E_LATENCY_FILE="$work/samples"

l4_pool $((rounds * 4 + 1)) 1 1 > "$work/groups.yaml"
start_plugin "$work/groups.yaml"
start_controller controller --leader-elect=false --address=127.0.0.1:0
wait_until 30 "the controller settled" settled controller

# A warm-up round, not counted: the rounds measure a controller that has been running (see
# settled in scenario.sh), as pods meet it.
gpu_pod warm-up nvidia.com/gpu 1 | create_in_namespace "$ns" || fail "the warm-up pod"
wait_until 60 "the warm-up pod bound" pods_bound 1
sleep 2
created=1
for ((round = 0; round < rounds; round++)); do
  batch=$((round % 4 + 1))
  since="$(date +%s.%N)"
  for ((i = 0; i < batch; i++)); do gpu_pod "pod-$round-$i" nvidia.com/gpu 1; echo ---; done |
    create_in_namespace "$ns" || fail "round $round's pods were never created"
  created=$((created + batch))
  wait_until 60 "round $round's pods bound" pods_bound "$created"
  note_increase_latency "$since" "$work/controller.log" "$scenario" > /dev/null
done
bash "$here/../e2e/latency_report.sh" "$E2E_LATENCY_FILE"
