#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every backend in plugins/ has its distribution packages, as "Adding a
# backend package" in packaging/README.md says: a debian/control stanza, a
# debian/sandboxio-backend-NAME.install with its drop-in, plugin and
# documentation, and %package, %description and %files in the RPM spec; and
# no package is left for a backend that is gone.
# usage: check_backend_packages.sh SOURCE_DIR
set -euo pipefail
src=$1
spec=$src/packaging/rpm/sandboxio.spec
status=0
problem() {
  echo "FAIL: $* (packaging/README.md, \"Adding a backend package\")" >&2
  status=1
}
backends=$(cd "$src/plugins" && for d in */; do [ -f "$d/CMakeLists.txt" ] && echo "${d%/}"; done)
for b in $backends; do
  pkg=sandboxio-backend-$b
  grep -qx "Package: $pkg" "$src/debian/control" || problem "debian/control has no stanza for $pkg"
  install=$src/debian/$pkg.install
  if [ ! -f "$install" ]; then
    problem "there is no debian/$pkg.install"
  else
    grep -qx "etc/sandboxio/conf.d/[0-9][0-9]-$b.yaml" "$install" || problem "debian/$pkg.install does not install the drop-in"
    grep -qx "usr/lib/\*/sandboxio/backends/sbio-backend-$b.so" "$install" ||
      problem "debian/$pkg.install does not install the plugin"
    grep -qx "docs/backends/$b.md usr/share/doc/$pkg" "$install" || problem "debian/$pkg.install does not install docs/backends/$b.md"
  fi
  [ -f "$src/docs/backends/$b.md" ] || problem "there is no docs/backends/$b.md"
  for section in package description files; do
    grep -Eq "^%$section +backend-$b\$" "$spec" || problem "the RPM spec has no %$section backend-$b"
  done
  grep -q "^%config(noreplace) %{_sysconfdir}/sandboxio/conf.d/[0-9][0-9]-$b.yaml\$" "$spec" ||
    problem "the RPM spec does not ship $b's drop-in as %config(noreplace)"
  grep -q "^%{_libdir}/sandboxio/backends/sbio-backend-$b.so\$" "$spec" || problem "the RPM spec does not ship $b's plugin"
done
for pkg in $(sed -n 's/^Package: \(sandboxio-backend-.*\)$/\1/p' "$src/debian/control"); do
  grep -qx "${pkg#sandboxio-backend-}" <<<"$backends" || problem "debian/control has $pkg, but plugins/ has no such backend"
done
for b in $(sed -n 's/^%package *backend-\(.*\)$/\1/p' "$spec"); do
  grep -qx "$b" <<<"$backends" || problem "the RPM spec has backend-$b, but plugins/ has no such backend"
done
[ "$status" = 0 ] && echo "backend packages ok: $(echo $backends)"
exit $status
