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
printf '#include <sandboxio/sandboxio.h>\n#include <stdio.h>\nint main(void){puts(sbio_version());return 0;}\n' > "$stage/t.c"
cc $(pkg-config --define-variable=prefix="$stage/usr" --cflags sandboxio) "$stage/t.c" -o "$stage/t" \
   $(pkg-config --define-variable=prefix="$stage/usr" --libs sandboxio) -Wl,-rpath,"$stage/usr/$libdir"
# In a sanitizer build the library pulls in the ASan runtime; this small
# program is not instrumented, so let the runtime load second.
ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 "$stage/t" | grep -q '^0\.' || { echo "FAIL: program linked against installed library did not run"; exit 1; }
echo "install ok"
