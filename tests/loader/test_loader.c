/* SPDX-License-Identifier: MIT */
/* The loader battery: one deliberately broken backend per refusal reason,
 * scanned and loaded through the internal registry API. Every test works on
 * copies in a private directory under /tmp (see loader_support.h).
 *
 * Tests run as root in CI; the permission rules are about mode bits and
 * owners, so they are exercised by chmod and chown on the copies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "config.h"
#include "loader.h"
#include "loader_support.h"
#include "registry.h"
#include "sha256.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sandboxio/sandboxio.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOBODY 65534

typedef struct ctx {
  char tmp[PATH_MAX];
  char plugins[PATH_MAX]; /* tmp/plugins, mode 0755 */
  char marker[PATH_MAX];  /* tmp/marker: exists once the marker backend ran */
  sbio__config cfg;
  sbio__registry reg;
  sbio__trust_policy policy;
  sbio_error *err;
} ctx;

/* ------------------------------------------------------------ fixture */

static int setup(void **state) {
  ctx *c = calloc(1, sizeof *c);
  if (!c || loader_tmpdir(c->tmp) != 0) return -1;
  if (loader_mkdir(c->tmp, "plugins", 0755, c->plugins) != 0) return -1;
  loader_join(c->marker, c->tmp, "marker");
  setenv("SBIO_TEST_MARKER", c->marker, 1);
  sbio__config_init(&c->cfg);
  sbio__registry_init(&c->reg);
  c->policy.max_age_days = SBIO__DEFAULT_MAX_AGE_DAYS;
  c->policy.stale_is_unknown = 0;
  c->policy.now = LOADER_FIXED_NOW;
  c->err = sbio_error_new();
  if (!c->err) return -1;
  *state = c;
  return 0;
}

static int teardown(void **state) {
  ctx *c = *state;
  sbio__registry_free(&c->reg); /* before the config: entries point into it */
  sbio__config_free(&c->cfg);
  sbio_error_free(c->err);
  unsetenv("SBIO_TEST_MARKER");
  loader_rm_rf(c->tmp);
  free(c);
  return 0;
}

/* A fresh registry and configuration, for a second scan in the same test. */
static void reset(ctx *c) {
  sbio__registry_free(&c->reg);
  sbio__config_free(&c->cfg);
  sbio__config_init(&c->cfg);
  sbio__registry_init(&c->reg);
  sbio_error_clear(c->err);
}

static void configure(ctx *c, const char *yaml) {
  sbio_code rc = sbio__config_merge_buffer(&c->cfg, "test.yaml", yaml, strlen(yaml), c->err);
  if (rc != SBIO_OK) print_error("config rejected: %s\n", sbio_error_message(c->err));
  assert_int_equal(rc, SBIO_OK);
}

static void scan_n(ctx *c, const char *const *dirs, size_t n) {
  sbio_code rc = sbio__registry_scan(&c->reg, dirs, n, &c->cfg, &c->policy, c->err);
  if (rc != SBIO_OK) print_error("scan failed: %s\n", sbio_error_message(c->err));
  assert_int_equal(rc, SBIO_OK);
}

static void scan_one(ctx *c, const char *dir) {
  const char *dirs[] = {dir};
  scan_n(c, dirs, 1);
}

static void copy(const char *fixture, const char *dir, const char *as_name, mode_t mode) {
  assert_int_equal(loader_copy_fixture(fixture, dir, as_name, mode), 0);
}

static const char *status_text(sbio_backend_status s) {
  switch (s) {
  case SBIO_BACKEND_AVAILABLE:
    return "AVAILABLE";
  case SBIO_BACKEND_LOADED:
    return "LOADED";
  case SBIO_BACKEND_DISABLED:
    return "DISABLED";
  case SBIO_BACKEND_REFUSED:
    return "REFUSED";
  case SBIO_BACKEND_SHADOWED:
    return "SHADOWED";
  }
  return "?";
}

/* The entry for dir/fname, checked for status and a reason substring ("" :
 * the reason must be empty). Fails the test with everything it saw. */
#define expect_entry(c, dir, fname, status, reason) expect_entry_at(__FILE__, __LINE__, c, dir, fname, status, reason)
static struct sbio_backend_info *expect_entry_at(const char *file, int line, ctx *c, const char *dir, const char *fname,
                                                 sbio_backend_status status, const char *reason) {
  char path[PATH_MAX];
  loader_join(path, dir, fname);
  for (size_t i = 0; i < c->reg.n; i++) {
    struct sbio_backend_info *b = c->reg.items[i];
    if (strcmp(b->path, path) != 0) continue;
    int reason_ok = reason[0] ? strstr(b->reason, reason) != NULL : b->reason[0] == '\0';
    if (b->status != status || !reason_ok) {
      print_error("%s: status %s, reason \"%s\"; wanted %s and \"%s\"\n", path, status_text(b->status), b->reason,
                  status_text(status), reason);
      _fail(file, line);
    }
    return b;
  }
  print_error("no registry entry for %s (%zu entries)\n", path, c->reg.n);
  for (size_t i = 0; i < c->reg.n; i++) print_error("  %s\n", c->reg.items[i]->path);
  _fail(file, line);
  return NULL;
}

static sbio_code load(ctx *c, struct sbio_backend_info *b) {
  sbio_error_clear(c->err);
  pthread_mutex_lock(&c->reg.lock);
  sbio_code rc = sbio__loader_load(b, c->err);
  pthread_mutex_unlock(&c->reg.lock);
  return rc;
}

#define expect_loads(c, b) expect_loads_at(__FILE__, __LINE__, c, b)
static void expect_loads_at(const char *file, int line, ctx *c, struct sbio_backend_info *b) {
  sbio_code rc = load(c, b);
  if (rc != SBIO_OK || b->status != SBIO_BACKEND_LOADED || !b->ops || !b->dl) {
    print_error("%s did not load: %d %s (%s)\n", b->path, (int)rc, sbio_error_message(c->err), b->reason);
    _fail(file, line);
  }
  assert_string_equal(b->ops->name, b->name);
}

/* Load fails with BACKEND_UNAVAILABLE; the entry is REFUSED with the reason,
 * unloaded, UNKNOWN; the error message carries the reason. */
#define expect_load_refused(c, b, reason) expect_load_refused_at(__FILE__, __LINE__, c, b, reason)
static void expect_load_refused_at(const char *file, int line, ctx *c, struct sbio_backend_info *b,
                                   const char *reason) {
  sbio_code rc = load(c, b);
  if (rc != SBIO_E_BACKEND_UNAVAILABLE || b->status != SBIO_BACKEND_REFUSED || !strstr(b->reason, reason) ||
      !strstr(sbio_error_message(c->err), reason) || b->dl || b->ops || b->tier != SBIO_TIER_UNKNOWN) {
    print_error("%s: load gave %d \"%s\", status %s, reason \"%s\"; wanted a refusal with \"%s\"\n", b->path, (int)rc,
                sbio_error_message(c->err), status_text(b->status), b->reason, reason);
    _fail(file, line);
  }
  assert_string_equal(sbio_error_backend(c->err), b->name);
  /* Asking again gives the same answer, without another dlopen. */
  assert_int_equal(load(c, b), SBIO_E_BACKEND_UNAVAILABLE);
  assert_non_null(strstr(sbio_error_message(c->err), reason));
}

