#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job on a fresh machine: install, build, and run a command through
# the built-in fake backend (which executes nothing on this host).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
build/bin/sbio backends
build/bin/sbio run -- echo hello
