# Shell helpers for the control plane's scripts and the e2e tests; sourced, not run.

# A free TCP port on 127.0.0.1 (as the kernel picks one for port 0).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# create_in_namespace NS < MANIFEST: creates the objects (one document or several) once the
# namespace has its default ServiceAccount: a new namespace has none for a moment, and the
# ServiceAccount admission refuses its pods until then. Waits at most 10 s for it, and tries
# a refused create again for 5 s more (what an earlier try made is not made twice).
create_in_namespace() {
  local ns=$1 manifest out=""
  manifest="$(cat)"
  for _ in $(seq 1 50); do
    kubectl -n "$ns" get serviceaccount default >/dev/null 2>&1 && break
    sleep 0.2
  done
  for _ in $(seq 1 10); do
    out="$(kubectl -n "$ns" create -f - 2>&1 >/dev/null <<< "$manifest")" && return 0
    grep -v AlreadyExists <<< "$out" | grep -q . || return 0
    sleep 0.5
  done
  echo "could not create in namespace $ns: $out" >&2
  return 1
}
