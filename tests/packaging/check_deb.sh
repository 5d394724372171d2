#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages, built and installed the way a distribution would:
#   1. configure a fresh tree for /usr (sysconfdir /etc, multiarch libdir)
#      with only the fake backend, build it, and make the packages (cpack);
#   2. check names, Provides/Depends (backends depend on the ABI virtual
#      package, not on a library version), conffiles and contents;
#   3. install libsandboxio0, sandboxio and sandboxio-backend-fake into a
#      throw-away root with dpkg --root (maintainer scripts run chrooted
#      there, so the root gets a shell and ldconfig);
#   4. the installed sbio lists exactly the installed backend and runs a
#      command; in a chroot (plain builds) it reads the package's drop-in
#      from /etc/sandboxio/conf.d;
#   5. remove the backend package: it is gone from the listing, its drop-in
#      stays as a conffile until purge, and the core packages are untouched.
# usage: check_deb.sh SOURCE_DIR BUILD_TYPE SANITIZE(ON|OFF) CC
# Exit 77 (skipped) without root, dpkg-dev or file (CPack runs dpkg-shlibdeps and file).
set -euo pipefail
src=$1 build_type=${2:-Debug} sanitize=${3:-OFF} cc=${4:-cc}
fail() { echo "FAIL: $*" >&2; exit 1; }
# grep -q stops reading at its first match; under pipefail the writer's
# SIGPIPE would then fail the pipeline. This one reads everything.
quiet_grep() { grep "$@" >/dev/null; }
step() { echo "== $*"; }
[ "$(id -u)" = 0 ] || { echo "needs root (dpkg --root runs maintainer scripts in a chroot): skipped"; exit 77; }
for tool in dpkg dpkg-deb dpkg-shlibdeps dpkg-query cpack chroot file ldd; do
  command -v "$tool" >/dev/null || { echo "$tool is missing (Debian: dpkg-dev, file): skipped"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset SBIO_CONFIG SBIO_BACKEND_PATH
export HOME=$work XDG_CONFIG_HOME=$work
export ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0

step "build a /usr tree with the fake backend and make the packages"
cmake -S "$src" -B "$work/build" -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_BUILD_TYPE="$build_type" \
      -DSBIO_SANITIZE="$sanitize" -DSBIO_BUILD_TESTS=OFF -DSBIO_BACKENDS=fake -DCMAKE_C_COMPILER="$cc" \
      >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure"; }
cmake --build "$work/build" -j"$(nproc)" >"$work/build.log" 2>&1 || { tail -50 "$work/build.log"; fail "build"; }
(cd "$work" && cpack --config "$work/build/CPackConfig.cmake" -B "$work/debs" -G DEB) >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack"; }
deb() { ls "$work/debs/$1"_*.deb 2>/dev/null | head -1; }
names=$(cd "$work/debs" && ls *.deb | sed 's/_.*//' | sort | tr '\n' ' ')
[ "$names" = "libsandboxio-dev libsandboxio0 sandboxio sandboxio-backend-fake " ] || fail "packages: $names"

step "check the control fields and contents"
field() { dpkg-deb -f "$(deb "$1")" "$2"; }
contents() { dpkg-deb -c "$(deb "$1")" | awk '{print $6}' | grep -v '/$'; }
[ "$(field libsandboxio0 Provides)" = "sandboxio-backend-abi-1" ] || fail "libsandboxio0 Provides: $(field libsandboxio0 Provides)"
field sandboxio-backend-fake Depends | quiet_grep '\bsandboxio-backend-abi-1\b' || fail "the backend does not depend on the ABI"
if field sandboxio-backend-fake Depends | quiet_grep libsandboxio; then
  fail "the backend depends on a library version: $(field sandboxio-backend-fake Depends)"
fi
field sandboxio Depends | quiet_grep 'libsandboxio0 (>= ' || fail "sandboxio does not depend on libsandboxio0"
field libsandboxio-dev Depends | quiet_grep 'libsandboxio0 (= ' || fail "libsandboxio-dev does not depend on its libsandboxio0"
# Each package has its own one-line summary.
# (No `dpkg-deb ... | head`: a dpkg-deb killed by SIGPIPE leaves its temporary directory behind.)
summary() { local d; d=$(field "$1" Description); echo "${d%%$'\n'*}"; }
summaries=$(for p in libsandboxio0 sandboxio libsandboxio-dev sandboxio-backend-fake; do summary "$p"; done)
[ "$(echo "$summaries" | grep -c .)" = 4 ] && [ "$(echo "$summaries" | sort -u | wc -l)" = 4 ] ||
  fail "the packages do not each have a summary of their own: $summaries"
if contents libsandboxio0 | quiet_grep -v '/libsandboxio\.so\.0'; then
  fail "libsandboxio0 holds more than the library: $(contents libsandboxio0)"
fi
libdir=$(grep -m1 '^CMAKE_INSTALL_LIBDIR:' "$work/build/CMakeCache.txt" | cut -d= -f2)
[ "$(contents sandboxio-backend-fake | sort | tr '\n' ' ')" = \
  "./etc/sandboxio/conf.d/20-fake.yaml ./usr/$libdir/sandboxio/backends/sbio-backend-fake.so " ] ||
  fail "sandboxio-backend-fake holds: $(contents sandboxio-backend-fake)"
dpkg-deb --ctrl-tarfile "$(deb sandboxio-backend-fake)" | tar -xO ./conffiles | quiet_grep -x /etc/sandboxio/conf.d/20-fake.yaml ||
  fail "the drop-in is not a conffile"
contents sandboxio | quiet_grep '^./usr/bin/sbio$' || fail "sandboxio has no sbio"
contents libsandboxio-dev | quiet_grep 'pkgconfig/sandboxio-backend.pc$' || fail "libsandboxio-dev has no sandboxio-backend.pc"

step "seed a throw-away root: dpkg's database, and a shell and ldconfig for the maintainer scripts"
root=$work/root
mkdir -p "$root"/var/lib/dpkg/{info,updates,triggers,alternatives} "$root"/var/log "$root"/etc "$root"/tmp
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
# Host libraries at their host paths, for the shell and (in a chroot) sbio.
copy_closure() {
  for f in "$@"; do env -u LD_PRELOAD ldd "$f" 2>/dev/null; done | awk '/=> \//{print $3} /^[[:space:]]+\/[^ ]+ \(/{print $1}' | sort -u |
    while read -r lib; do
      case $lib in "$work"/*) ;; *) cp -L --parents "$lib" "$root" ;; esac
    done
}
cp -L --parents /bin/sh "$root"
cp -L --parents "$(command -v ldconfig)" "$root"
copy_closure /bin/sh "$work/build/bin/sbio" "$work/build/lib/libsandboxio.so.0" \
  "$work/build/lib/sandboxio/backends/sbio-backend-fake.so"

# The maintainer scripts run chrooted into the root, which holds no preload
# library of the host's (such as libfaketime when the suite runs under a
# fake clock).
dpkg() { env -u LD_PRELOAD dpkg "$@"; }

step "install libsandboxio0, sandboxio and sandboxio-backend-fake into the root"
# --force-depends: the root has none of the system packages (libc6, libcurl4...) installed.
dpkg --root="$root" --force-depends -i "$(deb libsandboxio0)" "$(deb sandboxio)" "$(deb sandboxio-backend-fake)" \
  >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i"; }
status() { dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null || true; }
for p in libsandboxio0 sandboxio sandboxio-backend-fake; do
  [ "$(status "$p")" = "ii " ] || fail "$p is not installed: '$(status "$p")'"
done
[ -z "$(status libsandboxio-dev)" ] || fail "libsandboxio-dev was installed"
[ -f "$root/etc/ld.so.cache" ] || fail "the library's postinst (ldconfig) did not run"

# Programs in /usr/bin carry no run path (the library is in a directory the
# dynamic linker searches): run from outside the root, they are shown it.
sbio() { LD_LIBRARY_PATH="$root/usr/$libdir" "$root/usr/bin/sbio" --config /dev/null "$@"; }
# The backends listed, by file (the JSON also names mechanisms).
names() { sbio backends --json | grep -o 'sbio-backend-[a-z0-9_]*\.so"' | sed 's/sbio-backend-\(.*\)\.so"/\1/' | sort | tr '\n' ' '; }
backenddir=$(dirname "$(find "$root/usr/lib" -name sbio-backend-fake.so)")
step "sbio lists exactly what was installed"
sbio backends
[ "$(names)" = "fake " ] || fail "sbio backends lists: $(names)"
sbio backends | quiet_grep -E "^fake +available +CONTAINER .*sbio-backend-fake\.so\$" || fail "fake is not available"
out=$(sbio run -b fake:// -- echo packaged-ok)
[ "$out" = "packaged-ok" ] || fail "sbio run printed '$out'"
LD_LIBRARY_PATH="$root/usr/$libdir" "$root/usr/bin/sbio" config check "$root/etc/sandboxio/conf.d/20-fake.yaml" ||
  fail "the drop-in does not check"

chroot_bin=$(command -v chroot)
in_chroot() { env -i PATH=/usr/bin:/bin HOME=/nonexistent "$chroot_bin" "$root" /usr/bin/sbio "$@"; }
if [ "$sanitize" != ON ]; then
  # The sanitizer runtime needs /proc, which the root does not have.
  step "in a chroot, sbio reads the package's drop-in from /etc/sandboxio/conf.d"
  json=$(in_chroot backends --json) || fail "sbio in the chroot failed: $json"
  echo "$json" | quiet_grep '"config_files":\["/etc/sandboxio/conf.d/20-fake.yaml"\]' || fail "drop-in not read: $json"
  echo "$json" | quiet_grep '"name":"fake"' || fail "fake not listed in the chroot: $json"
fi

step "remove sandboxio-backend-fake: gone, the core untouched"
dpkg --root="$root" -r sandboxio-backend-fake >>"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -r"; }
[ "$(status sandboxio-backend-fake)" = "rc " ] || fail "after removal: '$(status sandboxio-backend-fake)'"
[ ! -e "$backenddir/sbio-backend-fake.so" ] || fail "the plugin is still there"
[ -f "$root/etc/sandboxio/conf.d/20-fake.yaml" ] || fail "the conffile went with a plain removal"
[ "$(names)" = "" ] || fail "sbio still lists: $(names)"
sbio backends
for p in libsandboxio0 sandboxio; do
  [ "$(status "$p")" = "ii " ] || fail "$p was touched: '$(status "$p")'"
  dpkg --root="$root" -V "$p" || fail "$p's files changed"
done
sbio version >/dev/null || fail "sbio no longer runs"
if [ "$sanitize" != ON ]; then
  # A drop-in for a backend that is not installed is not an error.
  json=$(in_chroot backends --json) || fail "sbio in the chroot failed after removal: $json"
  echo "$json" | quiet_grep '"backends":\[\]' || fail "the chroot still lists a backend: $json"
fi

step "purge it: the conffile goes too"
dpkg --root="$root" -P sandboxio-backend-fake >>"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -P"; }
[ -z "$(status sandboxio-backend-fake)" ] || [ "$(status sandboxio-backend-fake)" = "un " ] ||
  fail "after purge: '$(status sandboxio-backend-fake)'"
[ ! -e "$root/etc/sandboxio/conf.d/20-fake.yaml" ] || fail "the conffile survived the purge"
echo "debian packages ok"
