/* SPDX-License-Identifier: MIT */
/* The qemu backend's `settings` (docs/backends/qemu.md#settings). */
#ifndef SBIO_QEMU_SETTINGS_H
#define SBIO_QEMU_SETTINGS_H

#include <sandboxio/backend.h>
#include <stdint.h>

enum { QM_ACCEL_KVM = 0, QM_ACCEL_TCG = 1 };

typedef struct qm_settings {
  int accel;         /* QM_ACCEL_*: kvm (default) needs observed hardware virtualisation */
  char *qemu;        /* the emulator: a name on PATH or an absolute path */
  char *guest_dir;   /* holds kernel and initrd.cpio.gz (what guest/mkguest.sh makes) */
  char *kernel;      /* overrides guest_dir/kernel */
  char *initrd;      /* overrides guest_dir/initrd.cpio.gz */
  char *state_dir;   /* one directory per VM, what `sbio reap` lists */
  char *rootfs_dir;  /* qemu://NAME boots with <rootfs_dir>/NAME as its root (copied, read-only) */
  int64_t memory_mb; /* default for a request without one */
  int64_t cpus;      /* default vCPUs */
  int64_t tsc_khz;   /* 0: the host's, for tsc_early_khz= under TCG */
} qm_settings;

int sbio__qm_settings_parse(const char *json, qm_settings *out, sbio_bk_error *err);
void sbio__qm_settings_free(qm_settings *s);

#endif
