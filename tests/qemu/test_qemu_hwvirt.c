/* SPDX-License-Identifier: MIT */
/* Hardware-virtualisation detection (plugins/qemu/hwvirt.c) on fixture
 * trees: the KVM path cannot run on the CI machine (its /dev/kvm is
 * kvm_pvm), so what decides between KVM and a refusal is tested here with
 * made-up /proc/cpuinfo, /sys/module and /dev/kvm. */
#include "hwvirt.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#define INTEL_FLAGS "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush vmx smx est"
#define AMD_FLAGS "fpu vme de pse tsc msr pae mce cx8 apic sep svm extapic cr8_legacy abm"
#define PVM_FLAGS "fpu vme de pse tsc msr pae mce cx8 apic sep hypervisor lahf_lm abm"

/* The probe of the fixture's dev/kvm: present means usable. */
static int fixture_probe(const char *path) {
  return access(path, F_OK) == 0 ? 0 : ENOENT;
}

static void put(const char *root, const char *rel, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  char *slash = strrchr(path, '/');
  *slash = '\0';
  char cmd[600];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
  assert_int_equal(system(cmd), 0);
  *slash = '/';
  if (!text) {
    assert_int_equal(mkdir(path, 0755), 0);
    return;
  }
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* A machine: cpuinfo with `flags` on two CPUs, optional kvm_pvm and /dev/kvm. */
static char *machine(const char *flags, int pvm, int devkvm) {
  char tmpl[] = "/tmp/sbio-hwvirt-XXXXXX";
  char *root = mkdtemp(tmpl);
  assert_non_null(root);
  root = strdup(root);
  if (flags) {
    char cpuinfo[2048];
    snprintf(cpuinfo, sizeof cpuinfo,
             "processor\t: 0\nvendor_id\t: Fixture\nflags\t\t: %s\nvmx flags\t: vnmi\nbugs\t\t: spectre_v1\n\n"
             "processor\t: 1\nflags\t\t: %s\n\n",
             flags, flags);
    put(root, "proc/cpuinfo", cpuinfo);
  }
  if (pvm) put(root, "sys/module/kvm_pvm/parameters/nested_pvm", "Y\n");
  put(root, "sys/module/kvm/parameters/halt_poll_ns", "0\n");
  if (devkvm) put(root, "dev/kvm", "");
  return root;
}

static void drop(char *root) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  assert_int_equal(system(cmd), 0);
  free(root);
}

static void intel_vmx_is_hardware(void **state) {
  (void)state;
  char *root = machine(INTEL_FLAGS, 0, 1);
  qm_hwvirt hw;
  sbio__qm_hwvirt_detect(root, fixture_probe, &hw);
  assert_true(hw.ok);
  assert_string_equal(hw.cpu_flag, "vmx");
  assert_false(hw.pvm);
  assert_non_null(strstr(hw.why, "vmx"));
  drop(root);
}

static void amd_svm_is_hardware(void **state) {
  (void)state;
  char *root = machine(AMD_FLAGS, 0, 1);
  qm_hwvirt hw;
  sbio__qm_hwvirt_detect(root, fixture_probe, &hw);
  assert_true(hw.ok);
  assert_string_equal(hw.cpu_flag, "svm");
  drop(root);
}

/* This kind of CI machine: /dev/kvm works, but it is kvm_pvm. */
static void pvm_is_not_hardware(void **state) {
  (void)state;
  char *root = machine(PVM_FLAGS, 1, 1);
  qm_hwvirt hw;
  sbio__qm_hwvirt_detect(root, fixture_probe, &hw);
  assert_false(hw.ok);
  assert_true(hw.pvm);
  assert_true(hw.kvm_usable);
  assert_string_equal(hw.cpu_flag, "");
  assert_non_null(strstr(hw.why, "kvm_pvm"));
  assert_non_null(strstr(hw.why, "not hardware virtualisation"));
  drop(root);
}

