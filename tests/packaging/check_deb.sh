#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages (debian/), built and used as a distribution would:
#   1. dpkg-buildpackage -us -uc -b on a copy of the sources: every package
#      of debian/control, which include libsandboxio0, sandboxio,
#      libsandboxio-dev and one sandboxio-backend-NAME per backend in
#      plugins/, each architecture-dependent one with its -dbgsym; the
#      symbols file must cover every exported symbol (dpkg-gensymbols at
#      check level 4);
#   2. lintian on all of them: no error and no warning;
#   3. the fields: the library provides sandboxio-backend-abi-MAJOR, backends
#      depend on it and not on a library version, the drop-in is a conffile,
#      the library has its symbols, shlibs and ldconfig trigger;
#   4. libsandboxio0, sandboxio and sandboxio-backend-fake installed with
#      dpkg --root into an empty root (a shell and ldconfig in it, as dpkg
#      wants them); chrooted there, sbio reads /etc/sandboxio/conf.d, lists
#      exactly the fake backend, runs a command on it and starts every
#      command shipped in /usr/libexec/sandboxio;
#   5. removing the backend: gone from the listing, its conffile kept, the
#      other packages untouched (dpkg -V);
#   6. purging it removes the conffile; purging the rest leaves the root as
#      it was before the first install.
# usage: check_deb.sh SOURCE_DIR
# Exit 77 (skipped) without root or the build dependencies, unless CI=true.
set -euo pipefail
src=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() {
  [ "${CI:-}" = true ] && fail "$* (CI=true: the Debian packages must be built)"
  echo "$*: skipped"
  exit 77
}
# grep -q stops reading at its first match; under pipefail the writer's
# SIGPIPE would then fail the pipeline. This one reads everything.
quiet_grep() { grep "$@" >/dev/null; }
step() { echo "== $*"; }
[ "$(id -u)" = 0 ] || skip "needs root (dpkg --root chroots into the root it installs to)"
for tool in dpkg-buildpackage dpkg-checkbuilddeps lintian dpkg dpkg-deb dpkg-query chroot ldd; do
  command -v "$tool" >/dev/null || skip "$tool is missing (Debian: dpkg-dev, debhelper, lintian)"
done
(cd "$src" && dpkg-checkbuilddeps) || skip "the build dependencies of debian/control are not installed"
work=$(mktemp -d)
root=$work/root
cleanup() {
  if mountpoint -q "$root/proc" 2>/dev/null; then umount "$root/proc"; fi
  rm -rf "$work"
}
trap cleanup EXIT
# The maintainer scripts run chrooted into the root, which holds no preload
# library of the host's (such as libfaketime when the suite runs under a
# fake clock).
dpkg() { env -u LD_PRELOAD dpkg "$@"; }
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

step "dpkg-buildpackage -us -uc -b"
mkdir "$work/sandboxio"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/sandboxio")
else
  (cd "$src" && find . -type f -not -path './build*' -not -path './.git/*' -print0 | xargs -0 cp --parents -t "$work/sandboxio")
