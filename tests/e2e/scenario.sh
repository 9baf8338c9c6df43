# What every e2e scenario shares; sourced, not run. A scenario runs against the control plane
# tests/cluster started (KUBECONFIG), in a namespace of its own, with node groups whose nodes
# carry the label e2e-scenario=$scenario and pods that select it, so that scenarios running
# side by side (and their controllers) never place, count or remove each other's pods and nodes.
# Everything it started or made is gone when it exits, pass or fail.
source "$(dirname "${BASH_SOURCE[0]}")/../cluster/lib.sh"

# scenario_begin NAME KUBECONFIG GPU_AUTOSCALER [EXAMPLE_PLUGIN]: a scenario's arguments (the
# control plane, the binaries) into KUBECONFIG, binary and plugin; sets ns, scenario and work,
# and creates the namespace.
scenario_begin() {
  export KUBECONFIG="${2:?KUBECONFIG}"
  binary="${3:?GPU_AUTOSCALER}"
  plugin="${4:-}"
  ns="e2e-$1-$$"
  scenario="$1-$$"
  work="$(mktemp -d)"
  pids=()
  cluster_scoped=()
  declare -gA started_at=()
  trap scenario_end EXIT
  kubectl create namespace "$ns" >/dev/null
}

scenario_end() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  kubectl delete namespace "$ns" --wait=false >/dev/null 2>&1 || true
  local object
  for object in "${cluster_scoped[@]}"; do
    kubectl delete "$object" --wait=false >/dev/null 2>&1 || true
  done
  kubectl delete nodes -l "e2e-scenario=$scenario" --wait=false >/dev/null 2>&1 || true
  [[ -n "${E2E_KEEP:-}" ]] && echo "kept $work" || rm -rf "$work"
}

# fail MESSAGE: says why, with the end of each process's log, and ends the scenario.
fail() {
  echo "FAIL: $*" >&2
  local log
  for log in "$work"/*.log; do
    [[ -e "$log" ]] || continue
    echo "--- $log" >&2
    tail -25 "$log" >&2
  done
  exit 1
}

# background NAME COMMAND...: runs it for the rest of the scenario, logging to $work/NAME.log;
# its pid is left in $last_pid.
background() {
  local name=$1
  shift
  "$@" > "$work/$name.log" 2>&1 &
  last_pid=$!
  pids+=("$last_pid")
  started_at[$name]=$(date +%s)
}

# start_plugin GROUPS_FILE: the example plugin serves the simulated cloud of GROUPS_FILE and
# registers a Node for each instance (GPUs once they are ready, deleted when it goes);
# $work/cloud-config.yaml then points the controller at it.
start_plugin() {
  local port
  port="$(free_port)"
  printf 'address: "127.0.0.1:%s"\n' "$port" > "$work/cloud-config.yaml"
  background plugin "$plugin" --node-groups "$1" --address "127.0.0.1:$port" --kubeconfig "$KUBECONFIG"
}

# start_controller NAME [FLAG...]: the real gpu-autoscaler against the plugin, as
# $controller_kubeconfig (default: the admin's), its status and Lease in $controller_namespace
# (default: the scenario's). Its loop runs at the default --scan-interval (10s), woken a quiet
# second after new pods as in production, so a burst of pods is planned in one loop; a
# scenario that waits on scale-down passes a shorter one.
start_controller() {
  local name=$1
  shift
  background "$name" "$binary" --cloud-provider=externalgrpc --cloud-config="$work/cloud-config.yaml" \
    --kubeconfig="${controller_kubeconfig:-$KUBECONFIG}" --namespace="${controller_namespace:-$ns}" \
    --v=2 "$@"
}

# looped NAME: the controller NAME has finished a loop (its last_activity{activity="main"}
# metric is set).
looped() {
  local port
  port="$(served_port "$work/$1.log")"
  [[ -n "$port" ]] && curl -sf "http://127.0.0.1:$port/metrics" |
    grep -qE '^cluster_autoscaler_last_activity\{activity="main"\} [1-9]'
}

# settled NAME: the controller NAME has looped and has run for 6 s. For its first seconds its
# client's rate limit (--kube-client-qps 5, burst 10, cluster-autoscaler's defaults, which
# client-go applies to lists and watches too) repays the informers' first lists and watches
# (about 30 requests), and its writes wait; scenarios create their pods once it has settled,
# as pods meet a controller that has been running.
settled() {
  looped "$1" && (($(date +%s) - started_at[$1] >= 6))
}

# kill_process PID: kills it now (SIGKILL: a crash, nothing released) and forgets it.
kill_process() {
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  local kept=() pid
  for pid in "${pids[@]}"; do [[ "$pid" == "$1" ]] || kept+=("$pid"); done
  pids=("${kept[@]}")
}

# served_port LOG: the port a controller serves /metrics on, from its log.
served_port() {
  sed -n 's/.*Serving \/metrics and \/health-check on port \([0-9]*\).*/\1/p' "$1" | head -1
}