static void file_sha256(const char *path, char hex[65]) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  assert_int_equal(sbio__sha256_fd_hex(fd, hex), 0);
  close(fd);
}

/* Makes the entry's record (identity and hash) that of the file as it is
 * now, as if the scan had read this very file. */
static void rerecord(struct sbio_backend_info *b) {
  struct stat st;
  assert_int_equal(stat(b->path, &st), 0);
  sbio__file_identity_of(&st, &b->scanned);
  file_sha256(b->path, b->sha256);
  atomic_store(&b->sha256_known, 1);
}

/* Forgets the scan's hash, as for a file installed long before the scan,
 * which is not hashed (registry.c, "Hashing"). */
static void forget_hash(struct sbio_backend_info *b) {
  atomic_store(&b->sha256_known, 0);
  memset(b->sha256, 0, sizeof b->sha256);
}

/* -------------------------------------------------- one scan, all cases */

static const struct {
  const char *fixture;
  sbio_backend_status status;
  const char *reason;
} scan_cases[] = {
    {"loader_good", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_marker", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_unverified", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_http", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_stale", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_future", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_baddate", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_nomech", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_misnamed", SBIO_BACKEND_REFUSED,
     "metadata names backend \"other\" but the file is sbio-backend-loader_misnamed.so"},
    {"loader_badcap", SBIO_BACKEND_REFUSED, "invalid metadata: "},
    {"loader_nonote", SBIO_BACKEND_REFUSED, "no .note.sandboxio"},
    {"loader_badjson", SBIO_BACKEND_REFUSED, "invalid metadata: "},
    {"loader_unterminated", SBIO_BACKEND_REFUSED, "not NUL-terminated"},
    {"loader_abitwo", SBIO_BACKEND_REFUSED, "metadata ABI 2 does not match this core's ABI 1"},
    {"loader_abifuture", SBIO_BACKEND_REFUSED, "metadata ABI 3 does not match this core's ABI 1"},
    /* Refused only when loaded (see test_load_time_refusals). */
    {"loader_codename", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_opsabi", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_opssmall", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_opsmeta", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_noentry", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_nullentry", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_missingdep", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_nokill", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_connectnokill", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_noplan", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_somefiles", SBIO_BACKEND_AVAILABLE, ""},
    {"loader_cancelnoexec", SBIO_BACKEND_AVAILABLE, ""},
};
#define N_SCAN_CASES (sizeof scan_cases / sizeof scan_cases[0])

static const char *fname_of(const char *fixture, char buf[128]) {
  snprintf(buf, 128, "sbio-backend-%s.so", fixture);
  return buf;
}

static struct sbio_backend_info *entry_of(ctx *c, const char *dir, const char *fixture) {
  char path[PATH_MAX], fname[128];
  loader_join(path, dir, fname_of(fixture, fname));
  for (size_t i = 0; i < c->reg.n; i++)
    if (strcmp(c->reg.items[i]->path, path) == 0) return c->reg.items[i];
  fail_msg("no entry for %s", path);
  return NULL;
}

static void copy_all_fixtures(ctx *c) {
  for (size_t i = 0; i < N_SCAN_CASES; i++) copy(scan_cases[i].fixture, c->plugins, NULL, 0644);
  static const char text[] = "this is not a shared object\n";
  char path[PATH_MAX];
  loader_join(path, c->plugins, "sbio-backend-loader_text.so");
  assert_int_equal(loader_write_file(path, text, sizeof text - 1, 0644), 0);
}

static void test_battery_in_one_scan(void **state) {
  ctx *c = *state;
  copy_all_fixtures(c);
  scan_one(c, c->plugins);
  assert_int_equal(c->reg.n, N_SCAN_CASES + 1);
  assert_false(loader_exists(c->marker)); /* a scan runs no backend code */

  char fname[128];
  for (size_t i = 0; i < N_SCAN_CASES; i++)
    expect_entry(c, c->plugins, fname_of(scan_cases[i].fixture, fname), scan_cases[i].status, scan_cases[i].reason);
  expect_entry(c, c->plugins, "sbio-backend-loader_text.so", SBIO_BACKEND_REFUSED, "not an ELF file");

  /* Sorted by file name within the directory. */
  for (size_t i = 1; i < c->reg.n; i++) assert_true(strcmp(c->reg.items[i - 1]->path, c->reg.items[i]->path) < 0);

  /* The good one: everything filled in. */
  struct sbio_backend_info *good = entry_of(c, c->plugins, "loader_good");
  assert_string_equal(good->name, "loader_good");
  assert_true(good->have_meta);
  assert_true(good->enabled);
  assert_null(good->cfg);
  assert_string_equal(good->meta.version, "1.0.0");
  assert_int_equal(good->meta.abi, 1);
  assert_int_equal(good->tier, SBIO_TIER_CONTAINER);
  assert_int_equal(good->claimed_tier, SBIO_TIER_CONTAINER);
  /* Hashed when asked for (or at scan, for a file this fresh). */
  assert_int_equal(strlen(sbio__backend_sha256(good)), 64);
  char hex[65];
  file_sha256(good->path, hex);
  assert_string_equal(sbio__backend_sha256(good), hex);
  assert_string_equal(good->sha256, hex);
  assert_null(good->dl);
  assert_null(good->ops);

  /* The schema failure names the offending value. */
  assert_non_null(strstr(entry_of(c, c->plugins, "loader_badcap")->reason, "telepathy"));
  assert_false(entry_of(c, c->plugins, "loader_badcap")->have_meta);
  /* A name mismatch still shows the metadata (for `sbio inspect`), but no tier. */
  struct sbio_backend_info *mis = entry_of(c, c->plugins, "loader_misnamed");
  assert_true(mis->have_meta);
  assert_int_equal(mis->tier, SBIO_TIER_UNKNOWN);

  /* Trust outcomes are not refusals: available, at the tier the sources support. */
  struct sbio_backend_info *b = entry_of(c, c->plugins, "loader_unverified");
  assert_int_equal(b->tier, SBIO_TIER_UNKNOWN);
  assert_int_equal(b->claimed_tier, SBIO_TIER_UNKNOWN);
  b = entry_of(c, c->plugins, "loader_http");
  assert_int_equal(b->tier, SBIO_TIER_UNKNOWN);
  assert_int_equal(b->claimed_tier, SBIO_TIER_CONTAINER);
  assert_int_equal(b->meta.n_mechs, 1);
  assert_int_equal(b->meta.mechs[0].effective, SBIO_TIER_UNKNOWN);
  assert_non_null(strstr(b->meta.mechs[0].reason, "https"));
  b = entry_of(c, c->plugins, "loader_stale");
  assert_int_equal(b->tier, SBIO_TIER_CONTAINER); /* policy stale: warn */
  assert_true(b->meta.mechs[0].stale);
  assert_true(b->meta.mechs[0].age_days > 92);
  assert_true(b->meta.mechs[0].reason[0] != '\0');
  b = entry_of(c, c->plugins, "loader_future");
  assert_int_equal(b->tier, SBIO_TIER_UNKNOWN);
  assert_non_null(strstr(b->meta.mechs[0].reason, "future"));
  b = entry_of(c, c->plugins, "loader_baddate");
  assert_int_equal(b->tier, SBIO_TIER_UNKNOWN);
  assert_non_null(strstr(b->meta.mechs[0].reason, "calendar"));
  b = entry_of(c, c->plugins, "loader_nomech");
  assert_int_equal(b->tier, SBIO_TIER_UNKNOWN);
  assert_int_equal(b->meta.n_mechs, 0);

  /* Good backends in the same scan load. */
  expect_loads(c, good);
  expect_loads(c, entry_of(c, c->plugins, "loader_marker"));
  assert_true(loader_exists(c->marker));
  expect_loads(c, entry_of(c, c->plugins, "loader_unverified"));
  /* A refused one cannot be loaded, and says why. */
  struct sbio_backend_info *nonote = entry_of(c, c->plugins, "loader_nonote");
  assert_int_equal(load(c, nonote), SBIO_E_BACKEND_UNAVAILABLE);
  assert_non_null(strstr(sbio_error_message(c->err), "no .note.sandboxio"));
  assert_string_equal(sbio_error_backend(c->err), "loader_nonote");
  assert_null(nonote->dl);
}

