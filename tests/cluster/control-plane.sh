#!/usr/bin/env bash
# A Kubernetes control plane on 127.0.0.1 for the end-to-end tests, from the binaries build.sh
# made: etcd, kube-apiserver, kube-controller-manager and kube-scheduler, each on a free port,
# with certificates made here by openssl. The API server advertises 127.0.0.1, so it keeps no
# endpoints for the kubernetes Service (loopback is refused there). No kubelet, so no node
# lifecycle: the node lifecycle controller is off, and so is TaintNodesByCondition, whose
# not-ready taint only that controller would lift; tests create Node objects with the status
# they want.
#
#   control-plane.sh start BIN_DIR STATE_DIR   prints the kubeconfig's path once /readyz is ok
#   control-plane.sh stop STATE_DIR            stops the processes start began, and no other
#
# With KUBE_EMULATED_VERSION=1.34 the API server, controller-manager and scheduler emulate that
# release (--emulated-version: its APIs, defaults and feature gates) on newer binaries.
#
# STATE_DIR holds the certificates, etcd's data, each component's log, the pids and
# admin.kubeconfig (`export KUBECONFIG=STATE_DIR/admin.kubeconfig` for a debugging session).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# cert NAME SUBJECT EXTENSIONS: a key and a certificate signed by the state's CA.
cert() {
  local name=$1 subject=$2 extensions=$3
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$name.key" \
    -out "$name.csr" -subj "$subject" 2>/dev/null
  printf '%b\n' "$extensions" > "$name.ext"
  openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$name.crt" \
    -days 2 -extfile "$name.ext" 2>/dev/null
}

make_certificates() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key \
    -out ca.crt -days 2 -subj "/CN=gpu-autoscaler-e2e-ca" 2>/dev/null
  local client="keyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth"
  cert apiserver "/CN=kube-apiserver" "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
  cert admin "/O=system:masters/CN=gpu-autoscaler-e2e-admin" "$client"
  cert scheduler "/CN=system:kube-scheduler" "$client"
  cert controller-manager "/CN=system:kube-controller-manager" "$client"
  # Service-account tokens: signed by the controller-manager and the API server, checked by it.
  openssl genrsa -out service-account.key 2048 2>/dev/null
  openssl rsa -in service-account.key -pubout -out service-account.pub 2>/dev/null
}

# kubeconfig NAME SERVER: a kubeconfig for the certificate NAME.
kubeconfig() {
  local name=$1 server=$2 dir
  dir="$(pwd)"
  cat > "$name.kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
current-context: e2e
clusters: [{name: e2e, cluster: {server: "$server", certificate-authority: "$dir/ca.crt"}}]
users: [{name: $name, user: {client-certificate: "$dir/$name.crt", client-key: "$dir/$name.key"}}]
contexts: [{name: e2e, context: {cluster: e2e, user: $name}}]
KUBECONFIG
}

# run NAME COMMAND...: in the background, its log in NAME.log and its pid in pids.
run() {
  local name=$1
  shift
  "$@" > "$name.log" 2>&1 &
  echo "$! $name" >> pids
}

start() {
  local bin state
  bin="$(cd "$1" && pwd)"
  mkdir -p "$2"
  state="$(cd "$2" && pwd)"
  cd "$state"
  [[ ! -s pids ]] || { echo "control-plane.sh: $state has a running control plane; stop it first" >&2; exit 2; }
  # Each start is a new cluster: an earlier run's data may be another release's (etcd refuses
  # a newer one's), and its objects would leak into this run's tests.
  rm -rf "$state/etcd" "$state/apiserver"
  make_certificates
  local etcd_port peer_port api_port server
  etcd_port=$(free_port)
  peer_port=$(free_port)
  api_port=$(free_port)
  server="https://127.0.0.1:$api_port"
  for name in admin scheduler controller-manager; do kubeconfig "$name" "$server"; done
  local emulated=()
  [[ -z "${KUBE_EMULATED_VERSION:-}" ]] || emulated=(--emulated-version "$KUBE_EMULATED_VERSION")
  # No fsync: the data lives as long as the test run.
  run etcd "$bin/etcd" --name e2e --data-dir "$state/etcd" --unsafe-no-fsync \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "e2e=http://127.0.0.1:$peer_port" --listen-metrics-urls ""
  run kube-apiserver "$bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
    --cert-dir "$state/apiserver" --tls-cert-file apiserver.crt --tls-private-key-file apiserver.key \
    --client-ca-file ca.crt --authorization-mode Node,RBAC \
    --service-account-key-file service-account.pub \
    --service-account-signing-key-file service-account.key \
    --service-account-issuer https://kubernetes.default.svc --service-cluster-ip-range 10.96.0.0/16 \
    --endpoint-reconciler-type none --disable-admission-plugins TaintNodesByCondition "${emulated[@]}"
  run kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig controller-manager.kubeconfig --bind-address 127.0.0.1 --secure-port 0 \
    --leader-elect=false --controllers '*,-node-lifecycle-controller' \
    --service-account-private-key-file service-account.key --root-ca-file ca.crt \
    --use-service-account-credentials=true "${emulated[@]}"
  run kube-scheduler "$bin/kube-scheduler" --kubeconfig scheduler.kubeconfig \
    --bind-address 127.0.0.1 --secure-port 0 --leader-elect=false "${emulated[@]}"
  # Ready when the API server says so, within a minute; a component that ended is said at once.
  local pid name
  for _ in $(seq 1 600); do
    if curl -sf --cacert ca.crt --cert admin.crt --key admin.key "$server/readyz" > /dev/null; then
      echo "$state/admin.kubeconfig"
      return 0
    fi
    while read -r pid name; do
      if ! kill -0 "$pid" 2>/dev/null; then
        echo "control-plane.sh: $name ended at start; the end of $state/$name.log:" >&2
        tail -n 5 "$state/$name.log" >&2
        stop_state "$state"
        exit 1
      fi
    done < pids
    sleep 0.1
  done
  echo "control-plane.sh: $server/readyz not ok within 60s; see $state/*.log" >&2
  stop_state "$state"
  exit 1
}

stop_state() {
  local state=$1 pid name
  [[ -f "$state/pids" ]] || return 0
  while read -r pid name; do kill -TERM "$pid" 2>/dev/null || true; done < "$state/pids"
  for _ in $(seq 1 100); do
    local alive=0
    while read -r pid name; do kill -0 "$pid" 2>/dev/null && alive=1; done < "$state/pids"
    ((alive)) || break
    sleep 0.1
  done
  while read -r pid name; do kill -KILL "$pid" 2>/dev/null || true; done < "$state/pids"
  rm -f "$state/pids"
}

case "${1:-}" in
  start) start "${2:?BIN_DIR}" "${3:?STATE_DIR}" ;;
  stop) stop_state "${2:?STATE_DIR}" ;;
  *) echo "usage: control-plane.sh start BIN_DIR STATE_DIR | stop STATE_DIR" >&2; exit 2 ;;
esac
