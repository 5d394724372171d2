#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The RPM packages, built from packaging/rpm/sandboxio.spec with rpmbuild as
# Fedora would (on Debian: --nodeps, since the build dependencies are
# Debian packages here, and packaging/rpm/debian-host.macros for what
# Fedora's build root adds):
#   1. a source tarball of the tracked files, rpmbuild -bb: every package of
#      the spec, which include sandboxio, sandboxio-libs, sandboxio-devel and
#      one sandboxio-backend-NAME per backend in plugins/, each
#      architecture-dependent one with its -debuginfo;
#   2. the split: -libs provides sandboxio(backend-abi) = MAJOR, backends
#      require it and no library, drop-ins are %config(noreplace), files land
#      in Fedora's directories (%{_libdir} = /usr/lib64, /etc);
#   3. rpmlint on the packages and the spec: every finding must be one that
#      packaging/README.md lists, for those packages, with why it does not
#      apply ("rpmlint findings that do not apply").
# usage: check_rpm.sh SOURCE_DIR
# Exit 77 (skipped) without rpmbuild or rpmlint, unless CI=true.
set -euo pipefail
src=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() {
  [ "${CI:-}" = true ] && fail "$* (CI=true: the RPM packages must be built)"
  echo "$*: skipped"
  exit 77
}
quiet_grep() { grep "$@" >/dev/null; }
step() { echo "== $*"; }
for tool in rpmbuild rpmspec rpmlint rpm find-debuginfo eu-strip; do
  command -v "$tool" >/dev/null || skip "$tool is missing (Debian: rpm, rpmlint, debugedit, elfutils)"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
spec=$src/packaging/rpm/sandboxio.spec
version=$(sed -n 's/^Version: *//p' "$spec")
mkdir -p "$work"/top/{SOURCES,SPECS} "$work/src/sandboxio-$version"

step "a source tarball and rpmbuild -bb"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/src/sandboxio-$version")
else
  (cd "$src" && find . -type f -not -path './build*' -not -path './.git/*' -print0 |
    xargs -0 cp --parents -t "$work/src/sandboxio-$version")
fi
tar -C "$work/src" -czf "$work/top/SOURCES/sandboxio-$version.tar.gz" "sandboxio-$version"
(env -u LD_PRELOAD rpmbuild -bb --nodeps --define "_topdir $work/top" --load "$src/packaging/rpm/debian-host.macros" \
  "$spec") >"$work/build.log" 2>&1 || { tail -60 "$work/build.log"; fail "rpmbuild"; }
rpms=$work/top/RPMS/$(uname -m)
name_of() { rpm -qp --qf '%{NAME}\n' "$1"; }
rpm_of() { ls "$rpms/$1-$version"-*.rpm; }
backends=$(cd "$src/plugins" && for d in */; do [ -f "$d/CMakeLists.txt" ] && echo "${d%/}"; done)
# Every package of the spec (a %package added there is expected without a
# change here), which must include the core's three and one per backend;
# each architecture-dependent one has its -debuginfo.
spec_packages() {
  rpmspec -q --qf '%{NAME} %{ARCH}\n' --load "$src/packaging/rpm/debian-host.macros" "$spec" 2>/dev/null |
    grep -v -- '-debug\(info\|source\) ' | awk -v want="$1" 'want == "" || $2 != "noarch" { print $1 }' | sort
}
expected=$(spec_packages "")
[ -n "$expected" ] || fail "rpmspec lists no package of $spec"
for p in sandboxio sandboxio-libs sandboxio-devel $(for b in $backends; do echo "sandboxio-backend-$b"; done); do
  echo "$expected" | grep -x -- "$p" >/dev/null || fail "the spec has no package $p"
