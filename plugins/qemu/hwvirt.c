/* SPDX-License-Identifier: MIT */
/* Hardware-virtualisation detection (see hwvirt.h for why three signs). */
#include "hwvirt.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define CPUINFO_MAX (4u << 20) /* 4 MiB: hundreds of CPUs' worth */

int sbio__qm_kvm_probe(const char *path) {
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return errno;
  int v = ioctl(fd, KVM_GET_API_VERSION, 0);
  int e = v < 0 ? errno : (v == KVM_API_VERSION ? 0 : EPROTO);
  close(fd);
  return e;
}

static int is_space(char c) {
  return c == ' ' || c == '\t';
}

int sbio__qm_cpuinfo_has_flag(const char *text, size_t len, const char *flag) {
  size_t flen = strlen(flag);
  size_t i = 0;
  while (i < len) {
    size_t end = i;
    while (end < len && text[end] != '\n') end++;
    /* "flags\t\t: fpu vme ..." (x86); the key is the start of the line. */
    if (end - i > 5 && !strncmp(text + i, "flags", 5) && (is_space(text[i + 5]) || text[i + 5] == ':')) {
      const char *colon = memchr(text + i, ':', end - i);
      for (size_t p = colon ? (size_t)(colon - text) + 1 : end; p < end;) {
        while (p < end && is_space(text[p])) p++;
        size_t w = p;
        while (w < end && !is_space(text[w])) w++;
        if (w - p == flen && !memcmp(text + p, flag, flen)) return 1;
        p = w;
      }
    }
    i = end + 1;
  }
  return 0;
}

static char *read_bounded(const char *path, size_t *len) {
  FILE *f = fopen(path, "re");
  if (!f) return NULL;
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0 || n >= CPUINFO_MAX) break;
    if (n == cap) {
      char *bigger = realloc(buf, cap * 2);
      if (!bigger) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  fclose(f);
  *len = n;
  return buf;
}

void sbio__qm_hwvirt_detect(const char *root, qm_kvm_probe_fn probe, qm_hwvirt *out) {
  memset(out, 0, sizeof *out);
  if (!root) root = "";
  if (!probe) probe = sbio__qm_kvm_probe;
  char path[4096];

  snprintf(path, sizeof path, "%s/proc/cpuinfo", root);
  size_t len = 0;
  char *text = read_bounded(path, &len);
  if (text) {
    out->cpuinfo_read = 1;
    if (sbio__qm_cpuinfo_has_flag(text, len, "vmx"))
      snprintf(out->cpu_flag, sizeof out->cpu_flag, "vmx");
    else if (sbio__qm_cpuinfo_has_flag(text, len, "svm"))
      snprintf(out->cpu_flag, sizeof out->cpu_flag, "svm");
    free(text);
  }

  struct stat st;
  snprintf(path, sizeof path, "%s/sys/module/kvm_pvm", root);
  out->pvm = stat(path, &st) == 0;

  snprintf(path, sizeof path, "%s/dev/kvm", root);
  out->kvm_errno = probe(path);
  out->kvm_usable = out->kvm_errno == 0;

  out->ok = out->cpu_flag[0] && !out->pvm && out->kvm_usable;
  if (out->ok)
    snprintf(out->why, sizeof out->why, "hardware virtualisation: CPU flag %s, /dev/kvm usable, no kvm_pvm",
             out->cpu_flag);
  else if (out->pvm)
    snprintf(out->why, sizeof out->why,
             "/sys/module/kvm_pvm is present: /dev/kvm%s is KVM's Pagetable-based VM mode (kvm_pvm), which runs "
             "guests by shadowing their page tables in software on a host that is itself a guest, not hardware "
             "virtualisation (CPU flags: %s)",
             out->kvm_usable ? " opens, but it" : "", out->cpu_flag[0] ? out->cpu_flag : "no vmx or svm");
  else if (!out->cpu_flag[0])
    snprintf(out->why, sizeof out->why, "%s",
             out->cpuinfo_read ? "no vmx or svm flag in /proc/cpuinfo: the CPU offers no "
                                 "hardware virtualisation to this machine"
                               : "/proc/cpuinfo could not be read, so hardware virtualisation "
                                 "cannot be confirmed");
  else
    snprintf(out->why, sizeof out->why, "CPU flag %s is present but /dev/kvm is not usable (%s)", out->cpu_flag,
             strerror(out->kvm_errno));
}
