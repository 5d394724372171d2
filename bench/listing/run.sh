#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `sbio backends --json` with 1,000 installed backends against the least a
# program can do with the same files: dlopen + dlclose each (dlopen_loop.c),
# in one hyperfine run. The backends are the SDK's template built once, its
# name patched in place (bk0000 ... bk0999, same length), so every file is
# a distinct, valid backend.
# usage: bench/listing/run.sh [BUILD_DIR]
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need hyperfine
count=$(runs 20 1000)
cc -O2 -Wall "$bench_root/listing/dlopen_loop.c" -o "$scratch/dlopen_loop"
sed 's/^#define EXAMPLE "example"$/#define EXAMPLE "bkXXXX"/' "$src_root/sdk/template/example.c" >"$scratch/bk.c"
cc -O2 -shared -fPIC -fvisibility=hidden "$scratch/bk.c" -I"$src_root/sdk/include" -I"$src_root/core/include" \
  -I"$build/include" -Wl,--as-needed "$build/lib/libsandboxio-backend-sdk.a" -lcjson -lpthread \
  -Wl,--version-script="$src_root/sdk/cmake/backend.map" -o "$scratch/bk.so"
mkdir "$scratch/backends"
/usr/bin/python3 - "$scratch/bk.so" "$scratch/backends" "$count" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
if data.count(b"bkXXXX") != 2:
    sys.exit("listing/run.sh: the template's name should appear twice (note and table)")
for i in range(int(sys.argv[3])):
    name = b"bk%04d" % i
    open("%s/sbio-backend-%s.so" % (sys.argv[2], name.decode()), "wb").write(data.replace(b"bkXXXX", name))
PY
listed=$(SBIO_BACKEND_PATH=$scratch/backends "$build/bin/sbio" backends --json |
  /usr/bin/python3 -c 'import json,sys; print(sum(b["name"].startswith("bk") and b["status"] == "available" for b in json.load(sys.stdin)["backends"]))')
[ "$listed" = "$count" ] || { echo "listing/run.sh: sbio lists $listed of the $count backends as available" >&2; exit 1; }
SBIO_BACKEND_PATH=$scratch/backends hyperfine -N --style none --warmup "$(runs 1 3)" --runs "$(runs 3 30)" \
  --export-json "$scratch/listing.json" "$build/bin/sbio backends --json" "$scratch/dlopen_loop $scratch/backends" \
  >/dev/null
header
/usr/bin/python3 "$bench_root/lib/hyperfine_rows.py" "$scratch/listing.json" \
  "\`sbio backends --json\`, $count backends" "dlopen+dlclose loop over the same files (peer)"
