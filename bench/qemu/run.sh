#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# qemu backend timings under TCG. Usage: bench/qemu/run.sh [BUILD_DIR] [N]
#
# Needs the guest (cmake --build BUILD_DIR --target qemu-guest). Prints, in
# one process (warm.c): a create, 20 execs in the warm guest, 8 MiB of
# stdout, a close; then over N runs (default 5): the wall time of `sbio run --backend qemu:// -- true`
# (create, boot to the agent, one exec, destroy), the guest's uptime when
# its first command runs (kernel start to the agent serving), a guest-side
# loop of 20 commands (the in-guest fork and exec cost, not the channel's),
# and the peak RSS of a QEMU that boots the guest. Machine load changes
# every number: the report says the load average.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
n=${2:-5}
sbio=$build/bin/sbio
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/config.yaml" <<CONF
backends:
  qemu:
    settings:
      accel: tcg
      guest_dir: $build/qemu-guest
      state_dir: $work/state
CONF
export SBIO_CONFIG=$work/config.yaml
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { date +%s%3N; }
: > "$work/total" ; : > "$work/uptime"
for _ in $(seq 1 "$n"); do
  t0=$(ms)
  "$sbio" run --backend qemu:// -- true 2> /dev/null
  echo $(($(ms) - t0)) >> "$work/total"
  "$sbio" run --backend qemu:// -- cut -d' ' -f1 /proc/uptime 2> /dev/null | awk '{print int($1 * 1000)}' >> "$work/uptime"
done
t0=$(ms)
"$sbio" run --backend qemu:// --shell -- 'i=0; while [ $i -lt 20 ]; do /bin/true; i=$((i+1)); done' 2> /dev/null
loop=$(($(ms) - t0))
rss=$(/usr/bin/time -f %M qemu-system-x86_64 -M microvm -accel tcg -m 256 -nodefaults -no-user-config -no-reboot \
  -display none -nic none -serial none -kernel "$build/qemu-guest/kernel" -initrd "$build/qemu-guest/initrd.cpio.gz" \
  -append "console=ttyS0 panic=-1 quiet sbio.deadline_ms=4000 tsc_early_khz=2000000" 2>&1 | tail -1)
cc -O2 -Wall -I"$root/core/include" -I"$build/include" "$(dirname "$0")/warm.c" -o "$work/warm" -L"$build/lib" \
  -lsandboxio -Wl,-rpath,"$build/lib"
echo "| measure (TCG, one process, load $(cut -d' ' -f1 /proc/loadavg)) | value |"
echo "|---|---|"
"$work/warm" "$work/config.yaml" 20 8388608 2> /dev/null
echo
echo "| measure (TCG, $n runs, load $(cut -d' ' -f1 /proc/loadavg)) | median | all |"
echo "|---|---|---|"
echo "| sbio run -- true, wall ms | $(med < "$work/total") | $(tr '\n' ' ' < "$work/total")|"
echo "| guest uptime at its first command, ms | $(med < "$work/uptime") | $(tr '\n' ' ' < "$work/uptime")|"
echo "| sbio run of a 20-command guest loop, wall ms | $loop | |"
echo "| QEMU peak RSS (guest powered off by its deadline), KiB | $rss | |"
