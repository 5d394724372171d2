#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test command: installs dependencies, builds, runs the whole suite.
#   scripts/test.sh                      gcc, plain build in build/
#   scripts/test.sh --sanitize           AddressSanitizer + UBSan build in build-asan/
#   scripts/test.sh --compiler clang     the same with clang, in build-clang/ (build-clang-asan/)
#   scripts/test.sh --clock 2027-06-01   the suite run with the clock set to that date (libfaketime):
#                                        no test may depend on the day it runs
# Warnings are errors here (SBIO_WERROR=ON), as in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: scripts/test.sh [--sanitize] [--compiler gcc|clang] [--clock YYYY-MM-DD]" >&2; exit 64; }
sanitize=OFF
compiler=gcc
clock=
while [ $# -gt 0 ]; do
  case $1 in
    --sanitize) sanitize=ON ;;
    --compiler) [ $# -ge 2 ] || usage; compiler=$2; shift ;;
    --compiler=*) compiler=${1#--compiler=} ;;
    --clock) [ $# -ge 2 ] || usage; clock=$2; shift ;;
    --clock=*) clock=${1#--clock=} ;;
    *) usage ;;
  esac
  shift
done
case $compiler in
  gcc) cc=gcc dir=build ;;
  clang) cc=clang dir=build-clang ;;
  *) echo "scripts/test.sh: --compiler must be gcc or clang, not '$compiler'" >&2; exit 64 ;;
esac
if [ -n "$clock" ] && ! date -u -d "$clock" +%F >/dev/null 2>&1; then
  echo "scripts/test.sh: --clock $clock is not a date" >&2
  exit 64
fi
if [ "$sanitize" = ON ]; then
  dir=$dir-asan
  # Leaks are errors; a plugin's symbols stay resolvable in reports.
  # intercept_tls_get_addr=0: the __tls_get_addr interceptor of the sanitizer
  # runtimes in Debian 12 (gcc 12, clang 14) takes a dynamic TLS block whose
  # address is 16 mod 4096 for a glibc 2.19 header and reads the two words
  # before it (the allocator's chunk header) as a range; LeakSanitizer's
  # tracer then dies of SIGSEGV scanning it ("Tracer caught signal 11"), at
  # exit, after the work passed. Which process hits it depends only on heap
  # layout (a plugin's TLS allocated at the wrong offset), so it follows the
  # build path: `sbio doctor` with a copied fake plugin failed every time in
  # /check/work/main. Leak checking stays on; only dynamic TLS is not scanned
  # as a root, which can only add leak reports, never hide one.
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:intercept_tls_get_addr=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
fi
scripts/deps.sh
# The plain build is optimised as packagers build it (and -O2 finds warnings -O0 cannot);
# the sanitizer build keeps -O0 for exact reports.
build_type=RelWithDebInfo
[ "$sanitize" = ON ] && build_type=Debug
cmake -S . -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE="$build_type" -DSBIO_SANITIZE="$sanitize" \
      -DSBIO_WERROR=ON
cmake --build "$dir" -j"$(nproc)"
run=()
if [ -n "$clock" ]; then
  # libfaketime starts the clock at that date and lets it run; every process
  # the tests start inherits it (the CLI harness passes it on to sbio).
  run=(faketime "$clock")
  echo "scripts/test.sh: the suite runs with the clock at $clock"
fi
"${run[@]}" ctest --test-dir "$dir" --output-on-failure -j"$(nproc)"
