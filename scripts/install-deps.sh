#!/usr/bin/env bash
# Installs the Debian 12 packages gpu-autoscaler builds with, and only those that are
# missing, so running it again is cheap. Root runs apt-get directly; others go via sudo.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ccache
  clang-14 libclang-rt-14-dev clang-format-14 clang-tidy-14
  libabsl-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libcurl4-openssl-dev libssl-dev openssl curl
  nlohmann-json3-dev libyaml-cpp-dev libsimdjson-dev libcpp-httplib-dev libre2-dev
  catch2 libbenchmark-dev
  libgoogle-perftools-dev
  prometheus
  chromium libpng-dev
)
# Node.js runs deploy/'s checks; a machine that has it from elsewhere keeps its own.
command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

install_npm_packages() {
  # deploy/'s checks validate the manifests with npm's kubernetes-models (and read YAML with
  # npm's yaml), at the versions package-lock.json pins, from the npm registry.
  local dir=tests/deploy
  if [[ ! -f $dir/node_modules/.package-lock.json || $dir/package-lock.json -nt $dir/node_modules/.package-lock.json ]]; then
    echo "install-deps: npm ci in $dir"
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
  fi
}
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ((${#missing[@]} == 0)); then
  install_npm_packages
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
install_npm_packages