/* kvm_pvm wins even where the CPU flag shows through. */
static void pvm_with_vmx_is_not_hardware(void **state) {
  (void)state;
  char *root = machine(INTEL_FLAGS, 1, 1);
  qm_hwvirt hw;
  sbio__qm_hwvirt_detect(root, fixture_probe, &hw);
  assert_false(hw.ok);
  assert_non_null(strstr(hw.why, "kvm_pvm"));
  drop(root);
}

static void vmx_without_dev_kvm(void **state) {
  (void)state;
  char *root = machine(INTEL_FLAGS, 0, 0);
  qm_hwvirt hw;
  sbio__qm_hwvirt_detect(root, fixture_probe, &hw);
  assert_false(hw.ok);
  assert_int_equal(hw.kvm_errno, ENOENT);
  assert_non_null(strstr(hw.why, "/dev/kvm is not usable"));
  drop(root);
}

static void no_flag_no_pvm(void **state) {
  (void)state;
  char *root = machine("fpu vme de pse tsc hypervisor", 0, 1);
  qm_hwvirt hw;
  sbio__qm_hwvirt_detect(root, fixture_probe, &hw);
  assert_false(hw.ok);
  assert_non_null(strstr(hw.why, "no vmx or svm"));
  drop(root);
}

static void no_cpuinfo(void **state) {
  (void)state;
  char *root = machine(NULL, 0, 1);
  qm_hwvirt hw;
  sbio__qm_hwvirt_detect(root, fixture_probe, &hw);
  assert_false(hw.ok);
  assert_false(hw.cpuinfo_read);
  assert_non_null(strstr(hw.why, "cannot be confirmed"));
  drop(root);
}

/* Whole words on "flags" lines only: not "vmx flags", not "vmxe". */
static void flag_words(void **state) {
  (void)state;
  const char *t1 = "vmx flags\t: vnmi preemption_timer\nflags\t\t: fpu vmxe svmx\n";
  assert_false(sbio__qm_cpuinfo_has_flag(t1, strlen(t1), "vmx"));
  assert_false(sbio__qm_cpuinfo_has_flag(t1, strlen(t1), "svm"));
  const char *t2 = "flags\t\t: fpu vmx\n";
  assert_true(sbio__qm_cpuinfo_has_flag(t2, strlen(t2), "vmx"));
  const char *t3 = "flags: svm";
  assert_true(sbio__qm_cpuinfo_has_flag(t3, strlen(t3), "svm"));
  const char *t4 = "model name\t: flags vmx\n";
  assert_false(sbio__qm_cpuinfo_has_flag(t4, strlen(t4), "vmx"));
  /* Not NUL-terminated at the length: nothing past it is read. */
  const char t5[] = {'f', 'l', 'a', 'g', 's', ':', ' ', 'v', 'm', 'x'};
  assert_false(sbio__qm_cpuinfo_has_flag(t5, 9, "vmx"));
  assert_true(sbio__qm_cpuinfo_has_flag(t5, 10, "vmx"));
}

/* The real machine, for the record: where kvm_pvm is loaded, never KVM. */
static void this_machine(void **state) {
  (void)state;
  struct stat st;
  qm_hwvirt hw;
  sbio__qm_hwvirt_detect(NULL, NULL, &hw);
  printf("# this machine: ok=%d flag=%s pvm=%d kvm_usable=%d: %s\n", hw.ok, hw.cpu_flag, hw.pvm, hw.kvm_usable, hw.why);
  if (stat("/sys/module/kvm_pvm", &st) == 0) assert_false(hw.ok);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(intel_vmx_is_hardware),
      cmocka_unit_test(amd_svm_is_hardware),
      cmocka_unit_test(pvm_is_not_hardware),
      cmocka_unit_test(pvm_with_vmx_is_not_hardware),
      cmocka_unit_test(vmx_without_dev_kvm),
      cmocka_unit_test(no_flag_no_pvm),
      cmocka_unit_test(no_cpuinfo),
      cmocka_unit_test(flag_words),
      cmocka_unit_test(this_machine),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