# all_running: fails the scenario if a process it started has ended.
all_running() {
  local pid
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || fail "a process ended early"; done
}

# wait_until SECONDS WHAT COMMAND...: polls COMMAND every 0.2 s until it succeeds; fails the
# scenario with WHAT after SECONDS, or at once if a process it started ended.
wait_until() {
  local seconds=$1 what=$2 i
  shift 2
  for ((i = 0; i < seconds * 5; i++)); do
    "$@" && return 0
    all_running
    sleep 0.2
  done
  fail "$what (not within ${seconds}s)"
}

# holds_for SECONDS WHAT COMMAND...: COMMAND must keep succeeding for SECONDS.
holds_for() {
  local seconds=$1 what=$2 i
  shift 2
  for ((i = 0; i < seconds * 5; i++)); do
    "$@" || fail "$what stopped holding after $((i / 5))s"
    sleep 0.2
  done
}

# node_count: how many of the scenario's Nodes exist.
node_count() {
  kubectl get nodes -l "e2e-scenario=$scenario" -o name | wc -l
}

nodes_are() { [[ "$(node_count)" == "$1" ]]; }

# pods_bound N: the namespace has exactly N pods, every one bound to a node.
pods_bound() {
  local names
  names="$(kubectl -n "$ns" get pods -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}')"
  [[ "$(grep -c . <<< "$names")" == "$1" && "$(grep -c '^$' <<< "$names")" == 0 ]]
}

# l4_pool MAX_SIZE GPUS GPU_READY: the node-group file (on stdout) of one pool of nodes with GPUS
# L4s ($0.98 an hour each), named and labelled for the scenario, at most MAX_SIZE of them. A node
# registers 1-2 s after it is asked for and advertises its GPUs GPU_READY seconds (p50; p95 one
# more) after that, as its driver and device plugin would.
l4_pool() {
  local max=$1 gpus=$2 ready=$3
  cat <<GROUPS
nodeGroups:
- id: $scenario
  maxSize: $max
  pricePerHour: $(awk -v n="$gpus" 'BEGIN { printf "%.2f", 0.98 * n }')
  template:
    metadata:
      labels: {e2e-scenario: $scenario, nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "$gpus"}
    status:
      allocatable: {cpu: "$((8 * gpus))", memory: $((32 * gpus))Gi, pods: "58", nvidia.com/gpu: "$gpus"}
  simulation:
    provisioningDelay: {p50: 1s, p95: 2s}
    gpuReadyDelay: {p50: ${ready}s, p95: $((ready + 1))s}
GROUPS
}

