#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds sbio-python:test on the test engine (tests/docker/engine.sh wrote
# its state): busybox for the shell tools the docker backend needs, plus
# this machine's own python3 with its libraries and standard library, so
# run_python has a real interpreter with no image pull (the tests never
# leave loopback).
#   python_image.sh ENGINE_STATE_DIR     prints the image name, or exits 77
set -euo pipefail
state=${1:?usage: python_image.sh ENGINE_STATE_DIR}/state
image=sbio-python:test
host=$(sed -n 's/^host=//p' "$state" 2>/dev/null || true)
[ -n "$host" ] || { echo "python_image.sh: no engine ($(cat "$state" 2>/dev/null || echo 'no state'))" >&2; exit 77; }
d() { docker -H "$host" "$@"; }
if d image inspect "$image" >/dev/null 2>&1; then echo "$image"; exit 0; fi
py=$(readlink -f /usr/bin/python3)
bb=$(command -v busybox || true)
[ -x /bin/busybox ] && bb=/bin/busybox
[ -n "$bb" ] && [ -x "$py" ] || { echo "python_image.sh: needs /usr/bin/python3 and busybox" >&2; exit 77; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/tmp" "$root/etc" "$root/work" "$root/proc" "$root/sys" "$root/dev" "$root/usr/bin"
chmod 1777 "$root/tmp"
cp "$bb" "$root/bin/busybox"
for a in $("$bb" --list); do [ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"; done
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"
# The interpreter, the libraries it links, its standard library (without
# tests, tools and caches), all at the paths it was built for.
cp "$py" "$root/usr/bin/python3"
for lib in $(ldd "$py" | awk '/=>/ {print $3} /ld-linux/ {print $1}'); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
stdlib=$("$py" -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')
mkdir -p "$root$stdlib"
tar -C "$stdlib" --exclude=test --exclude=idlelib --exclude=tkinter --exclude=ensurepip --exclude=lib2to3 \
  --exclude=dist-packages --exclude=__pycache__ --exclude='config-*' -cf - . | tar -C "$root$stdlib" -xf -
tar -C "$root" -cf "$root.tar" .
d import "$root.tar" "$image" >/dev/null
rm -f "$root.tar"
d run --rm --network none "$image" python3 -c 'print("ok")' >/dev/null
echo "$image"
