#!/usr/bin/env bash
# Style checked, not argued. Usage: scripts/check-style.sh BUILD_DIR
# 1. clang-format-14 (.clang-format) on every C++ file: any difference fails.
# 2. clang-tidy-14 (.clang-tidy's checks, every warning an error) on the product's sources
#    (not tests/), each file once for each content of it and of the project headers it
#    includes: a file that passed is remembered in ~/.cache/gpu-autoscaler/tidy, so a machine
#    that checked before checks only what changed. A fresh machine spends at most
#    GPUA_TIDY_BUDGET seconds (default 240), newest files first, and says what it left.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if (($# != 1)); then
  echo "usage: scripts/check-style.sh BUILD_DIR (a configured tree with compile_commands.json)" >&2
  exit 2
fi
build=$1
budget=${GPUA_TIDY_BUDGET:-240}
[[ "$budget" =~ ^[0-9]+$ ]] || { echo "check-style: GPUA_TIDY_BUDGET must be whole seconds, not '$budget'" >&2; exit 2; }
[[ -f "$build/compile_commands.json" ]] || { echo "check-style: $build/compile_commands.json is missing: configure $build first" >&2; exit 2; }

mapfile -t sources < <(git ls-files '*.h' '*.cc' | grep -v '^tests/cluster/')
if ! clang-format-14 --dry-run -Werror "${sources[@]}" 2>/tmp/gpua-format.$$; then
  grep -o '^[^:]*:[0-9]*:[0-9]*: error' /tmp/gpua-format.$$ | cut -d: -f1 | sort -u | sed 's/^/  /' >&2
  rm -f /tmp/gpua-format.$$
  echo "check-style: the files above are not formatted: clang-format-14 -i FILE" >&2
  exit 1
fi
rm -f /tmp/gpua-format.$$
echo "check-style: clang-format: ${#sources[@]} files formatted"

cache=${XDG_CACHE_HOME:-$HOME/.cache}/gpu-autoscaler/tidy
mkdir -p "$cache"
# Newest first: the files the latest commits touched are the ones a change must not skip.
declare -A order=()
n=0
while read -r f; do
  [[ -n "$f" && -z "${order[$f]:-}" ]] && order[$f]=$((n++))
done < <(git log --format= --name-only -n 400 -- '*.cc')
pending=()
while read -r key file; do
  [[ -f "$cache/$key" ]] || pending+=("${order[$file]:-999999} $key $file")
done < <(python3 scripts/tidy_keys.py "$PWD" "$build/compile_commands.json")
if ((${#pending[@]} == 0)); then
  echo "check-style: clang-tidy: every product source passed before"
  exit 0
fi
mapfile -t pending < <(printf '%s\n' "${pending[@]}" | sort -n)

start=$SECONDS failed=0 checked=0 jobs=$(nproc)
tidy_one() {  # KEY FILE: checks it, remembers a pass
  if clang-tidy-14 -p "$build" --quiet --warnings-as-errors='*' "$2" >"$cache/.log.$1" 2>&1; then
    touch "$cache/$1"; rm -f "$cache/.log.$1"
  else
    cat "$cache/.log.$1" >&2; rm -f "$cache/.log.$1"; return 1
  fi
}
i=0
while ((i < ${#pending[@]})) && ((SECONDS - start < budget)); do
  pids=()
  for ((j = 0; j < jobs && i < ${#pending[@]}; j++, i++)); do
    read -r _ key file <<<"${pending[$i]}"
    tidy_one "$key" "$file" & pids+=($!)
    checked=$((checked + 1))
  done
  for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
done
left=$((${#pending[@]} - i))
echo "check-style: clang-tidy: $checked file(s) checked in $((SECONDS - start)) s, $failed failed," \
  "$left left for a later run (budget ${budget} s)"
((failed == 0))
