#!/usr/bin/env bash
# Installs what is missing, builds the normal and the sanitizer (ASan + UBSan) trees, and runs
# every test of both through one CTest run, which ends with CTest's summary line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh
jobs=$(nproc)

cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build/release -j "$jobs"

cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGPUA_SANITIZE=ON \
  -DGPUA_BUILD_BENCHMARKS=OFF
cmake --build build/asan -j "$jobs"

# One CTest tree over both builds, so one summary counts every case.
printf 'subdirs("release" "asan")\n' > build/CTestTestfile.cmake
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 300
