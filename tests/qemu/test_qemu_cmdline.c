/* SPDX-License-Identifier: MIT */
/* The QEMU command line (plugins/qemu/cmdline.c) and the plan's choice of
 * accelerator (plugins/qemu/plugin.c). The KVM path cannot run on the CI
 * machine; this is what it would run, checked without running it. */
#include "cmdline.h"
#include "qm.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

static qm_vm_params params(int kvm) {
  return (qm_vm_params){.qemu = "/usr/bin/qemu-system-x86_64",
                        .kernel = "/g/kernel",
                        .initrd = "/g/initrd.cpio.gz",
                        .dir = "/s/qm-0123456789abcdef",
                        .id = "qm-0123456789abcdef",
                        .kvm = kvm,
                        .tsc_khz = 2445000,
                        .memory_mb = 384,
                        .cpus = 2,
                        .disk_mb = 100,
                        .timeout_s = 30,
                        .rootfs = 0};
}

/* The value after option `opt`, or NULL; fails on a second occurrence. */
static const char *after(const qm_cmdline *c, const char *opt) {
  const char *v = NULL;
  for (int i = 0; i + 1 < c->argc; i++)
    if (!strcmp(c->argv[i], opt)) {
      if (v && strcmp(opt, "-device")) fail_msg("%s given twice", opt);
      v = c->argv[i + 1];
    }
  return v;
}

static int has(const qm_cmdline *c, const char *word) {
  for (int i = 0; i < c->argc; i++)
    if (!strcmp(c->argv[i], word)) return 1;
  return 0;
}

static void common(const qm_cmdline *c) {
  assert_null(c->argv[c->argc]);
  assert_string_equal(c->argv[0], "/usr/bin/qemu-system-x86_64");
  assert_string_equal(after(c, "-M"), "microvm"); /* its ACPI on: no acpi=off */
  assert_string_equal(after(c, "-m"), "384");
  assert_string_equal(after(c, "-smp"), "2");
  assert_string_equal(after(c, "-nic"), "none");
  assert_true(has(c, "-nodefaults"));
  assert_true(has(c, "-no-reboot"));
  assert_non_null(strstr(after(c, "-sandbox"), "on,"));
  assert_non_null(strstr(after(c, "-sandbox"), "spawn=deny"));
  assert_string_equal(after(c, "-chardev"),
                      "socket,id=agent,path=/s/qm-0123456789abcdef/agent.sock,server=on,wait=off");
  assert_string_equal(after(c, "-serial"), "file:/s/qm-0123456789abcdef/console.log");
  assert_non_null(strstr(after(c, "-append"), "sbio.deadline_ms=30000"));
  assert_non_null(strstr(after(c, "-append"), "sbio.disk_mb=100"));
  assert_null(strstr(after(c, "-append"), "acpi=off"));
  assert_false(has(c, "-drive"));
}

static void tcg_line(void **state) {
  (void)state;
  qm_vm_params p = params(0);
  qm_cmdline c;
  sbio__qm_cmdline(&c, &p);
  common(&c);
  assert_string_equal(after(&c, "-accel"), "tcg");
  assert_null(after(&c, "-cpu"));
  assert_non_null(strstr(after(&c, "-append"), "tsc_early_khz=2445000"));
}

static void kvm_line(void **state) {
  (void)state;
  qm_vm_params p = params(1);
  qm_cmdline c;
  sbio__qm_cmdline(&c, &p);
  common(&c);
  assert_string_equal(after(&c, "-accel"), "kvm");
  assert_string_equal(after(&c, "-cpu"), "host");
  assert_null(strstr(after(&c, "-append"), "tsc_early_khz"));
}

static void rootfs_is_read_only(void **state) {
  (void)state;
  qm_vm_params p = params(0);
  p.rootfs = 1;
  qm_cmdline c;
  sbio__qm_cmdline(&c, &p);
  assert_string_equal(after(&c, "-drive"),
                      "file=/s/qm-0123456789abcdef/rootfs.img,format=raw,if=none,readonly=on,id=rootfs");
  assert_non_null(strstr(after(&c, "-append"), "sbio.rootfs=1"));
}

/* plan: KVM exactly when hardware virtualisation was observed and the
 * settings do not ask for TCG; TCG exactly when they do. */
static void plan_choice(void **state) {
  (void)state;
  qm_instance inst;
  memset(&inst, 0, sizeof inst);
  sbio_bk_create_req req = {.size = sizeof req};
  char mech[16];
  sbio_bk_error err = {.size = sizeof err};

  inst.settings.accel = QM_ACCEL_KVM;
  inst.settings.memory_mb = 256;
  inst.hw.ok = 1;
  assert_int_equal(sbio__qm_plan_mechanism(&inst, &req, mech, sizeof mech, &err), SBIO_OK);
  assert_string_equal(mech, "kvm");

  inst.hw.ok = 0;
  snprintf(inst.hw.why, sizeof inst.hw.why, "/sys/module/kvm_pvm is present: (fixture)");
  assert_int_equal(sbio__qm_plan_mechanism(&inst, &req, mech, sizeof mech, &err), SBIO_E_CONFIG);
  assert_non_null(strstr(err.message, "kvm_pvm"));
  assert_non_null(strstr(err.message, "no QEMU started"));
  assert_non_null(strstr(err.hint, "accel: tcg"));

  inst.settings.accel = QM_ACCEL_TCG;
  assert_int_equal(sbio__qm_plan_mechanism(&inst, &req, mech, sizeof mech, &err), SBIO_OK);
  assert_string_equal(mech, "tcg");
  inst.hw.ok = 1; /* asked for TCG, TCG it is, whatever the hardware */
  assert_int_equal(sbio__qm_plan_mechanism(&inst, &req, mech, sizeof mech, &err), SBIO_OK);
  assert_string_equal(mech, "tcg");

  /* Refusals before anything starts: egress, a disk over the memory. */
  req.egress = 1;
  assert_int_equal(sbio__qm_plan_mechanism(&inst, &req, mech, sizeof mech, &err), SBIO_E_CAPABILITY);
  req.egress = 0;
  req.disk_mb = 1024;
  assert_int_equal(sbio__qm_plan_mechanism(&inst, &req, mech, sizeof mech, &err), SBIO_E_CAPABILITY);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(tcg_line),
      cmocka_unit_test(kvm_line),
      cmocka_unit_test(rootfs_is_read_only),
      cmocka_unit_test(plan_choice),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
