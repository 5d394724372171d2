/* SPDX-License-Identifier: MIT */
/* sbio-backend-qemu: the operations table, its metadata note, and the
 * instance (open/close/plan/probe). See docs/backends/qemu.md. */
#include "qm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The host's TSC rate for the guest's tsc_early_khz= (under TCG the
 * microvm guest cannot calibrate its TSC and hangs without it). */
static long host_tsc_khz(void) {
  FILE *f = fopen("/proc/cpuinfo", "re");
  char line[256];
  double mhz = 0;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "cpu MHz", 7) && strchr(line, ':')) {
      mhz = strtod(strchr(line, ':') + 1, NULL);
      break;
    }
  if (f) fclose(f);
  return mhz >= 100 && mhz < 10000 ? (long)(mhz * 1000) : 2000000;
}

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", dir, name);
  return p;
}

static void instance_free(qm_instance *inst) {
  sbio__qm_settings_free(&inst->settings);
  free(inst->kernel);
  free(inst->initrd);
  free(inst);
}

static int qemu_open(const sbio_host_services *host, const char *settings_json, void **instance, sbio_bk_error *err) {
  if (!host || !host->monotonic_ns || !instance)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "qemu open: missing argument");
  *instance = NULL;
  qm_instance *inst = calloc(1, sizeof *inst);
  if (!inst) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  inst->host = host;
  int rc = sbio__qm_settings_parse(settings_json, &inst->settings, err);
  if (rc == SBIO_OK) {
    const qm_settings *s = &inst->settings;
    inst->kernel = s->kernel ? strdup(s->kernel) : join(s->guest_dir, "kernel");
    inst->initrd = s->initrd ? strdup(s->initrd) : join(s->guest_dir, "initrd.cpio.gz");
    if (!inst->kernel || !inst->initrd) rc = sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  if (rc != SBIO_OK) {
    instance_free(inst);
    return rc;
  }
  inst->tsc_khz = inst->settings.tsc_khz ? (long)inst->settings.tsc_khz : host_tsc_khz();
  /* Observed once per instance: the answer does not change while we run. */
  sbio__qm_hwvirt_detect(NULL, NULL, &inst->hw);
  *instance = inst;
  return SBIO_OK;
}

static void qemu_close(void *instance) {
  if (instance) instance_free(instance);
}

/* Which accelerator a create would use; starts nothing. KVM only on
 * observed hardware virtualisation, TCG only when the settings ask. */
int sbio__qm_plan_mechanism(qm_instance *inst, const sbio_bk_create_req *req, char *mechanism, size_t mechanism_size,
                            sbio_bk_error *err) {
  if (!inst || !req || !mechanism || mechanism_size < 4)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "qemu plan: missing argument");
  int rc = sbio__qm_check_request(inst, req, err);
  if (rc != SBIO_OK) return rc;
  if (inst->settings.accel == QM_ACCEL_TCG) {
    snprintf(mechanism, mechanism_size, "tcg");
    return SBIO_OK;
  }
  if (!inst->hw.ok)
    return sbio_sdk_error(err, SBIO_E_CONFIG,
                          "run it on a machine with VT-x or AMD-V exposed to it; for software emulation, whose tier "
                          "is UNKNOWN and satisfies no isolation requirement, set accel: tcg in the qemu backend's "
                          "settings",
                          "qemu: no hardware virtualisation here, so no MICROVM sandbox and no QEMU started: %s",
                          inst->hw.why);
  snprintf(mechanism, mechanism_size, "kvm");
  return SBIO_OK;
}

static int qemu_plan(void *instance, const sbio_bk_create_req *req, char *mechanism, size_t mechanism_size,
                     sbio_bk_error *err) {
  return sbio__qm_plan_mechanism(instance, req, mechanism, mechanism_size, err);
}

static int qemu_probe(void *instance, const sbio_bk_call *call, char *detail, size_t detail_size, sbio_bk_error *err) {
  qm_instance *inst = instance;
  if (!inst || !call || !detail || !detail_size)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "qemu probe: missing argument");
  const char *files[] = {inst->kernel, inst->initrd};
  for (size_t i = 0; i < 2; i++)
    if (access(files[i], R_OK) != 0)
      return sbio_sdk_error(err, SBIO_E_CONNECT, "build the guest with plugins/qemu/guest/mkguest.sh, or set guest_dir",
                            "qemu: the guest %s %s cannot be read", i ? "initramfs" : "kernel", files[i]);
  if (inst->settings.accel == QM_ACCEL_TCG)
    snprintf(detail, detail_size, "accel tcg (software emulation, tier UNKNOWN); KVM not used: %.300s", inst->hw.why);
  else if (inst->hw.ok)
    snprintf(detail, detail_size, "accel kvm: %.300s", inst->hw.why);
  else
    return sbio_sdk_error(err, SBIO_E_CONNECT, "set accel: tcg for software emulation (tier UNKNOWN)",
                          "qemu: no hardware virtualisation: %s", inst->hw.why);
  return SBIO_OK;
}

/* The metadata literals are laid out by hand: clang-format would split
 * every string into fragments. The source is QEMU's own statement of which
 * use of QEMU it supports as a security boundary, read on the date given. */
/* clang-format off */
SBIO_BACKEND(
    "qemu", "0.1.0", "Local QEMU microvm guests: KVM on hardware virtualisation (MICROVM), TCG emulation (UNKNOWN)",
    SBIO_CAP("run_command") "," SBIO_CAP("streaming") "," SBIO_CAP("filesystem") ","
    SBIO_CAP("upload_download") "," SBIO_CAP("network_policy") "," SBIO_CAP("stdin") ","
    SBIO_CAP("separate_stderr") "," SBIO_CAP("managed"),
    SBIO_MECHANISM("kvm", "microvm", "https://www.qemu.org/docs/master/system/security.html", "2026-12-02",
                   "These use cases rely on hardware virtualization extensions to execute guest code safely on the "
                   "physical CPU at close-to-native speed.") ","
    SBIO_MECHANISM_UNVERIFIED("tcg",
                   "TCG is the non-virtualization use case of QEMU: users must not rely on QEMU to provide guest "
                   "isolation or any security guarantees (www.qemu.org/docs/master/system/security.html, read "
                   "2026-12-02)"),
    .open = qemu_open, .close = qemu_close, .plan = qemu_plan, .create = sbio__qm_op_create,
    .exec = sbio__qm_op_exec, .file_read = sbio__qm_op_file_read, .file_write = sbio__qm_op_file_write,
    .file_list = sbio__qm_op_file_list, .file_mkdir = sbio__qm_op_file_mkdir, .file_remove = sbio__qm_op_file_remove,
    .kill = sbio__qm_op_kill, .release = sbio__qm_op_release, .list_managed = sbio__qm_op_list_managed,
    .kill_managed = sbio__qm_op_kill_managed, .probe = qemu_probe, .features = SBIO_BK_FEATURE_EXEC_CANCEL)
/* clang-format on */