/* ------------------------------------------------------ load time */

static void test_load_time_refusals(void **state) {
  ctx *c = *state;
  copy_all_fixtures(c);
  scan_one(c, c->plugins);
  expect_load_refused(c, entry_of(c, c->plugins, "loader_noentry"), "entry symbol sbio_backend_entry_v1 not found: ");
  expect_load_refused(c, entry_of(c, c->plugins, "loader_nullentry"), "entry point returned NULL");
  expect_load_refused(c, entry_of(c, c->plugins, "loader_codename"),
                      "operations table names \"other\" but the file is sbio-backend-loader_codename.so");
  expect_load_refused(c, entry_of(c, c->plugins, "loader_opsabi"),
                      "operations table ABI major 2 does not match this core's 1");
  expect_load_refused(c, entry_of(c, c->plugins, "loader_opssmall"), "operations table too small (16 bytes)");
  expect_load_refused(c, entry_of(c, c->plugins, "loader_opsmeta"), "code-side metadata differs from the ELF note");
  struct sbio_backend_info *dep = entry_of(c, c->plugins, "loader_missingdep");
  expect_load_refused(c, dep, "dlopen failed: ");
  /* libltdl's diagnostic is passed through: it names what is missing. */
  assert_non_null(strstr(dep->reason, "libloader_missing_dep"));
  /* Operations that must come together (issue 10, finding 2: a backend
   * that could create but never destroy used to load). */
  expect_load_refused(c, entry_of(c, c->plugins, "loader_nokill"),
                      "incomplete operations table: create without kill (a sandbox it creates could never be "
                      "destroyed)");
  expect_load_refused(c, entry_of(c, c->plugins, "loader_connectnokill"),
                      "incomplete operations table: connect without kill (a sandbox it attaches to could never be "
                      "destroyed)");
  expect_load_refused(c, entry_of(c, c->plugins, "loader_noplan"),
                      "incomplete operations table: create without plan while declaring 2 mechanisms");
  expect_load_refused(c, entry_of(c, c->plugins, "loader_somefiles"),
                      "incomplete operations table: capability filesystem declared without file_list, file_mkdir, "
                      "file_remove");
  expect_load_refused(c, entry_of(c, c->plugins, "loader_cancelnoexec"),
                      "incomplete operations table: feature exec_cancel declared without exec");

  /* None of that disturbed a good backend in the same registry. */
  struct sbio_backend_info *good = entry_of(c, c->plugins, "loader_good");
  expect_loads(c, good);
  const sbio_backend_ops *ops = good->ops;
  expect_loads(c, good); /* LOADED: a no-op */
  assert_ptr_equal(good->ops, ops);
  assert_int_equal(ops->abi_major, SBIO_BACKEND_ABI_MAJOR);
  assert_non_null(ops->open);
  assert_null(ops->exec); /* NULL operation: capability not supported */
}

/* A file replaced between scan and load is refused before its code runs:
 * by its identity (inode, size, times) when the scan did not hash it, and
 * by its hash when it did, even if the identity were the same. */
static void test_file_changed_before_load(void **state) {
  ctx *c = *state;
  copy("loader_marker", c->plugins, NULL, 0644);
  scan_one(c, c->plugins);
  struct sbio_backend_info *b =
      expect_entry(c, c->plugins, "sbio-backend-loader_marker.so", SBIO_BACKEND_AVAILABLE, "");
  forget_hash(b);
  /* Same name, other bytes: an "upgrade" behind the registry's back. */
  copy("loader_good", c->plugins, "sbio-backend-loader_marker.so", 0644);
  expect_load_refused(c, b, "file changed since it was scanned (");
  assert_null(strstr(b->reason, "sha256"));
  assert_false(loader_exists(c->marker));
  /* Nor is the other file's hash reported as this entry's. */
  assert_string_equal(sbio__backend_sha256(b), "");

  reset(c);
  copy("loader_marker", c->plugins, NULL, 0644);
  scan_one(c, c->plugins);
  b = expect_entry(c, c->plugins, "sbio-backend-loader_marker.so", SBIO_BACKEND_AVAILABLE, "");
  char was[65];
  snprintf(was, sizeof was, "%s", sbio__backend_sha256(b));
  assert_int_equal(strlen(was), 64);
  copy("loader_good", c->plugins, "sbio-backend-loader_marker.so", 0644);
  /* The identity says nothing changed (as after a rewrite within one clock
   * tick); the hash still does. */
  struct stat st;
  assert_int_equal(stat(b->path, &st), 0);
  sbio__file_identity_of(&st, &b->scanned);
  expect_load_refused(c, b, "file changed since it was scanned (sha256 was ");
  assert_non_null(strstr(b->reason, was));
  assert_false(loader_exists(c->marker));
}

/* ---------------------------------------------------- permissions */

static void test_writable_file_refused(void **state) {
  ctx *c = *state;
  copy("loader_good", c->plugins, NULL, 0644);
  copy("loader_marker", c->plugins, NULL, 0666);
  copy("loader_unverified", c->plugins, NULL, 0620);
  scan_one(c, c->plugins);
  char path[PATH_MAX], want[PATH_MAX + 128];
  loader_join(path, c->plugins, "sbio-backend-loader_marker.so");
  snprintf(want, sizeof want, "file %s is writable by group or others (mode 0666)", path);
  expect_entry(c, c->plugins, "sbio-backend-loader_marker.so", SBIO_BACKEND_REFUSED, want);
  expect_entry(c, c->plugins, "sbio-backend-loader_unverified.so", SBIO_BACKEND_REFUSED,
               "is writable by group or others (mode 0620)");
  struct sbio_backend_info *good =
      expect_entry(c, c->plugins, "sbio-backend-loader_good.so", SBIO_BACKEND_AVAILABLE, "");
  expect_loads(c, good);
  /* The refused one is never loaded. */
  assert_int_equal(load(c, entry_of(c, c->plugins, "loader_marker")), SBIO_E_BACKEND_UNAVAILABLE);
  assert_false(loader_exists(c->marker));
}

