/* SPDX-License-Identifier: MIT */
/* The QEMU command line of one VM (cmdline.c), apart from starting it, so
 * that the KVM variant, which cannot run on the CI machine, is tested. */
#ifndef SBIO_QEMU_CMDLINE_H
#define SBIO_QEMU_CMDLINE_H

#include <stdint.h>

typedef struct qm_vm_params {
  const char *qemu;   /* resolved path of the emulator */
  const char *kernel; /* guest kernel and initramfs */
  const char *initrd;
  const char *dir; /* the VM's state directory */
  const char *id;  /* the sandbox id */
  int kvm;         /* 1: -accel kvm -cpu host; 0: TCG */
  long tsc_khz;    /* TCG only: tsc_early_khz= */
  int64_t memory_mb;
  long cpus;
  int64_t disk_mb;  /* the /work tmpfs */
  double timeout_s; /* the guest powers off this long after its boot */
  int rootfs;       /* attach <dir>/rootfs.img read-only */
} qm_vm_params;

typedef struct qm_cmdline {
  const char *argv[72];
  int argc;
  char m[32], smp[32], append[512], chardev[3200], serial[3200], name[64], drive[3200];
} qm_cmdline;

/* Fills c->argv (NULL-terminated; it points into c and p). */
void sbio__qm_cmdline(qm_cmdline *c, const qm_vm_params *p);

#endif
