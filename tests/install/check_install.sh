#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the build into a staging prefix and checks that the installed
# sbio finds ${libdir}/sandboxio/backends by itself, that the headers and
# sandboxio.pc (with backenddir) are there, and that a program compiles
# against the installed headers with pkg-config.
set -euo pipefail
build=$1
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cmake --install "$build" --prefix "$stage/usr" >/dev/null
libdir=$(cd "$stage/usr" && ls -d lib* | head -1)
for f in include/sandboxio/sandboxio.h include/sandboxio/types.h include/sandboxio/backend.h \
         "$libdir/libsandboxio.so.0" "$libdir/sandboxio/backends/sbio-backend-fake.so" bin/sbio; do
  [ -e "$stage/usr/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
pc=$(find "$stage/usr" -name sandboxio.pc | head -1)
[ -n "$pc" ] || { echo "FAIL: sandboxio.pc not installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
backenddir=$(pkg-config --define-variable=prefix="$stage/usr" --variable=backenddir sandboxio)
[ -e "$backenddir/sbio-backend-fake.so" ] || { echo "FAIL: backenddir $backenddir has no fake backend"; exit 1; }
# The installed CLI, with no environment hints, finds its backends.
out=$(env -u SBIO_BACKEND_PATH -u SBIO_CONFIG HOME="$stage" XDG_CONFIG_HOME="$stage" \
      "$stage/usr/bin/sbio" --config /dev/null run -- echo installed-ok 2>/dev/null)
[ "$out" = "installed-ok" ] || { echo "FAIL: installed sbio printed '$out'"; exit 1; }
# The version macros and the run-time query agree with the library.
cat >"$stage/t.c" <<'EOF'
#include <sandboxio/sandboxio.h>
#include <stdio.h>
#if !defined(SBIO_VERSION_HEX) || SBIO_VERSION_HEX != ((SBIO_VERSION_MAJOR << 16) | (SBIO_VERSION_MINOR << 8) | SBIO_VERSION_PATCH)
#error "sandboxio/version.h is missing or wrong"
#endif
int main(void) {
  char expect[32];
  snprintf(expect, sizeof expect, "%u.%u.%u", sbio_version_number() >> 16, (sbio_version_number() >> 8) & 0xff,
           sbio_version_number() & 0xff);
  if (sbio_version_number() != SBIO_VERSION_HEX) return 1;
  puts(sbio_version());
  puts(expect);
  return 0;
}
EOF
cc $(pkg-config --define-variable=prefix="$stage/usr" --cflags sandboxio) "$stage/t.c" -o "$stage/t" \
   $(pkg-config --define-variable=prefix="$stage/usr" --libs sandboxio) -Wl,-rpath,"$stage/usr/$libdir"
# In a sanitizer build the library pulls in the ASan runtime; this small
# program is not instrumented, so let the runtime load second.
out=$(ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 "$stage/t") ||
  { echo "FAIL: the program linked against the installed library failed: $out"; exit 1; }
[ "$(echo "$out" | sed -n 1p)" = "$(echo "$out" | sed -n 2p)" ] && echo "$out" | grep -q '^0\.' ||
  { echo "FAIL: sbio_version() and sbio_version_number() disagree: $out"; exit 1; }
echo "install ok"
