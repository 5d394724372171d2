# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by the service scripts (after service.sh): the root file system
# of the test image, sbio-busybox:test. It has no libc, so busybox must be
# the static build; every applet is a link to it, and /tmp, /work, /proc,
# /sys and /dev exist as the backends expect.

# busybox_static: echoes the path of a statically linked busybox, or makes
# the service unavailable.
busybox_static() {
  local bb
  bb=$(command -v busybox || true)
  [ -x /bin/busybox ] && bb=/bin/busybox
  if [ -z "$bb" ] || ! ldd "$bb" 2>&1 | grep -q "not a dynamic executable"; then
    svc_unavailable "no statically linked busybox for the test image (apt-get install busybox-static)"
  fi
  echo "$bb"
}

# busybox_rootfs ROOT: lays the image's files out in ROOT (made afresh).
busybox_rootfs() {
  local root=$1 bb a
  bb=$(busybox_static) || exit
  rm -rf "$root"
  mkdir -p "$root/bin" "$root/tmp" "$root/etc" "$root/work" "$root/proc" "$root/sys" "$root/dev"
  chmod 1777 "$root/tmp"
  cp "$bb" "$root/bin/busybox"
  for a in $("$bb" --list); do
    [ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
  done
  echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
  echo 'root:x:0:' >"$root/etc/group"
}

# busybox_tar TAR: the image's root file system as a tar file, ready for
# `docker import` / `podman import` (made under $dir, then removed).
busybox_tar() {
  local root=$dir/rootfs
  busybox_rootfs "$root"
  tar -C "$root" -cf "$1" . || svc_unavailable "could not pack the test image"
  rm -rf "$root"
}

# busybox_import IMAGE WHAT CLI...: imports the image with `CLI... import`
# (WHAT names the engine in messages), unless `CLI... image inspect` finds
# it there already.
busybox_import() {
  local image=$1 what=$2
  shift 2
  "$@" image inspect "$image" >/dev/null 2>&1 && return 0
  busybox_tar "$dir/rootfs.tar"
  if ! "$@" import "$dir/rootfs.tar" "$image" >"$dir/import.log" 2>&1; then
    cat "$dir/import.log" >&2
    svc_unavailable "$what import of the test image failed"
  fi
  rm -f "$dir/rootfs.tar"
}