static void test_foreign_owner_refused(void **state) {
  ctx *c = *state;
  if (geteuid() != 0) skip(); /* chown needs root; CI runs as root */
  copy("loader_good", c->plugins, NULL, 0644);
  char path[PATH_MAX], dir[PATH_MAX], want[PATH_MAX + 128];
  loader_join(path, c->plugins, "sbio-backend-loader_good.so");
  assert_int_equal(chown(path, NOBODY, NOBODY), 0);
  /* A directory owned by someone else, even without write bits for others. */
  assert_int_equal(loader_mkdir(c->tmp, "theirs", 0755, dir), 0);
  copy("loader_marker", dir, NULL, 0644);
  assert_int_equal(chown(dir, NOBODY, NOBODY), 0);
  const char *dirs[] = {c->plugins, dir};
  scan_n(c, dirs, 2);
  snprintf(want, sizeof want, "file %s is owned by uid %d, neither root nor the current user (uid 0)", path, NOBODY);
  expect_entry(c, c->plugins, "sbio-backend-loader_good.so", SBIO_BACKEND_REFUSED, want);
  snprintf(want, sizeof want, "directory %s is owned by uid %d, neither root nor the current user (uid 0)", dir,
           NOBODY);
  expect_entry(c, dir, "sbio-backend-loader_marker.so", SBIO_BACKEND_REFUSED, want);
}

static void test_writable_directory_refused(void **state) {
  ctx *c = *state;
  char open_dir[PATH_MAX], group_dir[PATH_MAX], want[PATH_MAX + 128];
  assert_int_equal(loader_mkdir(c->tmp, "open", 0777, open_dir), 0);
  assert_int_equal(loader_mkdir(c->tmp, "group", 0775, group_dir), 0);
  copy("loader_good", open_dir, NULL, 0644);
  copy("loader_marker", group_dir, NULL, 0644);
  copy("loader_unverified", c->plugins, NULL, 0644);
  const char *dirs[] = {open_dir, group_dir, c->plugins};
  scan_n(c, dirs, 3);
  snprintf(want, sizeof want,
           "directory %s is writable by group or others (mode 0777) and not a root-owned sticky directory", open_dir);
  expect_entry(c, open_dir, "sbio-backend-loader_good.so", SBIO_BACKEND_REFUSED, want);
  expect_entry(c, group_dir, "sbio-backend-loader_marker.so", SBIO_BACKEND_REFUSED, "(mode 0775)");
  expect_entry(c, c->plugins, "sbio-backend-loader_unverified.so", SBIO_BACKEND_AVAILABLE, "");
  assert_int_equal(load(c, entry_of(c, group_dir, "loader_marker")), SBIO_E_BACKEND_UNAVAILABLE);
  assert_false(loader_exists(c->marker));
}

static void test_writable_ancestor_refused(void **state) {
  ctx *c = *state;
  char parent[PATH_MAX], child[PATH_MAX], want[PATH_MAX + 128];
  assert_int_equal(loader_mkdir(c->tmp, "parent", 0777, parent), 0);
  assert_int_equal(loader_mkdir(parent, "child", 0755, child), 0);
  copy("loader_good", child, NULL, 0644);
  scan_one(c, child);
  /* Others could rename child away and put their own in its place. */
  snprintf(want, sizeof want, "directory %s is writable by group or others (mode 0777)", parent);
  expect_entry(c, child, "sbio-backend-loader_good.so", SBIO_BACKEND_REFUSED, want);
}

static void test_sticky_directory(void **state) {
  ctx *c = *state;
  if (geteuid() != 0) skip(); /* needs a root-owned directory */
  char sticky[PATH_MAX], theirs[PATH_MAX];
  /* Root-owned and sticky, like /tmp: others cannot touch our files there. */
  assert_int_equal(loader_mkdir(c->tmp, "sticky", 01777, sticky), 0);
  copy("loader_good", sticky, NULL, 0644);
  /* Sticky but owned by someone else: they own everything in it. */
  assert_int_equal(loader_mkdir(c->tmp, "theirs", 01777, theirs), 0);
  assert_int_equal(chown(theirs, NOBODY, NOBODY), 0);
  copy("loader_marker", theirs, NULL, 0644);
  const char *dirs[] = {sticky, theirs};
  scan_n(c, dirs, 2);
  expect_loads(c, expect_entry(c, sticky, "sbio-backend-loader_good.so", SBIO_BACKEND_AVAILABLE, ""));
  expect_entry(c, theirs, "sbio-backend-loader_marker.so", SBIO_BACKEND_REFUSED, "is owned by uid 65534");
}

/* ---------------------------------------------------- file contents */

static void write_patched(const char *fixture, const char *dir, const char *fname, size_t offset,
                          const unsigned char *bytes, size_t n) {
  char src[PATH_MAX], dst[PATH_MAX], srcname[128];
  loader_join(src, LOADER_FIXTURE_DIR, fname_of(fixture, srcname));
  size_t len = 0;
  unsigned char *data = loader_read_file(src, &len);
  assert_non_null(data);
  assert_true(len > offset + n);
  memcpy(data + offset, bytes, n);
  loader_join(dst, dir, fname);
  assert_int_equal(loader_write_file(dst, data, len, 0644), 0);
  free(data);
}

static void test_foreign_elf_refused(void **state) {
  ctx *c = *state;
  static const unsigned char aarch64[2] = {183, 0}; /* e_machine, little-endian */
  static const unsigned char class32[1] = {1};      /* EI_CLASS = ELFCLASS32 */
  static const unsigned char bigendian[1] = {2};    /* EI_DATA = ELFDATA2MSB */
  write_patched("loader_good", c->plugins, "sbio-backend-loader_arm.so", 18, aarch64, 2);
  write_patched("loader_good", c->plugins, "sbio-backend-loader_elf32.so", 4, class32, 1);
  write_patched("loader_good", c->plugins, "sbio-backend-loader_msb.so", 5, bigendian, 1);
  static const char empty[] = "";
  char path[PATH_MAX];
  loader_join(path, c->plugins, "sbio-backend-loader_empty.so");
  assert_int_equal(loader_write_file(path, empty, 0, 0644), 0);
  scan_one(c, c->plugins);
  expect_entry(c, c->plugins, "sbio-backend-loader_arm.so", SBIO_BACKEND_REFUSED, "machine 183");
  struct sbio_backend_info *b32 =
      expect_entry(c, c->plugins, "sbio-backend-loader_elf32.so", SBIO_BACKEND_REFUSED, "class");
  struct sbio_backend_info *msb =
      expect_entry(c, c->plugins, "sbio-backend-loader_msb.so", SBIO_BACKEND_REFUSED, "data encoding");
  assert_false(b32->have_meta);
  assert_false(msb->have_meta);
  struct sbio_backend_info *empty_file = entry_of(c, c->plugins, "loader_empty");
  assert_int_equal(empty_file->status, SBIO_BACKEND_REFUSED);
  assert_true(empty_file->reason[0] != '\0');
}