fi
# Debian's tools only, as a build daemon has them: PATH without this
# shell's additions (another python3 would build the Python package).
(cd "$work/sandboxio" && env -u LD_PRELOAD PATH=/usr/sbin:/usr/bin:/sbin:/bin DPKG_GENSYMBOLS_CHECK_LEVEL=4 \
  DEB_BUILD_OPTIONS="parallel=$(nproc)" dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 || { tail -60 "$work/build.log"; fail "dpkg-buildpackage"; }
deb() { ls "$work/$1"_*.deb 2>/dev/null | head -1; }
backends=$(cd "$src/plugins" && for d in */; do [ -f "$d/CMakeLists.txt" ] && echo "${d%/}"; done)
# Every package of debian/control (a stanza added there is expected without
# a change here), which must include the core's three and one per backend;
# each architecture-dependent one has its -dbgsym.
control_packages() { awk -v want="$1" '
  /^Package:/ { p = $2 } /^Architecture:/ { a = $2 }
  /^$/ { if (p != "" && (want == "" || (want == "any" && a != "all"))) print p; p = ""; a = "" }
  END { if (p != "" && (want == "" || (want == "any" && a != "all"))) print p }' "$src/debian/control" | sort; }
expected=$(control_packages "")
for p in libsandboxio0 sandboxio libsandboxio-dev $(for b in $backends; do echo "sandboxio-backend-$b"; done); do
  echo "$expected" | grep -x -- "$p" >/dev/null || fail "debian/control has no package $p"
done
built=$(cd "$work" && ls *.deb | sed 's/_.*//' | grep -v -- '-dbgsym$' | sort)
[ "$built" = "$expected" ] || fail "packages built: $(echo $built); expected (debian/control): $(echo $expected)"
for p in $(control_packages any); do
  [ -n "$(deb "$p-dbgsym")" ] || fail "no $p-dbgsym"
done
echo "$(echo $built)"

step "lintian: no error, no warning"
changes=$(ls "$work"/sandboxio_*.changes)
lintian --fail-on error,warning "$changes" >"$work/lintian.log" 2>&1 || { cat "$work/lintian.log"; fail "lintian"; }
if quiet_grep -E '^[EW]: ' "$work/lintian.log"; then cat "$work/lintian.log"; fail "lintian reported errors or warnings"; fi
cat "$work/lintian.log"

step "the control fields"
field() { dpkg-deb -f "$(deb "$1")" "$2"; }
control_file() { dpkg-deb --ctrl-tarfile "$(deb "$1")" | tar -xO "./$2"; }
contents() { dpkg-deb -c "$(deb "$1")" | awk '{print $6}' | grep -v '/$'; }
abi_major=$(sed -n 's/^#define SBIO_BACKEND_ABI_MAJOR \([0-9][0-9]*\).*/\1/p' "$src/sdk/include/sandboxio/backend.h")
abi=sandboxio-backend-abi-$abi_major
[ "$(field libsandboxio0 Provides)" = "$abi" ] || fail "libsandboxio0 Provides: $(field libsandboxio0 Provides)"
for b in $backends; do
  field "sandboxio-backend-$b" Depends | quiet_grep "\\b$abi\\b" || fail "sandboxio-backend-$b does not depend on $abi"
  if field "sandboxio-backend-$b" Depends | quiet_grep libsandboxio; then
    fail "sandboxio-backend-$b depends on a library version: $(field "sandboxio-backend-$b" Depends)"
  fi
  control_file "sandboxio-backend-$b" conffiles | quiet_grep -x "/etc/sandboxio/conf.d/[0-9][0-9]-$b.yaml" ||
    fail "the drop-in of $b is not a conffile"
done
field sandboxio Depends | quiet_grep 'libsandboxio0 (>= ' || fail "sandboxio does not depend on libsandboxio0"
field libsandboxio-dev Depends | quiet_grep 'libsandboxio0 (= ' || fail "libsandboxio-dev does not depend on its libsandboxio0"
control_file libsandboxio0 symbols | quiet_grep '^ sbio_host_open@SANDBOXIO_' || fail "libsandboxio0 has no symbols file"
control_file libsandboxio0 shlibs | quiet_grep '^libsandboxio 0 libsandboxio0 ' || fail "libsandboxio0 has no shlibs file"
control_file libsandboxio0 triggers | quiet_grep '^activate-noawait ldconfig$' || fail "libsandboxio0 has no ldconfig trigger"
if contents libsandboxio0 | grep -v '^\./usr/share/' | quiet_grep -v '/libsandboxio\.so\.0'; then
  fail "libsandboxio0 holds more than the library: $(contents libsandboxio0)"
fi
# The Python package loads the library with ctypes, which no tool sees:
# its dependency is declared by hand.
if [ -n "$(deb python3-sandboxio)" ]; then
  field python3-sandboxio Depends | quiet_grep 'libsandboxio0 (>= ' || fail "python3-sandboxio does not depend on libsandboxio0"
  contents python3-sandboxio | quiet_grep -x ./usr/lib/python3/dist-packages/sandboxio/__init__.py ||
    fail "python3-sandboxio has no sandboxio package: $(contents python3-sandboxio)"
  contents python3-sandboxio | quiet_grep -x ./usr/lib/python3/dist-packages/sandboxio/py.typed ||
    fail "python3-sandboxio has no py.typed"
  # dh_auto_test ran the binding's tests on the fake backend, with the built library.
  quiet_grep -E '^[0-9]+ passed' "$work/build.log" || fail "the Python binding's tests did not run in the build"
fi
for f in ./usr/bin/sbio ./usr/share/man/man1/sbio.1.gz; do
  contents sandboxio | quiet_grep -x "$f" || fail "sandboxio has no $f"
done
for f in "./usr/lib/$multiarch/pkgconfig/sandboxio-backend.pc" ./usr/include/sandboxio/version.h ./usr/bin/sbio-conformance; do
  contents libsandboxio-dev | quiet_grep -x "$f" || fail "libsandboxio-dev has no $f"
done

step "seed an empty root: dpkg's database, a shell and ldconfig"
mkdir -p "$root"/var/lib/dpkg/{info,updates,triggers,alternatives} "$root"/var/log "$root"/tmp "$root"/proc
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
# The host's libraries (at their host paths) that the shell and the
# packaged programs need; the packaged ones come from the packages.
mkdir "$work/unpacked"
for p in libsandboxio0 sandboxio sandboxio-backend-fake; do dpkg-deb -x "$(deb "$p")" "$work/unpacked"; done
copy_closure() {
  for f in "$@"; do env -u LD_PRELOAD LD_LIBRARY_PATH="$work/unpacked/usr/lib/$multiarch" ldd "$f" 2>/dev/null; done |
    awk '/=> \//{print $3} /^[[:space:]]+\/[^ ]+ \(/{print $1}' | sort -u |
    while read -r lib; do
      case $lib in "$work"/*) ;; *) cp -L --parents "$lib" "$root" ;; esac
    done
}
cp -L --parents /bin/sh "$(command -v ldconfig)" "$root"
copy_closure /bin/sh "$work"/unpacked/usr/bin/sbio "$work"/unpacked/usr/libexec/sandboxio/* \
  "$work"/unpacked/usr/lib/"$multiarch"/sandboxio/backends/*.so
snapshot() { (cd "$root" && find . -not -path './var/lib/dpkg*' -not -path './var/log*' | sort); }
snapshot >"$work/before"

step "install libsandboxio0, sandboxio and sandboxio-backend-fake into it"
# --force-depends: the root has none of the system packages (libc6, libcurl4...) installed.
dpkg --root="$root" --force-depends -i "$(deb libsandboxio0)" "$(deb sandboxio)" "$(deb sandboxio-backend-fake)" \
  >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i"; }
status() { dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null || true; }
for p in libsandboxio0 sandboxio sandboxio-backend-fake; do
  [ "$(status "$p")" = "ii " ] || fail "$p is not installed: '$(status "$p")'"
done

chroot_bin=$(command -v chroot)
in_root() { env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C "$chroot_bin" "$root" /usr/bin/sbio "$@"; }
listed() { in_root backends --json | grep -o '"name":"[a-z0-9_]*","status":"[a-z]*"' | tr '\n' ' '; }
step "sbio in the root lists what was installed, reading its drop-in"
in_root backends || fail "sbio backends failed in the root"
json=$(in_root backends --json)
echo "$json" | quiet_grep '"config_files":\["/etc/sandboxio/conf.d/20-fake.yaml"\]' || fail "the drop-in was not read: $json"
[ "$(listed)" = '"name":"fake","status":"available" ' ] || fail "sbio backends lists: $(listed)"
out=$(in_root run -b fake:// -- echo packaged-ok) || fail "sbio run failed in the root"
[ "$out" = packaged-ok ] || fail "sbio run printed '$out'"
# sbio finds the commands beside itself through /proc/self/exe.
mount -t proc proc "$root/proc"
for cmd in "$root"/usr/libexec/sandboxio/sbio-*; do
  name=${cmd##*/sbio-}
  in_root "$name" --help >"$work/help.txt" 2>&1 || { cat "$work/help.txt"; fail "sbio $name --help failed in the root"; }
  echo "sbio $name --help: ok"
done
umount "$root/proc"

step "remove sandboxio-backend-fake: gone from the listing, its conffile kept, the rest untouched"
dpkg --root="$root" -r sandboxio-backend-fake >>"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -r"; }
[ "$(status sandboxio-backend-fake)" = "rc " ] || fail "after removal: '$(status sandboxio-backend-fake)'"
[ ! -e "$root/usr/lib/$multiarch/sandboxio/backends/sbio-backend-fake.so" ] || fail "the plugin is still there"
[ -f "$root/etc/sandboxio/conf.d/20-fake.yaml" ] || fail "the conffile went with a plain removal"
json=$(in_root backends --json) || fail "sbio backends failed after the removal (a drop-in for a missing backend is no error)"
echo "$json" | quiet_grep '"backends":\[\]' || fail "sbio still lists a backend: $json"
for p in libsandboxio0 sandboxio; do
  [ "$(status "$p")" = "ii " ] || fail "$p was touched: '$(status "$p")'"
  dpkg --root="$root" -V "$p" || fail "$p's files changed"
done

step "purge it: the conffile goes too; purge the rest: nothing is left"
dpkg --root="$root" -P sandboxio-backend-fake >>"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -P"; }
[ -z "$(status sandboxio-backend-fake)" ] || [ "$(status sandboxio-backend-fake)" = "un " ] ||
  fail "after purge: '$(status sandboxio-backend-fake)'"
[ ! -e "$root/etc/sandboxio/conf.d/20-fake.yaml" ] || fail "the conffile survived the purge"
dpkg --root="$root" -P sandboxio libsandboxio0 >>"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -P"; }
snapshot >"$work/after"
diff "$work/before" "$work/after" || fail "the root is not as it was before the packages (above: what is left)"
echo "debian packages ok: $(echo $built | wc -w) packages, lintian clean, installed, removed and purged"
