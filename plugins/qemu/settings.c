/* SPDX-License-Identifier: MIT */
/* Reads the settings through the SDK's reader: typed, bounded, and any
 * unknown key is an error rather than a silently ignored typo. */
#include "settings.h"

#include <sandboxio/sdk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SBIO_QEMU_GUEST_DIR
#define SBIO_QEMU_GUEST_DIR "/usr/lib/sandboxio/qemu-guest"
#endif

#define HINT "see docs/backends/qemu.md#settings"

static char *default_state_dir(void) {
  const char *xdg = getenv("XDG_RUNTIME_DIR");
  char buf[4096];
  if (xdg && xdg[0] == '/')
    snprintf(buf, sizeof buf, "%s/sandboxio/qemu", xdg);
  else
    snprintf(buf, sizeof buf, "/tmp/sandboxio-qemu-%lu", (unsigned long)getuid());
  return strdup(buf);
}

static int absolute(const char *key, const char *v, sbio_bk_error *err) {
  if (v && v[0] != '/')
    return sbio_sdk_error(err, SBIO_E_CONFIG, HINT, "qemu settings: '%s' must be an absolute path", key);
  return SBIO_OK;
}

int sbio__qm_settings_parse(const char *json, qm_settings *out, sbio_bk_error *err) {
  memset(out, 0, sizeof *out);
  out->memory_mb = 256;
  out->cpus = 1;
  out->qemu = strdup("qemu-system-x86_64");
  out->guest_dir = strdup(SBIO_QEMU_GUEST_DIR);
  out->state_dir = default_state_dir();
  if (!out->qemu || !out->guest_dir || !out->state_dir)
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory reading the qemu settings");
  sbio_sdk_settings *s = NULL;
  int rc = sbio_sdk_settings_parse(json, "qemu", HINT, &s, err);
  static const char *const accels[] = {"kvm", "tcg", NULL};
  const unsigned path = SBIO_SDK_NONEMPTY | SBIO_SDK_ONELINE;
  if (!rc) rc = sbio_sdk_settings_choice(s, "accel", 0, accels, &out->accel, err);
  if (!rc) rc = sbio_sdk_settings_string(s, "qemu", path, &out->qemu, err);
  if (!rc) rc = sbio_sdk_settings_string(s, "guest_dir", path, &out->guest_dir, err);
  if (!rc) rc = sbio_sdk_settings_string(s, "kernel", path, &out->kernel, err);
  if (!rc) rc = sbio_sdk_settings_string(s, "initrd", path, &out->initrd, err);
  if (!rc) rc = sbio_sdk_settings_string(s, "state_dir", path, &out->state_dir, err);
  if (!rc) rc = sbio_sdk_settings_string(s, "rootfs_dir", path, &out->rootfs_dir, err);
  if (!rc) rc = sbio_sdk_settings_int(s, "memory_mb", 0, 128, 65536, &out->memory_mb, err);
  if (!rc) rc = sbio_sdk_settings_int(s, "cpus", 0, 1, 64, &out->cpus, err);
  if (!rc) rc = sbio_sdk_settings_int(s, "tsc_khz", 0, 100000, 10000000, &out->tsc_khz, err);
  if (!rc) rc = sbio_sdk_settings_finish(s, err);
  sbio_sdk_settings_free(s);
  if (!rc) rc = absolute("guest_dir", out->guest_dir, err);
  if (!rc) rc = absolute("kernel", out->kernel, err);
  if (!rc) rc = absolute("initrd", out->initrd, err);
  if (!rc) rc = absolute("state_dir", out->state_dir, err);
  if (!rc) rc = absolute("rootfs_dir", out->rootfs_dir, err);
  return rc;
}

void sbio__qm_settings_free(qm_settings *s) {
  free(s->qemu);
  free(s->guest_dir);
  free(s->kernel);
  free(s->initrd);
  free(s->state_dir);
  free(s->rootfs_dir);
  memset(s, 0, sizeof *s);
}