/* Where to cut a copy of `data` inside its loadable segments: the middle of
 * the file range of its last PT_LOAD (past the note, which sits in the
 * first one, so the metadata still reads). */
static size_t cut_inside_last_load(const unsigned char *data, size_t len) {
  Elf64_Ehdr eh;
  assert_true(len >= sizeof eh);
  memcpy(&eh, data, sizeof eh);
  uint64_t start = 0, size = 0;
  for (unsigned i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    assert_true(eh.e_phoff + (i + 1) * sizeof ph <= len);
    memcpy(&ph, data + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && ph.p_filesz > 0 && ph.p_offset >= start) start = ph.p_offset, size = ph.p_filesz;
  }
  assert_true(size > 1 && start + size <= len);
  return (size_t)(start + size / 2);
}

/* A copy of `fixture` cut inside its loadable segments, as dir/fname. */
static void write_truncated(const char *fixture, const char *dir, const char *fname) {
  char src[PATH_MAX], dst[PATH_MAX], srcname[128];
  loader_join(src, LOADER_FIXTURE_DIR, fname_of(fixture, srcname));
  size_t len = 0;
  unsigned char *data = loader_read_file(src, &len);
  assert_non_null(data);
  loader_join(dst, dir, fname);
  assert_int_equal(loader_write_file(dst, data, cut_inside_last_load(data, len), 0644), 0);
  free(data);
}

/* Issue 10, finding 4: a file cut inside its loadable segments (a half
 * written upgrade) was listed available, and dlopen died of SIGBUS mapping
 * it. The scan refuses it; and should such a file reach the loader anyway
 * (here: the entry is made to look as if it had been scanned that way),
 * the loader refuses it before dlopen. */
static void test_truncated_file_refused_before_dlopen(void **state) {
  ctx *c = *state;
  write_truncated("loader_marker", c->plugins, "sbio-backend-loader_marker.so");
  scan_one(c, c->plugins);
  struct sbio_backend_info *b = expect_entry(c, c->plugins, "sbio-backend-loader_marker.so", SBIO_BACKEND_REFUSED,
                                             "reaches past the end of the file");
  assert_non_null(strstr(b->reason, "ELF segment "));
  assert_non_null(strstr(b->reason, "(PT_LOAD)"));
  assert_non_null(strstr(b->reason, "truncated"));
  assert_int_equal(load(c, b), SBIO_E_BACKEND_UNAVAILABLE);
  assert_false(loader_exists(c->marker));

  /* The loader's own check: a good file, scanned, then cut; the recorded
   * hash is made the cut file's, so only the ELF check stands between it
   * and dlopen. */
  reset(c);
  copy("loader_marker", c->plugins, NULL, 0644);
  scan_one(c, c->plugins);
  b = expect_entry(c, c->plugins, "sbio-backend-loader_marker.so", SBIO_BACKEND_AVAILABLE, "");
  write_truncated("loader_marker", c->plugins, "sbio-backend-loader_marker.so");
  rerecord(b);
  expect_load_refused(c, b, "reaches past the end of the file");
  assert_false(loader_exists(c->marker)); /* none of its code ran */
}

static void test_special_files_refused(void **state) {
  ctx *c = *state;
  char path[PATH_MAX], dir[PATH_MAX];
  loader_join(path, c->plugins, "sbio-backend-loader_fifo.so");
  assert_int_equal(mkfifo(path, 0644), 0);
  assert_int_equal(chmod(path, 0644), 0);
  assert_int_equal(loader_mkdir(c->plugins, "sbio-backend-loader_dir.so", 0755, dir), 0);
  loader_join(path, c->plugins, "sbio-backend-loader_dangling.so");
  assert_int_equal(symlink("/nonexistent/sbio-backend-loader_dangling.so", path), 0);
  alarm(60); /* opening a FIFO for reading must not block the scan */
  scan_one(c, c->plugins);
  alarm(0);
  expect_entry(c, c->plugins, "sbio-backend-loader_fifo.so", SBIO_BACKEND_REFUSED, "is not a regular file");
  expect_entry(c, c->plugins, "sbio-backend-loader_dir.so", SBIO_BACKEND_REFUSED, "is not a regular file");
  expect_entry(c, c->plugins, "sbio-backend-loader_dangling.so", SBIO_BACKEND_REFUSED, "cannot resolve");
}

/* A candidate that is not a regular file is refused without being opened:
 * open(2) alone has effects on a FIFO (it releases a writer waiting for a
 * reader) and on devices (a serial line raises DTR, a tape rewinds, a
 * watchdog is armed). inotify reports every open of the FIFO, by a symlink
 * or by its own name, at scan and at load. */
static void test_special_files_not_opened(void **state) {
  ctx *c = *state;
  char fifo[PATH_MAX], store[PATH_MAX], link_path[PATH_MAX];
  loader_join(fifo, c->plugins, "sbio-backend-loader_fifo.so");
  assert_int_equal(mkfifo(fifo, 0644), 0);
  assert_int_equal(chmod(fifo, 0644), 0);
  assert_int_equal(loader_mkdir(c->tmp, "fifo-store", 0755, store), 0);
  char target[PATH_MAX];
  loader_join(target, store, "pipe");
  assert_int_equal(mkfifo(target, 0644), 0);
  assert_int_equal(chmod(target, 0644), 0);
  loader_join(link_path, c->plugins, "sbio-backend-loader_fifolink.so");
  assert_int_equal(symlink(target, link_path), 0);

  int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  assert_true(in >= 0);
  assert_true(inotify_add_watch(in, fifo, IN_OPEN) >= 0);
  assert_true(inotify_add_watch(in, target, IN_OPEN) >= 0);
  alarm(60); /* should it open one after all, it must not block */
  scan_one(c, c->plugins);
  alarm(0);
  expect_entry(c, c->plugins, "sbio-backend-loader_fifo.so", SBIO_BACKEND_REFUSED, "is not a regular file");
  expect_entry(c, c->plugins, "sbio-backend-loader_fifolink.so", SBIO_BACKEND_REFUSED, "is not a regular file");
  char events[4096];
  ssize_t n = read(in, events, sizeof events);
  int saved = errno;
  close(in);
  if (n > 0) fail_msg("the scan opened a FIFO named like a backend (%zd bytes of inotify events)", n);
  assert_int_equal(saved, EAGAIN);
}