done
built=$(for f in "$rpms"/*.rpm "$work"/top/RPMS/noarch/*.rpm; do if [ -f "$f" ]; then name_of "$f"; fi; done |
  grep -v -- '-debug\(info\|source\)$' | sort)
[ "$built" = "$expected" ] || fail "packages built: $(echo $built); expected (the spec): $(echo $expected)"
for p in $(spec_packages arch); do
  [ -f "$(rpm_of "$p-debuginfo")" ] || fail "no $p-debuginfo"
done
echo "$(echo $built)"

step "the split"
abi_major=$(sed -n 's/^#define SBIO_BACKEND_ABI_MAJOR \([0-9][0-9]*\).*/\1/p' "$src/sdk/include/sandboxio/backend.h")
grep -q "^%global abi_major $abi_major\$" "$spec" || fail "the spec's abi_major is not SBIO_BACKEND_ABI_MAJOR ($abi_major)"
rpm -qp --provides "$(rpm_of sandboxio-libs)" | quiet_grep -x "sandboxio(backend-abi) = $abi_major" ||
  fail "sandboxio-libs does not provide sandboxio(backend-abi) = $abi_major"
for b in $backends; do
  f=$(rpm_of "sandboxio-backend-$b")
  rpm -qp --requires "$f" | quiet_grep -x "sandboxio(backend-abi) = $abi_major" ||
    fail "sandboxio-backend-$b does not require the backend ABI"
  if rpm -qp --requires "$f" | quiet_grep 'sandboxio-libs\|libsandboxio'; then
    fail "sandboxio-backend-$b requires the library: $(rpm -qp --requires "$f" | grep sandboxio)"
  fi
  rpm -qp --configfiles "$f" | quiet_grep -x "/etc/sandboxio/conf.d/[0-9][0-9]-$b.yaml" || fail "$b's drop-in is not %config"
  rpm -qp --qf '[%{FILENAMES} %{FILEFLAGS:fflags}\n]' "$f" | quiet_grep "conf.d/[0-9][0-9]-$b.yaml cn" ||
    fail "$b's drop-in is not %config(noreplace)"
  rpm -qlp "$f" | quiet_grep -x "/usr/lib64/sandboxio/backends/sbio-backend-$b.so" || fail "$b's plugin is not in /usr/lib64"
done
rpm -qlp "$(rpm_of sandboxio-libs)" | quiet_grep -x /usr/lib64/libsandboxio.so.0 || fail "sandboxio-libs has no libsandboxio.so.0"
rpm -qp --requires "$(rpm_of sandboxio)" | quiet_grep 'libsandboxio\.so\.0(SANDBOXIO_' ||
  fail "sandboxio does not require the library's symbol version"
for f in /usr/bin/sbio-conformance /usr/include/sandboxio/version.h /usr/lib64/pkgconfig/sandboxio-backend.pc \
         /usr/lib64/libsandboxio-backend-sdk.a; do
  rpm -qlp "$(rpm_of sandboxio-devel)" | quiet_grep -x "$f" || fail "sandboxio-devel has no $f"
done
rpm -qlp "$(rpm_of sandboxio)" | quiet_grep '^/usr/libexec/sandboxio/sbio-' || fail "sandboxio has no libexec commands"
# The Python package: Fedora's site-packages, and the library required by
# hand (ctypes loads it where rpm's generators cannot see).
py=$(ls "$work"/top/RPMS/noarch/python3-sandboxio-"$version"-*.rpm 2>/dev/null || true)
if [ -n "$py" ]; then
  rpm -qlp "$py" | quiet_grep -x '/usr/lib/python3\.[0-9]*/site-packages/sandboxio/__init__\.py' ||
    fail "python3-sandboxio is not in Fedora's site-packages: $(rpm -qlp "$py")"
  rpm -qp --requires "$py" | quiet_grep "^sandboxio-libs = $version-" || fail "python3-sandboxio does not require sandboxio-libs"
fi

step "rpmlint: each finding is one packaging/README.md says does not apply"
# The documented findings: | `tag` | packages (globs, or "spec") | why |
documented=$(sed -n '/^### rpmlint findings that do not apply/,/^#/p' "$src/packaging/README.md" |
  sed -n 's/^| `\([^`]*\)` | \([^|]*\) |.*/\1\t\2/p')
[ -n "$documented" ] || fail "packaging/README.md lists no rpmlint findings"
rpmlint "$rpms"/*.rpm $(ls "$work"/top/RPMS/noarch/*.rpm 2>/dev/null) "$spec" >"$work/rpmlint.log" 2>&1 || true
grep -E '^[^ ]+: [EW]: ' "$work/rpmlint.log" | sed 's/^\([^ ]*\): \([EW]\): \([^ ]*\).*/\1 \2 \3/' |
  sed 's/^sandboxio\.spec /spec /; s/^\([^ ]*\)\.[a-z0-9_]* /\1 /' | sort -u >"$work/findings"
[ -s "$work/findings" ] || { cat "$work/rpmlint.log"; fail "rpmlint printed no findings at all (did it run?)"; }
undocumented=0
while read -r pkg level tag; do
  globs=$(printf '%s\n' "$documented" | awk -F'\t' -v t="$tag" '$1 == t { print $2 }')
  ok=0
  if [ -n "$globs" ]; then
    for g in $(echo "$globs" | tr ',' ' '); do
      # shellcheck disable=SC2053 # a glob on purpose
      [[ $pkg == $g ]] && ok=1
      [ "$g" = all ] && [ "$pkg" != spec ] && ok=1
    done
  fi
  if [ "$ok" = 0 ]; then
    echo "undocumented rpmlint finding: $pkg: $level: $tag" >&2
    undocumented=1
  fi
done <"$work/findings"
if [ "$undocumented" = 1 ]; then
  grep -E ': [EW]: ' "$work/rpmlint.log" >&2
  fail "rpmlint findings that packaging/README.md does not explain (fix them, or say there why they do not apply)"
fi
echo "rpmlint: $(wc -l <"$work/findings") findings (package, tag): $(awk '$2 == "E"' "$work/findings" | wc -l) errors, $(awk '$2 == "W"' "$work/findings" | wc -l) warnings, all documented as not applying"
awk '{ print $2 ": " $3 }' "$work/findings" | sort | uniq -c | sed 's/^ */  /; s/ \([EW]:\)/ package(s), \1/'
echo "rpm packages ok: $(echo $built | wc -w) packages"
