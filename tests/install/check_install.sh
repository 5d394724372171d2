#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An install made with `cmake --install BUILD --prefix P` is self-contained
# and relocatable (docs/configuration.md, "Where the configuration is read"):
#   - the installed sbio finds P/LIBDIR/sandboxio/backends and reads
#     P/etc/sandboxio (config.yaml and the drop-ins installed with it: the
#     daytona drop-in disables daytona), with no environment variable;
#   - the headers, sandboxio.pc (prefix relative to the file itself, with
#     backenddir) and <sandboxio/version.h> are there, and a program builds
#     with `pkg-config --cflags --libs sandboxio` alone and runs;
#   - after `mv P Q`, all of the above holds for Q.
set -euo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# grep -q stops reading at its first match; under pipefail the writer's
# SIGPIPE would then fail the pipeline. This one reads everything.
quiet_grep() { grep "$@" >/dev/null; }
cmake --install "$build" --prefix "$work/p" >/dev/null
libdir=$(cd "$work/p" && ls -d lib* | head -1)
for f in include/sandboxio/sandboxio.h include/sandboxio/types.h include/sandboxio/version.h \
         include/sandboxio/backend.h "$libdir/libsandboxio.so.0" "$libdir/sandboxio/backends/sbio-backend-fake.so" \
         bin/sbio etc/sandboxio/conf.d/20-fake.yaml etc/sandboxio/conf.d/20-daytona.yaml; do
  [ -e "$work/p/$f" ] || fail "$f not installed under the prefix"
done
# A sanitizer build's library pulls in the ASan runtime; the small program
# below is not instrumented, so let the runtime load second.
export ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0:detect_leaks=0
unset SBIO_BACKEND_PATH SBIO_CONFIG PKG_CONFIG_PATH
export HOME=$work/home XDG_CONFIG_HOME=$work/home

cat >"$work/t.c" <<'EOF'
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

# check PREFIX: everything above, for the install now at PREFIX.
check() {
  local p=$1 real json files
  real=$(cd "$p" && pwd -P)
  echo "== $p"
  # The configuration directory of this install, and its drop-ins.
  json=$("$p/bin/sbio" backends --json) || fail "sbio backends failed: $json"
  files=$(echo "$json" | /usr/bin/python3 -c 'import json, sys; print("\n".join(json.load(sys.stdin)["config_files"]))')
  [ -n "$files" ] || fail "$p/bin/sbio read no configuration file"
  while read -r f; do
    case $(cd "$(dirname "$f")" && pwd -P) in
      "$real/etc/sandboxio/conf.d") ;;
      *) fail "$p/bin/sbio read $f, outside $p/etc/sandboxio" ;;
    esac
  done <<<"$files"
  echo "$json" | quiet_grep '"name":"daytona","status":"disabled"' || fail "the installed daytona drop-in was not applied: $json"
  echo "$json" | quiet_grep '"name":"fake","status":"available"' || fail "fake is not available: $json"
  # The operator's config.yaml there too.
  printf 'require_isolation: gvisor\n' >"$p/etc/sandboxio/config.yaml"
  "$p/bin/sbio" backends --json | quiet_grep '"isolation_floor":"GVISOR"' || fail "$p/etc/sandboxio/config.yaml was not read"
  # A later layer (the user's file here, a package's drop-in alike) cannot
  # lower that floor: the run is refused (78) and nothing reaches the fake.
  mkdir -p "$XDG_CONFIG_HOME/sandboxio"
  printf 'require_isolation: container\nbackends:\n  fake:\n    settings: {call_log: %s}\n' "$work/fake.log" \
    >"$XDG_CONFIG_HOME/sandboxio/config.yaml"
  "$p/bin/sbio" backends --json | quiet_grep '"isolation_floor":"GVISOR"' || fail "a user file lowered the floor"
  rc=0
  "$p/bin/sbio" run -b fake:// -- echo lowered 2>"$work/run.err" || rc=$?
  [ "$rc" = 78 ] || fail "a run under a floor a later layer tried to lower exited $rc, not 78: $(cat "$work/run.err")"
  quiet_grep 'SBX_E1000.*required isolation GVISOR' "$work/run.err" || fail "not refused for the floor: $(cat "$work/run.err")"
  if [ -e "$work/fake.log" ] && quiet_grep '^create' "$work/fake.log"; then fail "a create reached the fake"; fi
  rm -f "$XDG_CONFIG_HOME/sandboxio/config.yaml" "$work/fake.log"
  rm "$p/etc/sandboxio/config.yaml"
  out=$("$p/bin/sbio" run -b fake:// -- echo installed-ok) || fail "sbio run failed"
  [ "$out" = installed-ok ] || fail "the installed sbio printed '$out'"

  # pkg-config, found from the prefix alone.
  export PKG_CONFIG_PATH=$p/$libdir/pkgconfig
  [ "$(cd "$(pkg-config --variable=prefix sandboxio)" && pwd -P)" = "$real" ] ||
    fail "sandboxio.pc says prefix $(pkg-config --variable=prefix sandboxio)"
  [ -e "$(pkg-config --variable=backenddir sandboxio)/sbio-backend-fake.so" ] ||
    fail "backenddir $(pkg-config --variable=backenddir sandboxio) has no fake backend"
  # shellcheck disable=SC2046 # the flags are words
  cc -o "$work/t" "$work/t.c" $(pkg-config --cflags --libs sandboxio) || fail "cc with pkg-config --cflags --libs sandboxio"
  out=$(LD_LIBRARY_PATH=$p/$libdir "$work/t") || fail "the program linked against the installed library failed: $out"
  [ "$(echo "$out" | sed -n 1p)" = "$(echo "$out" | sed -n 2p)" ] && echo "$out" | quiet_grep '^0\.' ||
    fail "sbio_version() and sbio_version_number() disagree: $out"
  unset PKG_CONFIG_PATH
}

check "$work/p"
# The run path is relative, so the install can move.
readelf -d "$work/p/bin/sbio" | quiet_grep "RUNPATH.*\\\$ORIGIN/\\.\\./$libdir" || fail "sbio's run path is not relative"
mv "$work/p" "$work/q"
check "$work/q"
echo "install ok: a --prefix install reads its own configuration, and still does once moved"