static void test_symlinks_checked_on_both_sides(void **state) {
  ctx *c = *state;
  char target_dir[PATH_MAX], link_path[PATH_MAX], target[PATH_MAX], want[PATH_MAX + 128];
  assert_int_equal(loader_mkdir(c->tmp, "store", 0755, target_dir), 0);
  copy("loader_good", target_dir, "good-1.0.so", 0644);
  loader_join(target, target_dir, "good-1.0.so");
  loader_join(link_path, c->plugins, "sbio-backend-loader_good.so");
  assert_int_equal(symlink("../store/good-1.0.so", link_path), 0);

  scan_one(c, c->plugins);
  struct sbio_backend_info *b = expect_entry(c, c->plugins, "sbio-backend-loader_good.so", SBIO_BACKEND_AVAILABLE, "");
  assert_string_equal(b->name, "loader_good"); /* from the link's name */
  expect_loads(c, b);

  /* The target's directory is what others could write to. */
  reset(c);
  assert_int_equal(chmod(target_dir, 0777), 0);
  scan_one(c, c->plugins);
  snprintf(want, sizeof want, "directory %s is writable by group or others (mode 0777)", target_dir);
  expect_entry(c, c->plugins, "sbio-backend-loader_good.so", SBIO_BACKEND_REFUSED, want);

  /* And the target file itself. */
  reset(c);
  assert_int_equal(chmod(target_dir, 0755), 0);
  assert_int_equal(chmod(target, 0666), 0);
  scan_one(c, c->plugins);
  snprintf(want, sizeof want, "file %s is writable by group or others (mode 0666)", target);
  expect_entry(c, c->plugins, "sbio-backend-loader_good.so", SBIO_BACKEND_REFUSED, want);
}

/* A directory reached through a symlink that lives in a writable
 * directory: the link could be pointed anywhere, so the resolved directory
 * being safe is not enough. Also a chain of two links and a loop. */
static void test_symlinked_directories(void **state) {
  ctx *c = *state;
  char open_dir[PATH_MAX], hop_dir[PATH_MAX], link1[PATH_MAX], link2[PATH_MAX], want[PATH_MAX + 128];
  copy("loader_good", c->plugins, NULL, 0644);
  assert_int_equal(loader_mkdir(c->tmp, "open", 0777, open_dir), 0);
  assert_int_equal(loader_mkdir(c->tmp, "hop", 0755, hop_dir), 0);
  loader_join(link1, open_dir, "link");
  assert_int_equal(symlink(c->plugins, link1), 0);
  /* hop/link -> open/link -> plugins: the unsafe directory is in the middle. */
  loader_join(link2, hop_dir, "link");
  assert_int_equal(symlink("../open/link", link2), 0);
  const char *dirs[] = {link2};
  scan_n(c, dirs, 1);
  assert_int_equal(c->reg.n, 1);
  snprintf(want, sizeof want, "directory %s is writable by group or others (mode 0777)", open_dir);
  expect_entry(c, link2, "sbio-backend-loader_good.so", SBIO_BACKEND_REFUSED, want);

  /* Once the middle directory is safe, the same chain is accepted. */
  reset(c);
  assert_int_equal(chmod(open_dir, 0755), 0);
  scan_n(c, dirs, 1);
  expect_loads(c, expect_entry(c, link2, "sbio-backend-loader_good.so", SBIO_BACKEND_AVAILABLE, ""));

  /* A symlink loop named like a backend. */
  reset(c);
  char loop_a[PATH_MAX], loop_b[PATH_MAX];
  loader_join(loop_a, c->plugins, "sbio-backend-loader_loop.so");
  loader_join(loop_b, c->plugins, "loop-b");
  assert_int_equal(symlink("loop-b", loop_a), 0);
  assert_int_equal(symlink("sbio-backend-loader_loop.so", loop_b), 0);
  scan_one(c, c->plugins);
  expect_entry(c, c->plugins, "sbio-backend-loader_loop.so", SBIO_BACKEND_REFUSED, "too many levels of symbolic links");
}

/* ---------------------------------------------------- search path */

static void test_shadowing(void **state) {
  ctx *c = *state;
  char first[PATH_MAX], second[PATH_MAX], want[PATH_MAX + 64];
  assert_int_equal(loader_mkdir(c->tmp, "first", 0755, first), 0);
  assert_int_equal(loader_mkdir(c->tmp, "second", 0755, second), 0);
  copy("loader_good", first, NULL, 0644);
  copy("loader_good", second, NULL, 0644);
  copy("loader_marker", second, NULL, 0644);
  const char *dirs[] = {first, second};
  scan_n(c, dirs, 2);
  assert_int_equal(c->reg.n, 3);
  struct sbio_backend_info *winner = expect_entry(c, first, "sbio-backend-loader_good.so", SBIO_BACKEND_AVAILABLE, "");
  snprintf(want, sizeof want, "shadowed by %s/sbio-backend-loader_good.so", first);
  struct sbio_backend_info *loser = expect_entry(c, second, "sbio-backend-loader_good.so", SBIO_BACKEND_SHADOWED, want);
  expect_entry(c, second, "sbio-backend-loader_marker.so", SBIO_BACKEND_AVAILABLE, "");
  assert_ptr_equal(sbio__registry_find(&c->reg, "loader_good"), winner);
  assert_ptr_equal(sbio__registry_find(&c->reg, "loader_marker"), entry_of(c, second, "loader_marker"));
  assert_null(sbio__registry_find(&c->reg, "loader_nothing"));
  assert_int_equal(load(c, loser), SBIO_E_BACKEND_UNAVAILABLE);
  assert_non_null(strstr(sbio_error_message(c->err), "shadowed by"));
  assert_null(loser->dl);

  /* The first file wins even when it is refused: a refusal never falls
   * through to another file of the same name. */
  reset(c);
  char path[PATH_MAX];
  loader_join(path, first, "sbio-backend-loader_good.so");
  assert_int_equal(chmod(path, 0666), 0);
  scan_n(c, dirs, 2);
  winner = expect_entry(c, first, "sbio-backend-loader_good.so", SBIO_BACKEND_REFUSED, "writable");
  expect_entry(c, second, "sbio-backend-loader_good.so", SBIO_BACKEND_SHADOWED, want);
  assert_ptr_equal(sbio__registry_find(&c->reg, "loader_good"), winner);
}

static void test_same_directory_scanned_once(void **state) {
  ctx *c = *state;
  copy("loader_good", c->plugins, NULL, 0644);
  char trailing[PATH_MAX + 2], via_link[PATH_MAX];
  snprintf(trailing, sizeof trailing, "%s/", c->plugins);
  loader_join(via_link, c->tmp, "alias");
  assert_int_equal(symlink(c->plugins, via_link), 0);
  const char *dirs[] = {c->plugins, trailing, via_link, c->plugins};
  scan_n(c, dirs, 4);
  assert_int_equal(c->reg.n, 1);
  expect_entry(c, c->plugins, "sbio-backend-loader_good.so", SBIO_BACKEND_AVAILABLE, "");
  /* A second scan call appends; the same file is not listed again. */
  scan_one(c, c->plugins);
  assert_int_equal(c->reg.n, 1);
  /* But a new directory's same-named file is shadowed by the first scan's. */
  char other[PATH_MAX];
  assert_int_equal(loader_mkdir(c->tmp, "other", 0755, other), 0);
  copy("loader_good", other, NULL, 0644);
  scan_one(c, other);
  assert_int_equal(c->reg.n, 2);
  expect_entry(c, other, "sbio-backend-loader_good.so", SBIO_BACKEND_SHADOWED, "shadowed by");
}

