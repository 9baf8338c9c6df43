#!/usr/bin/env bash
# Installs what is missing, builds the normal, the sanitizer (ASan + UBSan) and the fuzzing
# (clang, libFuzzer) trees and a real control plane (tests/cluster), checks the style, and runs
# every test of all three trees, the e2e tests against that control plane among them, through
# one CTest run, which ends with CTest's summary line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh
jobs=$(nproc)
# The Kubernetes release the e2e tests run on: KUBE_VERSION=1.34 for the oldest with DRA at GA
# (tests/cluster/kube-*), and KUBE_EMULATED_VERSION=1.34 for newer binaries emulating it.
cluster="$PWD/build/cluster-$(echo "${KUBE_VERSION:-1.37}" | cut -d. -f1,2)"

cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGPUA_CLUSTER_BIN_DIR="$cluster"
cmake --build build/release -j "$jobs"

# Style checked, not argued: clang-format on every file, clang-tidy on the product's sources
# (each remembered once it passed, so a machine that checked before checks what changed).
bash scripts/check-style.sh build/release

cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGPUA_SANITIZE=ON \
  -DGPUA_BUILD_BENCHMARKS=OFF
cmake --build build/asan -j "$jobs"

# clang with libFuzzer: the fuzz targets, each run for a bounded, seeded number of inputs.
CC=clang-14 CXX=clang++-14 cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGPUA_FUZZ=ON -DGPUA_BUILD_TESTS=OFF -DGPUA_BUILD_BENCHMARKS=OFF
cmake --build build/fuzz -j "$jobs"

# A real control plane for the e2e tests (label e2e): kube-apiserver, -scheduler,
# -controller-manager and etcd from the Go module proxy, built once per pin change.
bash tests/cluster/build.sh "$cluster"

# One CTest tree over the three builds, so one summary counts every case.
printf 'subdirs("release" "asan" "fuzz")\n' > build/CTestTestfile.cmake
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 300
