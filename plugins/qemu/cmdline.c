/* SPDX-License-Identifier: MIT */
/* The QEMU command line (cmdline.h). Every choice here is from
 * docs/backends/qemu.md: microvm with its ACPI, no default devices and no
 * network device, QEMU's seccomp filter, the agent's virtio-serial port
 * over a unix socket, the serial console into a file. */
#include "cmdline.h"

#include <stdio.h>

void sbio__qm_cmdline(qm_cmdline *c, const qm_vm_params *p) {
  snprintf(c->m, sizeof c->m, "%lld", (long long)p->memory_mb);
  snprintf(c->smp, sizeof c->smp, "%ld", p->cpus);
  char tsc[48] = "";
  /* Under TCG the microvm guest cannot calibrate its TSC and hangs
   * without being told its rate. */
  if (!p->kvm) snprintf(tsc, sizeof tsc, " tsc_early_khz=%ld", p->tsc_khz);
  /* The guest powers itself off at its deadline (the agent), measured
   * from its boot; quiet keeps the serial console short. */
  snprintf(c->append, sizeof c->append,
           "console=ttyS0 panic=-1 quiet loglevel=3%s sbio.deadline_ms=%lld sbio.disk_mb=%lld%s", tsc,
           (long long)(p->timeout_s * 1000), (long long)p->disk_mb, p->rootfs ? " sbio.rootfs=1" : "");
  snprintf(c->drive, sizeof c->drive, "file=%s/rootfs.img,format=raw,if=none,readonly=on,id=rootfs", p->dir);
  snprintf(c->chardev, sizeof c->chardev, "socket,id=agent,path=%s/agent.sock,server=on,wait=off", p->dir);
  snprintf(c->serial, sizeof c->serial, "file:%s/console.log", p->dir);
  snprintf(c->name, sizeof c->name, "sbio-%s", p->id);
  const char **a = c->argv;
  int n = 0;
  a[n++] = p->qemu;
  a[n++] = "-name", a[n++] = c->name;
  /* QEMU's own seccomp filter (its security guide recommends it): no
   * obsolete system calls, no privilege changes, no new processes, no
   * scheduler or affinity changes. A QEMU without seccomp fails here,
   * and the create with it. */
  a[n++] = "-sandbox", a[n++] = "on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny";
  /* microvm keeps its ACPI: Debian kernels find virtio-mmio only through it. */
  a[n++] = "-M", a[n++] = "microvm";
  a[n++] = "-accel", a[n++] = p->kvm ? "kvm" : "tcg";
  if (p->kvm) a[n++] = "-cpu", a[n++] = "host";
  a[n++] = "-m", a[n++] = c->m;
  a[n++] = "-smp", a[n++] = c->smp;
  a[n++] = "-nodefaults", a[n++] = "-no-user-config", a[n++] = "-no-reboot";
  a[n++] = "-display", a[n++] = "none", a[n++] = "-monitor", a[n++] = "none";
  /* No network device at all: the guest has only lo. */
  a[n++] = "-nic", a[n++] = "none";
  a[n++] = "-serial", a[n++] = c->serial;
  a[n++] = "-kernel", a[n++] = p->kernel;
  a[n++] = "-initrd", a[n++] = p->initrd;
  a[n++] = "-append", a[n++] = c->append;
  a[n++] = "-chardev", a[n++] = c->chardev;
  a[n++] = "-device", a[n++] = "virtio-serial-device";
  a[n++] = "-device", a[n++] = "virtserialport,chardev=agent,name=sbio.agent";
  if (p->rootfs) {
    /* The copy of the root filesystem, read-only to the guest. */
    a[n++] = "-drive", a[n++] = c->drive;
    a[n++] = "-device", a[n++] = "virtio-blk-device,drive=rootfs";
  }
  a[n] = NULL;
  c->argc = n;
}
