#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what building and testing sandboxio needs on Debian 12, once.
# The package list lives here and nowhere else.
set -euo pipefail
packages=(
  build-essential cmake pkg-config clang libclang-rt-14-dev   # gcc and clang builds (clang: its sanitizer runtime)
  libltdl-dev libcurl4-openssl-dev libcjson-dev libyaml-dev libarchive-dev
  libcmocka-dev
  libmicrohttpd-dev                # sbio mcp's streamable HTTP transport
  docker.io runsc busybox-static   # the docker backend's tests run a private engine
  docker-registry                  # ...and a loopback registry to test real pulls
  openssl curl                     # TLS engine tests: certificates made at test time
  podman catatonit runc            # the docker backend is also tested against Podman
  dpkg-dev debhelper lintian       # the Debian packages (debian/): built, checked, installed in a root
  dh-python pybuild-plugin-pyproject python3-all  # ...python3-sandboxio among them, built with pybuild
  rpm rpmlint debugedit elfutils   # the RPM spec: rpmbuild (with -debuginfo packages), rpmlint
  file groff-base                  # man page checks
  faketime                         # the suite under a clock set past the sources' freshness window
  abigail-tools                    # abidiff: the ABI against the baselines in abi/
  hyperfine valgrind python3-docker  # bench/: timings, callgrind instruction counts, docker-py peer
  python3-pytest mypy python3-setuptools python3-venv python3-pip  # the Python binding: tests, types, offline install
  qemu-system-x86 cpio xz-utils    # the qemu backend: the emulator, and its guest (busybox-static above, a kernel .deb)
  e2fsprogs                        # ...and mke2fs -d, which copies a root filesystem directory into a disk image
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "scripts/deps.sh: missing packages: ${missing[*]}; run this as root to install them" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
