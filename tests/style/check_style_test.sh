#!/usr/bin/env bash
# scripts/check-style.sh on a small repository of its own: wrong inputs are refused (exit 2,
# saying what is wrong), a file clang-format would change is named (exit 1), a clang-tidy
# finding fails the run and names the file and the check, and a file that passed is remembered
# so the next run does not check it again.
set -uo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

source "$src/tests/support/expect.sh"

repo="$tmp/repo"
mkdir -p "$repo/scripts" "$repo/base" "$repo/build"
cp "$src/scripts/check-style.sh" "$src/scripts/tidy_keys.py" "$repo/scripts/"
cp "$src/.clang-format" "$src/.clang-tidy" "$repo/"
printf 'int Answer() { return 42; }\n' > "$repo/base/good.cc"
cat > "$repo/base/moved.cc" <<'CC'
#include <string>
#include <utility>

std::string Twice(std::string s) {
  std::string kept = std::move(s);
  return kept + s;
}
CC
printf '[\n' > "$repo/build/compile_commands.json"
sep=""
for f in good moved; do
  printf '%s{"directory": "%s", "command": "clang++-14 -std=c++20 -c %s", "file": "%s"}\n' \
    "$sep" "$repo/build" "$repo/base/$f.cc" "$repo/base/$f.cc" >> "$repo/build/compile_commands.json"
  sep=","
done
printf ']\n' >> "$repo/build/compile_commands.json"
git -C "$repo" init -q && git -C "$repo" add -A && git -C "$repo" -c user.name=t -c user.email=t@t commit -qm start
export XDG_CACHE_HOME="$tmp/cache"
run() { (cd "$repo" && "$@"); }

expect 2 "usage: scripts/check-style.sh BUILD_DIR" run bash scripts/check-style.sh
expect 2 "nowhere/compile_commands.json is missing" run bash scripts/check-style.sh nowhere
expect 2 "GPUA_TIDY_BUDGET must be whole seconds, not '2m'" \
  run env GPUA_TIDY_BUDGET=2m bash scripts/check-style.sh build

# A use after a move: clang-tidy's finding fails the run, naming the file and the check.
expect 1 "bugprone-use-after-move" run bash scripts/check-style.sh build
grep -qF "base/moved.cc" "$tmp/expect.out" || fail "the failing file is not named: $(cat "$tmp/expect.out")"
grep -qF "2 file(s) checked" "$tmp/expect.out" || fail "not every file was checked: $(cat "$tmp/expect.out")"

# Fixed, the run passes; run again, nothing is checked twice.
printf '#include <string>\n\nstd::string Twice(const std::string& s) { return s + s; }\n' \
  > "$repo/base/moved.cc"
git -C "$repo" -c user.name=t -c user.email=t@t commit -qam fixed
expect 0 "1 file(s) checked" run bash scripts/check-style.sh build
expect 0 "every product source passed before" run bash scripts/check-style.sh build

# A file clang-format would change is named, before any tidy.
printf 'int   Answer( ) {return 42;}\n' > "$repo/base/good.cc"
git -C "$repo" -c user.name=t -c user.email=t@t commit -qam unformatted
expect 1 "the files above are not formatted" run bash scripts/check-style.sh build
grep -qF "  base/good.cc" "$tmp/expect.out" || fail "the unformatted file is not named: $(cat "$tmp/expect.out")"
echo "PASS"
