#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job on its bundled example: the
# estimator plans the nodes for examples/pending-pods.yaml over examples/node-groups.yaml.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/release -j "$(nproc)" --target gpu-autoscaler
exec build/release/autoscaler/gpu-autoscaler estimate \
  --pods examples/pending-pods.yaml --node-groups examples/node-groups.yaml "$@"
