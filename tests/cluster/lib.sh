# Shell helpers for the control plane's scripts and the e2e tests; sourced, not run.

# A free TCP port on 127.0.0.1 (as the kernel picks one for port 0).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# create_in_namespace NS < MANIFEST: creates the object, retried for up to 10 s, since a new
# namespace has no default ServiceAccount for a moment and its first pods are refused.
create_in_namespace() {
  local ns=$1 manifest
  manifest="$(cat)"
  for _ in $(seq 1 50); do
    kubectl -n "$ns" create -f - >/dev/null 2>&1 <<< "$manifest" && return 0
    sleep 0.2
  done
  echo "could not create in namespace $ns:" >&2
  kubectl -n "$ns" create -f - <<< "$manifest" >&2
}
