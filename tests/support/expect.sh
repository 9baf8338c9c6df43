# Sourced by the shell tests. Needs $tmp, a directory of the test's own.
# fail MESSAGE: the test fails, saying why.
# expect STATUS WORDS COMMAND...: COMMAND exits with STATUS and what it prints (stdout and
# stderr) holds WORDS.
fail() { echo "FAIL: $*" >&2; exit 1; }

expect() {
  local status=$1 words=$2 got
  shift 2
  "$@" > "$tmp/expect.out" 2>&1
  got=$?
  [[ $got == "$status" ]] || fail "$* exited $got, not $status: $(cat "$tmp/expect.out")"
  grep -qF -- "$words" "$tmp/expect.out" || fail "$* did not say \"$words\": $(cat "$tmp/expect.out")"
}
