#!/bin/bash
# SPDX-License-Identifier: MIT
# Assembles the qemu backend's default guest in OUT_DIR:
#   kernel            Debian's linux-image-cloud-amd64 bzImage, unpacked with
#                     dpkg -x from a package apt-get downloads (never installed)
#   initrd.cpio.gz    busybox-static, the agent AGENT as /init, and the virtio
#                     modules the microvm machine needs (load order in
#                     lib/modules/order: busybox-free, the agent loads them)
#   kernel.release    the guest kernel's release (what `uname -r` prints inside)
# The downloaded package is cached in OUT_DIR/cache; a second run downloads
# nothing. usage: mkguest.sh OUT_DIR AGENT [KERNEL_PACKAGE]
set -euo pipefail
out=${1:?usage: mkguest.sh OUT_DIR AGENT [KERNEL_PACKAGE]}
agent=${2:?usage: mkguest.sh OUT_DIR AGENT [KERNEL_PACKAGE]}
pkg=${3:-}
cache=$out/cache
mkdir -p "$cache"

# The kernel package: the one linux-image-cloud-amd64 depends on.
if [ -z "$pkg" ]; then
  pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  [ -n "$pkg" ] || { echo "mkguest.sh: apt-cache knows no linux-image-cloud-amd64 (run apt-get update)" >&2; exit 1; }
fi
deb=$(find "$cache" -maxdepth 1 -name "${pkg}_*.deb" | head -1)
if [ -z "$deb" ]; then
  (cd "$cache" && apt-get download "$pkg" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2) || true
  deb=$(find "$cache" -maxdepth 1 -name "${pkg}_*.deb" | head -1)
  [ -n "$deb" ] || { echo "mkguest.sh: apt-get download $pkg failed" >&2; exit 1; }
fi
kroot=$cache/root-$pkg
if [ ! -d "$kroot/boot" ]; then
  rm -rf "$kroot.tmp"
  dpkg -x "$deb" "$kroot.tmp"
  mv "$kroot.tmp" "$kroot"
fi
vmlinuz=$(find "$kroot/boot" -name 'vmlinuz-*' | head -1)
release=${vmlinuz##*/vmlinuz-}
mods=$kroot/lib/modules/$release/kernel

# The initramfs tree.
root=$(mktemp -d "$out/initrd.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,work,etc,root,lib/modules}
cp /usr/bin/busybox "$root/bin/busybox"
for applet in $(/usr/bin/busybox --list-full); do
  [ "$applet" = bin/busybox ] || [ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done
install -m 0755 "$agent" "$root/init"
printf 'root:x:0:0:root:/work:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\n' > "$root/etc/group"
# virtio-mmio, the console port and the disk, in dependency order (busybox-free: the
# agent loads them with finit_module; .ko.xz files are unpacked here).
: > "$root/lib/modules/order"
# virtio_blk and overlay: the root filesystem disk of qemu://NAME.
for m in virtio_ring virtio virtio_mmio virtio_console virtio_blk overlay; do
  f=$(find "$mods" -name "$m.ko" -o -name "$m.ko.xz" | head -1)
  if [ -z "$f" ]; then
    # Built into this kernel: nothing to load.
    continue
  fi
  case $f in
    *.xz) xz -dc "$f" > "$root/lib/modules/$m.ko" ;;
    *) cp "$f" "$root/lib/modules/$m.ko" ;;
  esac
  echo "$m" >> "$root/lib/modules/order"
done
# The kernel opens /dev/console before /init runs; devtmpfs comes later.
if [ "$(id -u)" = 0 ]; then mknod -m 600 "$root/dev/console" c 5 1; fi
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$out/initrd.cpio.gz.tmp"
cp "$vmlinuz" "$out/kernel.tmp"
mv "$out/initrd.cpio.gz.tmp" "$out/initrd.cpio.gz"
mv "$out/kernel.tmp" "$out/kernel"
echo "$release" > "$out/kernel.release"
echo "mkguest.sh: $out/kernel ($release) and $out/initrd.cpio.gz"
