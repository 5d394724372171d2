#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Whole `sbio` processes against /bin/true, in one hyperfine run: `sbio
# version`, and `sbio run -- true` on the fake backend. Also how many
# shared objects each maps (the dynamic linker's own LD_DEBUG=libs report).
# usage: bench/cli/run.sh [BUILD_DIR]
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need hyperfine
sbio=$build/bin/sbio
hyperfine -N --style none --warmup "$(runs 1 10)" --runs "$(runs 3 200)" --export-json "$scratch/cli.json" \
  "$sbio version" "$sbio run -- true" /bin/true >/dev/null
header
# shellcheck disable=SC2016 # the labels are Markdown code, not shell
/usr/bin/python3 "$bench_root/lib/hyperfine_rows.py" "$scratch/cli.json" \
  '`sbio version`' '`sbio run -- true` (fake)' '`/bin/true` (peer)'
objects() { LD_DEBUG=libs "$@" 2>&1 >/dev/null | grep -c 'calling init:' || true; }
echo
echo "Shared objects initialised: \`sbio version\` $(objects "$sbio" version)," \
  "\`sbio run -- true\` $(objects "$sbio" run -- true), \`/bin/true\` $(objects /bin/true)."
if [ -f "$build/lib/sandboxio/backends/sbio-backend-docker.so" ]; then
  echo
  echo "Loading the docker backend (\`sbio inspect --load docker\`, no engine needed):" \
    "$(objects "$sbio" inspect --load docker) shared objects."
fi
