#!/usr/bin/env bash
# The control plane's variables given wrong: a release no module pins and a patch other than the
# pinned one are refused by build.sh (exit 2, naming what is pinned), and an emulated version the
# binaries cannot emulate stops control-plane.sh at once, naming the component and its error.
# Usage: refusals_test.sh BIN_DIR
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:?BIN_DIR}"
tmp="$(mktemp -d)"
trap 'bash "$here/control-plane.sh" stop "$tmp/state" 2>/dev/null; rm -rf "$tmp"' EXIT

source "$here/../support/expect.sh"

expect 2 "KUBE_VERSION=1.35: no module pins that release; pinned: 1.34 1.37" \
  env KUBE_VERSION=1.35 bash "$here/build.sh" "$tmp/out"
expect 2 "KUBE_VERSION=1.37.1, but $here/kube-1.37 pins v1.37.2" \
  env KUBE_VERSION=1.37.1 bash "$here/build.sh" "$tmp/out"
[[ ! -e "$tmp/out/kube-apiserver" ]] || fail "a refused build.sh built something"
# Every component refuses the version; whichever ends first is named, with its own words.
expect 1 "ended at start" \
  env KUBE_EMULATED_VERSION=1.20 bash "$here/control-plane.sh" start "$bin" "$tmp/state"
grep -q "emulation version 1.20 is not between" "$tmp/expect.out" || fail "the component's own words are not shown: $(cat "$tmp/expect.out")"
[[ ! -s "$tmp/state/pids" ]] || fail "control-plane.sh left processes running"
echo "ok: unpinned releases and patches refused, an impossible emulated version stops the start"
