#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test command: installs dependencies, builds, runs the whole suite.
#   scripts/test.sh              plain build in build/
#   scripts/test.sh --sanitize   AddressSanitizer + UBSan build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=OFF
dir=build
if [ "${1:-}" = "--sanitize" ]; then
  sanitize=ON
  dir=build-asan
  # Leaks are errors; a plugin's symbols stay resolvable in reports.
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
fi
scripts/deps.sh
# The plain build is optimised as packagers build it (and -O2 finds warnings -O0 cannot);
# the sanitizer build keeps -O0 for exact reports.
build_type=RelWithDebInfo
[ "$sanitize" = ON ] && build_type=Debug
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$build_type" -DSBIO_SANITIZE="$sanitize"
cmake --build "$dir" -j"$(nproc)"
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)"
