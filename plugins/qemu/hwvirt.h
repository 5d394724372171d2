/* SPDX-License-Identifier: MIT */
/* Is hardware-assisted virtualisation really there? (docs/backends/qemu.md)
 *
 * A usable /dev/kvm is not enough: under KVM's Pagetable-based VM mode
 * (kvm_pvm, a host that is itself a guest) /dev/kvm opens, QEMU's
 * `-accel kvm` starts and the guest says "Hypervisor detected: KVM", yet no
 * VT-x or AMD-V is involved and a stock kernel runs in KVM's instruction
 * emulator. So KVM counts only when all three hold: the CPU flags show vmx
 * or svm, /sys/module/kvm_pvm is absent, and /dev/kvm answers
 * KVM_GET_API_VERSION. Every path is read under `root` so that the unit
 * tests can use fixture trees. */
#ifndef SBIO_QEMU_HWVIRT_H
#define SBIO_QEMU_HWVIRT_H

#include <stddef.h>

typedef struct qm_hwvirt {
  char cpu_flag[4]; /* "vmx", "svm" or "" */
  int cpuinfo_read; /* /proc/cpuinfo could be read */
  int pvm;          /* /sys/module/kvm_pvm exists */
  int kvm_usable;   /* the kvm probe succeeded */
  int kvm_errno;    /* why it did not (0 when usable) */
  int ok;           /* hardware virtualisation: all of the above */
  char why[480];    /* one line: what was observed and why it is (not) enough */
} qm_hwvirt;

/* Opens `path` (a /dev/kvm) and returns 0 when it is a KVM of the expected
 * API, or an errno. Replaceable for tests. */
typedef int (*qm_kvm_probe_fn)(const char *path);
int sbio__qm_kvm_probe(const char *path);

/* root: "" or NULL for the real machine. probe: NULL for sbio__qm_kvm_probe. */
void sbio__qm_hwvirt_detect(const char *root, qm_kvm_probe_fn probe, qm_hwvirt *out);

/* Finds a whole word `flag` on a "flags" line of cpuinfo text. */
int sbio__qm_cpuinfo_has_flag(const char *text, size_t len, const char *flag);

#endif