static void test_relative_and_missing_dirs_skipped(void **state) {
  ctx *c = *state;
  char sub[PATH_MAX], cwd[PATH_MAX];
  copy("loader_good", c->plugins, NULL, 0644);
  assert_int_equal(loader_mkdir(c->plugins, "sub", 0755, sub), 0);
  copy("loader_marker", sub, NULL, 0644);
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(c->plugins), 0);
  const char *dirs[] = {".", "sub", "", NULL, "./", "plugins", "/nonexistent/sbio/backends"};
  sbio_code rc = sbio__registry_scan(&c->reg, dirs, sizeof dirs / sizeof dirs[0], &c->cfg, &c->policy, c->err);
  assert_int_equal(chdir(cwd), 0);
  assert_int_equal(rc, SBIO_OK);
  assert_int_equal(c->reg.n, 0); /* never the current directory, never relative */
  /* No directories at all is fine too. */
  assert_int_equal(sbio__registry_scan(&c->reg, NULL, 0, &c->cfg, &c->policy, c->err), SBIO_OK);
  assert_int_equal(c->reg.n, 0);
}

static void test_non_candidate_files_ignored(void **state) {
  ctx *c = *state;
  static const char *const ignored[] = {
      "sbio-backend-Bad.so",
      "libfoo.so",
      "sbio-backend-.so",
      "sbio-backend-loader_good.so.1",
      "sbio-backend-loader_good.so~",
      "sbio-backend-loader_good.SO",
      "sbio-backend-1abc.so",
      "sbio-backend-a-b.so",
      "xsbio-backend-loader_good.so",
      ".sbio-backend-loader_good.so",
      "sbio-backend-abcdefghijabcdefghijabcdefghijab.so", /* 32 characters: one too many */
      "sbio-backend-loader_good",
  };
  for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++) copy("loader_good", c->plugins, ignored[i], 0644);
  /* The longest valid name (31 characters) is a candidate. */
  copy("loader_good", c->plugins, "sbio-backend-abcdefghijabcdefghijabcdefghija.so", 0644);
  scan_one(c, c->plugins);
  assert_int_equal(c->reg.n, 1);
  expect_entry(c, c->plugins, "sbio-backend-abcdefghijabcdefghijabcdefghija.so", SBIO_BACKEND_REFUSED,
               "metadata names backend \"loader_good\"");
}

/* ---------------------------------------------------- configuration */

static void test_disabled_backend_never_loaded(void **state) {
  ctx *c = *state;
  copy("loader_marker", c->plugins, NULL, 0644);
  copy("loader_good", c->plugins, NULL, 0644);
  configure(c, "backends:\n  loader_marker:\n    enabled: false\n");
  scan_one(c, c->plugins);
  struct sbio_backend_info *b =
      expect_entry(c, c->plugins, "sbio-backend-loader_marker.so", SBIO_BACKEND_DISABLED, "disabled by configuration");
  assert_false(b->enabled);
  assert_true(b->have_meta); /* still listed with its metadata */
  assert_string_equal(b->meta.summary, "loader battery fixture");
  assert_int_equal(b->tier, SBIO_TIER_CONTAINER);
  assert_false(loader_exists(c->marker));

  assert_int_equal(load(c, b), SBIO_E_BACKEND_UNAVAILABLE);
  assert_string_equal(sbio_error_message(c->err), "backend loader_marker is disabled by configuration");
  assert_non_null(strstr(sbio_error_hint(c->err), "backends: {loader_marker: {enabled: true}}"));
  assert_int_equal(b->status, SBIO_BACKEND_DISABLED);
  assert_null(b->dl);
  assert_false(loader_exists(c->marker));
  expect_loads(c, entry_of(c, c->plugins, "loader_good"));
  assert_false(loader_exists(c->marker));

  /* The same file, enabled: the marker appears on load and only then, so
   * the absence above means something. */
  reset(c);
  configure(c, "backends:\n  loader_marker:\n    enabled: true\n");
  scan_one(c, c->plugins);
  b = expect_entry(c, c->plugins, "sbio-backend-loader_marker.so", SBIO_BACKEND_AVAILABLE, "");
  assert_false(loader_exists(c->marker));
  expect_loads(c, b);
  assert_true(loader_exists(c->marker));
}

static void test_backends_default_disabled(void **state) {
  ctx *c = *state;
  copy("loader_marker", c->plugins, NULL, 0644);
  copy("loader_good", c->plugins, NULL, 0644);
  configure(c, "backends_default: disabled\nbackends:\n  loader_good:\n    enabled: true\n");
  scan_one(c, c->plugins);
  struct sbio_backend_info *m =
      expect_entry(c, c->plugins, "sbio-backend-loader_marker.so", SBIO_BACKEND_DISABLED, "disabled by configuration");
  expect_loads(c, expect_entry(c, c->plugins, "sbio-backend-loader_good.so", SBIO_BACKEND_AVAILABLE, ""));
  assert_int_equal(load(c, m), SBIO_E_BACKEND_UNAVAILABLE);
  assert_false(loader_exists(c->marker));
}

static void test_sha256_pin(void **state) {
  ctx *c = *state;
  copy("loader_good", c->plugins, NULL, 0644);
  char path[PATH_MAX], hex[65], yaml[256], want[256];
  loader_join(path, c->plugins, "sbio-backend-loader_good.so");
  file_sha256(path, hex);
  static const char zeros[] = "0000000000000000000000000000000000000000000000000000000000000000";
  snprintf(yaml, sizeof yaml, "backends:\n  loader_good:\n    sha256: \"%s\"\n", zeros);
  configure(c, yaml);
  scan_one(c, c->plugins);
  snprintf(want, sizeof want, "sha256 pin mismatch: expected %s, file has %s", zeros, hex);
  struct sbio_backend_info *b = expect_entry(c, c->plugins, "sbio-backend-loader_good.so", SBIO_BACKEND_REFUSED, want);
  assert_int_equal(b->tier, SBIO_TIER_UNKNOWN);
  assert_int_equal(load(c, b), SBIO_E_BACKEND_UNAVAILABLE);
  assert_null(b->dl);

  reset(c);
  snprintf(yaml, sizeof yaml, "backends:\n  loader_good:\n    sha256: \"%s\"\n", hex);
  configure(c, yaml);
  scan_one(c, c->plugins);
  b = expect_entry(c, c->plugins, "sbio-backend-loader_good.so", SBIO_BACKEND_AVAILABLE, "");
  assert_non_null(b->cfg);
  /* A pin is checked at scan, so the scan hashed the file. */
  assert_true(atomic_load(&b->sha256_known));
  assert_string_equal(b->sha256, hex);
  expect_loads(c, b);
}

