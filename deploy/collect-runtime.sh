#!/bin/sh
# collect-runtime.sh ROOTFS BINARY...
# Lays out, under ROOTFS, what the binaries need to run in an image built FROM scratch: each
# binary in /usr/local/bin, every shared library ldd resolves for it (and the dynamic loader)
# at the path ldd gives, the CA bundle, and passwd/group entries for the non-root user 65532.
# The Dockerfile runs it in its build stage; tests/deploy runs it on the tested binary.
set -eu

[ $# -ge 2 ] || { echo "usage: collect-runtime.sh ROOTFS BINARY..." >&2; exit 2; }
root=$1
shift

copy_file() {  # the file a path names (links followed), at that same path under ROOTFS
  mkdir -p "$root$(dirname "$1")"
  cp -L "$1" "$root$1"
}

mkdir -p "$root/usr/local/bin" "$root/etc/ssl/certs" "$root/tmp"
for binary in "$@"; do
  [ -x "$binary" ] || { echo "collect-runtime.sh: $binary is not an executable" >&2; exit 1; }
  cp "$binary" "$root/usr/local/bin/"
  strip --strip-unneeded "$root/usr/local/bin/$(basename "$binary")" 2>/dev/null || true
  # "libx.so => /lib/.../libx.so (0x...)" and the loader's own "/lib64/ld-linux... (0x...)".
  libraries=$(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
  if ldd "$binary" | grep -q 'not found'; then
    echo "collect-runtime.sh: $binary has unresolved libraries:" >&2
    ldd "$binary" | grep 'not found' >&2
    exit 1
  fi
  for library in $libraries; do copy_file "$library"; done
done

if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
fi
echo 'nonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin' > "$root/etc/passwd"
echo 'nonroot:x:65532:' > "$root/etc/group"
chmod 1777 "$root/tmp"
