#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shapes packagers and the loader rely on:
# - libsandboxio.so.0 has SONAME libsandboxio.so.0 and exports only sbio_* (no sbio__ internals);
# - every backend is linked -z now (BIND_NOW) and exports only its entry point.
set -euo pipefail
lib=$1; shift
fail=0
# grep -q stops reading at its first match; under pipefail the writer's
# SIGPIPE would then fail the pipeline (more often the longer its output).
# This one reads everything.
quiet_grep() { grep "$@" >/dev/null; }
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" != "libsandboxio.so.0" ]; then echo "FAIL: SONAME of $lib is '$soname'"; fail=1; fi
# nm prints versioned names as name@@SANDBOXIO_0.1, and each version node
# as an absolute symbol of its own.
bad=$(nm -D --defined-only "$lib" | awk '{sub(/@.*/, "", $3); print $3}' | grep -v '^sbio_[a-z]' |
  grep -Ev '^SANDBOXIO_[0-9]+\.[0-9]+$' || true)
if [ -n "$bad" ]; then echo "FAIL: $lib exports non-API symbols:"; echo "$bad"; fail=1; fi
if ! nm -D --defined-only "$lib" | quiet_grep -E ' sbio_host_open@@SANDBOXIO_0\.1$'; then
  echo "FAIL: sbio_host_open is not exported as sbio_host_open@@SANDBOXIO_0.1"
  fail=1
fi
if nm -D --defined-only "$lib" | grep ' sbio_' | grep -v '@@SANDBOXIO_'; then
  echo "FAIL: unversioned public symbols (above)"
  fail=1
fi
for plugin in "$@"; do
  if ! readelf -d "$plugin" | quiet_grep -E 'BIND_NOW|FLAGS_1.*NOW'; then echo "FAIL: $plugin not linked -z now"; fail=1; fi
  exports=$(nm -D --defined-only "$plugin" | awk '{print $3}')
  if [ "$exports" != "sbio_backend_entry_v1" ]; then echo "FAIL: $plugin exports: $exports"; fail=1; fi
  if ! readelf -lW "$plugin" | quiet_grep NOTE || ! readelf -n "$plugin" | quiet_grep sandboxio; then
    echo "FAIL: $plugin has no PT_NOTE sandboxio note"; fail=1
  fi
done
[ $fail -eq 0 ] && echo "artifacts ok: $lib and $# backend(s)"
exit $fail