static void test_expect_tier_pin(void **state) {
  ctx *c = *state;
  copy("loader_good", c->plugins, NULL, 0644);
  copy("loader_unverified", c->plugins, NULL, 0644);
  copy("loader_http", c->plugins, NULL, 0644);
  copy("loader_nomech", c->plugins, NULL, 0644);
  configure(c, "backends:\n"
               "  loader_good:\n    expect_tier: gvisor\n"
               "  loader_unverified:\n    expect_tier: container\n"
               "  loader_http:\n    expect_tier: container\n"
               "  loader_nomech:\n    expect_tier: unknown\n");
  scan_one(c, c->plugins);
  struct sbio_backend_info *b = expect_entry(c, c->plugins, "sbio-backend-loader_good.so", SBIO_BACKEND_REFUSED,
                                             "expected tier GVISOR, backend provides CONTAINER");
  assert_int_equal(b->tier, SBIO_TIER_UNKNOWN);
  assert_int_equal(b->claimed_tier, SBIO_TIER_CONTAINER);
  /* A pin can never raise a tier: an UNKNOWN backend pinned to CONTAINER is refused. */
  expect_entry(c, c->plugins, "sbio-backend-loader_unverified.so", SBIO_BACKEND_REFUSED,
               "expected tier CONTAINER, backend provides UNKNOWN");
  /* Claimed CONTAINER over http counts as UNKNOWN, which the pin exposes. */
  expect_entry(c, c->plugins, "sbio-backend-loader_http.so", SBIO_BACKEND_REFUSED,
               "expected tier CONTAINER, backend provides UNKNOWN");
  /* A pin of unknown matches only an UNKNOWN backend. */
  expect_entry(c, c->plugins, "sbio-backend-loader_nomech.so", SBIO_BACKEND_AVAILABLE, "");

  reset(c);
  configure(c, "backends:\n"
               "  loader_good:\n    expect_tier: container\n"
               "  loader_unverified:\n    expect_tier: unknown\n"
               "  loader_nomech:\n    expect_tier: microvm\n");
  scan_one(c, c->plugins);
  expect_loads(c, expect_entry(c, c->plugins, "sbio-backend-loader_good.so", SBIO_BACKEND_AVAILABLE, ""));
  expect_entry(c, c->plugins, "sbio-backend-loader_unverified.so", SBIO_BACKEND_AVAILABLE, "");
  expect_entry(c, c->plugins, "sbio-backend-loader_nomech.so", SBIO_BACKEND_REFUSED,
               "expected tier MICROVM, backend provides UNKNOWN");

  /* Equality, not "at least": a stronger tier than pinned is a change too. */
  reset(c);
  configure(c, "backends:\n  loader_good:\n    expect_tier: microvm\n");
  scan_one(c, c->plugins);
  expect_entry(c, c->plugins, "sbio-backend-loader_good.so", SBIO_BACKEND_REFUSED,
               "expected tier MICROVM, backend provides CONTAINER");
}

static void test_stale_policy_unknown(void **state) {
  ctx *c = *state;
  copy("loader_stale", c->plugins, NULL, 0644);
  c->policy.stale_is_unknown = 1;
  scan_one(c, c->plugins);
  struct sbio_backend_info *b = expect_entry(c, c->plugins, "sbio-backend-loader_stale.so", SBIO_BACKEND_AVAILABLE, "");
  assert_int_equal(b->tier, SBIO_TIER_UNKNOWN);
  assert_int_equal(b->claimed_tier, SBIO_TIER_CONTAINER);
  assert_true(b->meta.mechs[0].stale);
}

/* ---------------------------------------------------- concurrency */

typedef struct worker {
  const char *dir;
  const sbio__trust_policy *policy;
  int failures;
  char why[64 + sizeof(((struct sbio_backend_info *)0)->reason)];
} worker;

/* Each thread has its own registry over the same files: libltdl's global
 * error must not leak from one thread's failure into another's reason. */
static void *worker_run(void *arg) {
  worker *w = arg;
  for (int round = 0; round < 25 && !w->failures; round++) {
    sbio__registry reg;
    sbio__config cfg;
    sbio__config_init(&cfg);
    sbio__registry_init(&reg);
    const char *dirs[] = {w->dir};
    if (sbio__registry_scan(&reg, dirs, 1, &cfg, w->policy, NULL) != SBIO_OK || reg.n != 3) {
      snprintf(w->why, sizeof w->why, "scan failed");
      w->failures++;
    }
    for (size_t i = 0; i < reg.n && !w->failures; i++) {
      struct sbio_backend_info *b = reg.items[i];
      pthread_mutex_lock(&reg.lock);
      sbio_code rc = sbio__loader_load(b, NULL);
      pthread_mutex_unlock(&reg.lock);
      int ok;
      if (strcmp(b->name, "loader_good") == 0)
        ok = rc == SBIO_OK;
      else if (strcmp(b->name, "loader_missingdep") == 0)
        ok = rc != SBIO_OK && strstr(b->reason, "dlopen failed: ") && strstr(b->reason, "libloader_missing_dep");
      else
        ok = rc != SBIO_OK && strstr(b->reason, "entry symbol sbio_backend_entry_v1 not found: ") &&
             !strstr(b->reason, "libloader_missing_dep");
      if (!ok) {
        snprintf(w->why, sizeof w->why, "%s: %s", b->name, b->reason);
        w->failures++;
      }
    }
    sbio__registry_free(&reg);
    sbio__config_free(&cfg);
  }
  return NULL;
}

static void test_concurrent_loads(void **state) {
  ctx *c = *state;
  copy("loader_good", c->plugins, NULL, 0644);
  copy("loader_missingdep", c->plugins, NULL, 0644);
  copy("loader_noentry", c->plugins, NULL, 0644);
  enum { N = 4 };
  pthread_t threads[N];
  worker workers[N];
  for (int i = 0; i < N; i++) {
    workers[i] = (worker){.dir = c->plugins, .policy = &c->policy};
    assert_int_equal(pthread_create(&threads[i], NULL, worker_run, &workers[i]), 0);
  }
  for (int i = 0; i < N; i++) assert_int_equal(pthread_join(threads[i], NULL), 0);
  for (int i = 0; i < N; i++) {
    if (workers[i].failures) print_error("worker %d: %s\n", i, workers[i].why);
    assert_int_equal(workers[i].failures, 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_battery_in_one_scan, setup, teardown),
      cmocka_unit_test_setup_teardown(test_load_time_refusals, setup, teardown),
      cmocka_unit_test_setup_teardown(test_file_changed_before_load, setup, teardown),
      cmocka_unit_test_setup_teardown(test_writable_file_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_foreign_owner_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_writable_directory_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_writable_ancestor_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sticky_directory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_foreign_elf_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_truncated_file_refused_before_dlopen, setup, teardown),
      cmocka_unit_test_setup_teardown(test_special_files_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_special_files_not_opened, setup, teardown),
      cmocka_unit_test_setup_teardown(test_symlinks_checked_on_both_sides, setup, teardown),
      cmocka_unit_test_setup_teardown(test_symlinked_directories, setup, teardown),
      cmocka_unit_test_setup_teardown(test_shadowing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_same_directory_scanned_once, setup, teardown),
      cmocka_unit_test_setup_teardown(test_relative_and_missing_dirs_skipped, setup, teardown),
      cmocka_unit_test_setup_teardown(test_non_candidate_files_ignored, setup, teardown),
      cmocka_unit_test_setup_teardown(test_disabled_backend_never_loaded, setup, teardown),
      cmocka_unit_test_setup_teardown(test_backends_default_disabled, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sha256_pin, setup, teardown),
      cmocka_unit_test_setup_teardown(test_expect_tier_pin, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stale_policy_unknown, setup, teardown),
      cmocka_unit_test_setup_teardown(test_concurrent_loads, setup, teardown),
  };
  return cmocka_run_group_tests_name("loader", tests, NULL, NULL);
}
