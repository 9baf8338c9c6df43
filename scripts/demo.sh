#!/usr/bin/env bash
# Installs what is missing, builds, and runs `gpu-autoscaler simulate` on its bundled example:
# a week of mixed GPU work over five pools, with a sweep of idle timeouts. Extra arguments go
# to simulate (--report week.html, --output json, --sweep ...).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/release -j "$(nproc)" --target gpu-autoscaler
exec build/release/autoscaler/gpu-autoscaler simulate "$@"
