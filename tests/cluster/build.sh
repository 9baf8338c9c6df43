#!/usr/bin/env bash
# Builds the control plane the end-to-end tests run against, from the Go module proxy:
# kube-apiserver, kube-scheduler and kube-controller-manager of a pinned k8s.io/kubernetes
# release (with -tags providerless: no cloud provider code), and the etcd server it depends on.
# Usage: [KUBE_VERSION=1.34] build.sh OUT_DIR. Each release the suite runs on has a module of
# its own, kube-MAJOR.MINOR/ (go.mod pins the release, its staging modules and etcd; go.sum is
# committed); KUBE_VERSION picks one (default 1.37), and may name the pinned patch too
# (1.34.4). The binaries go to OUT_DIR with a stamp of the module; when the stamp matches they
# are not built again, and Go's build cache makes a rebuild after a pin change take a fraction
# of a cold one.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "${1:?usage: [KUBE_VERSION=1.34] build.sh OUT_DIR}"
out="$(cd "$1" && pwd)"
# Go is on this project's machines (the polyglot image), in /usr/local/go where PATH lacks it.
command -v go >/dev/null || PATH="/usr/local/go/bin:$PATH"
command -v go >/dev/null || { echo "build.sh: go is not on PATH" >&2; exit 1; }

wanted="${KUBE_VERSION:-1.37}"
module="$here/kube-$(echo "$wanted" | cut -d. -f1,2)"
if [[ ! -f "$module/go.mod" ]]; then
  echo "build.sh: KUBE_VERSION=$wanted: no module pins that release; pinned:" \
    "$(cd "$here" && ls -d kube-*/ | tr -d / | sed 's/kube-//' | tr '\n' ' ')" >&2
  exit 2
fi
cd "$module"
# The version the binaries report (/version, and what --emulated-version and feature gates are
# judged against), stamped as Kubernetes' own build does; unstamped they say v0.0.0-master.
version="$(go list -mod=readonly -m -f '{{.Version}}' k8s.io/kubernetes)"
if [[ "$wanted" == *.*.* && "v$wanted" != "$version" ]]; then
  echo "build.sh: KUBE_VERSION=$wanted, but $module pins $version; pin another patch there" \
    "(k8s.io/kubernetes and each staging module's replace) and commit go.mod and go.sum" >&2
  exit 2
fi

stamp="$(cat go.mod go.sum | sha256sum | cut -c1-16)"
binaries=(kube-apiserver kube-scheduler kube-controller-manager etcd)
have_all=1
for b in "${binaries[@]}"; do [[ -x "$out/$b" ]] || have_all=0; done
if ((have_all)) && [[ "$(cat "$out/stamp" 2>/dev/null)" == "$stamp" ]]; then
  echo "build.sh: the $version control plane in $out is up to date ($stamp)"
  exit 0
fi

start=$(date +%s)
minor="$(echo "$version" | cut -d. -f2)"
ldflags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean"
done
# -mod=readonly: go.sum is committed and complete; nothing is resolved anew on a fresh machine.
go build -mod=readonly -tags providerless -trimpath -ldflags "$ldflags" -o "$out/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-scheduler \
  k8s.io/kubernetes/cmd/kube-controller-manager go.etcd.io/etcd/server/v3
# The etcd server's main package is named for its folder, server/.
mv -f "$out/server" "$out/etcd"
echo "$stamp" > "$out/stamp"
echo "build.sh: built ${binaries[*]} of $version in $(( $(date +%s) - start ))s into $out"