# dra_pool MAX PRODUCT GPUS PRICE: the node-group file (on stdout) of one pool whose GPUs
# (GPUS of PRODUCT, PRICE an hour a node) are DRA devices of NVIDIA's driver, their slices
# derived from the labels; nodes register 1-2 s after they are asked for and publish their
# slices 3-4 s after that.
dra_pool() {
  cat <<GROUPS
nodeGroups:
- id: $scenario
  maxSize: $1
  pricePerHour: $4
  template:
    metadata:
      labels: {e2e-scenario: $scenario, nvidia.com/gpu.product: $2, nvidia.com/gpu.count: "$3"}
      annotations: {gpu-autoscaler.io/dra-driver: gpu.nvidia.com}
    status:
      allocatable: {cpu: "30", memory: 200Gi, pods: "58"}
  simulation:
    provisioningDelay: {p50: 1s, p95: 2s}
    gpuReadyDelay: {p50: 3s, p95: 4s}
GROUPS
}

# device_class NAME CEL: a DeviceClass of the devices CEL selects, deleted when the scenario
# ends (it is cluster-scoped: the namespace does not take it).
device_class() {
  kubectl apply -f - >/dev/null <<CLASS || fail "DeviceClass $1 was refused"
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: $1}
spec:
  selectors:
  - cel: {expression: "$2"}
CLASS
  cluster_scoped+=("deviceclass/$1")
}

# gpu_pod NAME RESOURCE COUNT: a pod manifest needing COUNT of RESOURCE on the scenario's nodes.
gpu_pod() {
  cat <<POD
apiVersion: v1
kind: Pod
metadata: {name: $1, labels: {app: $1}}
spec:
  nodeSelector: {e2e-scenario: $scenario}
  terminationGracePeriodSeconds: 0
  containers: [{name: main, image: registry.invalid/$1:1, resources: {limits: {$2: "$3"}}}]
POD
}

# play_kubelet: every second, each pod of the namespace bound to a node is marked Running and
# Ready, as its kubelet would (the disruption controller counts only Ready pods).
play_kubelet() {
  local now name
  while true; do
    now="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    for name in $(kubectl -n "$ns" get pods -o \
      jsonpath='{range .items[?(@.spec.nodeName)]}{.metadata.name}{" "}{.status.phase}{"\n"}{end}' |
      awk '$2 != "Running" {print $1}'); do
      kubectl -n "$ns" patch pod "$name" --subresource=status --type=merge -p "{\"status\": {
        \"phase\": \"Running\", \"startTime\": \"$now\", \"conditions\": [
        {\"type\": \"Ready\", \"status\": \"True\", \"lastTransitionTime\": \"$now\"},
        {\"type\": \"ContainersReady\", \"status\": \"True\", \"lastTransitionTime\": \"$now\"},
        {\"type\": \"PodScheduled\", \"status\": \"True\", \"lastTransitionTime\": \"$now\"}]}}" \
        >/dev/null 2>&1 || true
    done
    sleep 1
  done
}

# note_increase_latency SINCE LOG GROUP: seconds from SINCE (`date +%s.%N`, taken before the
# pods were created) to the first line of the controller's LOG that says it increased GROUP;
# printed, and added to $E2E_LATENCY_FILE (if set) for the suite's p50/p99.
note_increase_latency() {
  local latency
  latency="$(python3 - "$1" "$2" "$3" <<'PY'
import datetime, sys
since, log, group = float(sys.argv[1]), sys.argv[2], sys.argv[3]
year = datetime.datetime.now(datetime.timezone.utc).year
for line in open(log):
    if f"Scale-up: setting group {group} size" not in line:
        continue
    # klog's header: Lmmdd hh:mm:ss.uuuuuu, in UTC
    at = datetime.datetime.strptime(f"{year}{line[1:21]}", "%Y%m%d %H:%M:%S.%f")
    at = at.replace(tzinfo=datetime.timezone.utc).timestamp()
    if at >= since:
        print(f"{at - since:.3f}")
        break
PY
)"
  [[ -n "$latency" ]] || fail "the controller's log never says it increased $3"
  echo "pending to increase of $3: ${latency}s"
  [[ -z "${E2E_LATENCY_FILE:-}" ]] || echo "$latency $scenario $1" >> "$E2E_LATENCY_FILE"
}
