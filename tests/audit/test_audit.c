/* SPDX-License-Identifier: MIT */
/* Audit events under real conditions, through the public API on the fake
 * backend: every event the library emits validates against the published
 * JSON Schema (docs/audit.schema.json) in strict mode; file lines stay
 * whole with concurrent writers (threads, two hosts, processes); a
 * removed file, a removed directory, a full disk and an unwritable stderr
 * are handled per audit.on_failure; and the operation's own error wins
 * over a sink failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "json_schema.h"
#include "sbio_test.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sandboxio/sandboxio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SECRET "tok-very-secret-9931"
#define NOW_2027_06_01 1811808000LL /* the fake's 2026-11-29 source is then stale */

static char scratch[4096];
static cJSON *schema;

/* ------------------------------------------------------------ helpers */

/* Warnings the library logged (tests/support: sbt_capture_warnings). */
static sbt_lines logged;

/* Nothing was logged; shows what was, if anything. */
static void assert_nothing_logged(void) {
  char *all = sbt_lines_join(&logged);
  assert_string_equal(all, "");
  free(all);
}

static char *read_file(const char *path, size_t *len_out) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (len_out) *len_out = 0;
    return strdup("");
  }
  size_t cap = 1 << 16, n = 0, r;
  char *buf = malloc(cap);
  assert_non_null(buf);
  while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += r;
    if (cap - n - 1 == 0) {
      cap *= 2;
      buf = realloc(buf, cap);
      assert_non_null(buf);
    }
  }
  fclose(f);
  buf[n] = '\0';
  if (len_out) *len_out = n;
  return buf;
}

static int group_setup(void **state) {
  (void)state;
  snprintf(scratch, sizeof scratch, "%s/audit-XXXXXX", SBIO_TEST_BINARY_DIR);
  if (!mkdtemp(scratch)) return -1;
  char *text = read_file(SBIO_TEST_SOURCE_DIR "/../docs/audit.schema.json", NULL);
  schema = cJSON_Parse(text);
  free(text);
  return schema ? 0 : -1;
}

static int group_teardown(void **state) {
  (void)state;
  cJSON_Delete(schema);
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
  if (!getenv("SBIO_TEST_KEEP") && system(cmd) != 0) fprintf(stderr, "could not remove %s\n", scratch);
  return 0;
}

static int reset(void **state) {
  (void)state;
  sbt_lines_free(&logged);
  return 0;
}

/* A fresh path in the scratch directory; the pid keeps forked children's
 * files apart (they share the counter's value at fork). */
static char *path_in(const char *name) {
  static int counter;
  char *p = malloc(4200);
  assert_non_null(p);
  snprintf(p, 4200, "%s/%d-%d-%s", scratch, (int)getpid(), counter++, name);
  return p;
}

typedef struct {
  sbio_audit_fn fn;
  void *user;
  int64_t now;
} host_extra;

/* A host reading exactly this config text. */
static sbio_host *open_host_with(const char *yaml, const host_extra *x, sbio_error *e) {
  char *cfg = path_in("config.yaml");
  FILE *f = fopen(cfg, "w");
  assert_non_null(f);
  fputs(yaml, f);
  fclose(f);
  sbio_host_options *o = sbio_host_options_new();
  assert_int_equal(sbio_host_options_set_config_file(o, cfg), SBIO_OK);
  sbt_capture_warnings(o, &logged);
  if (x && x->fn) assert_int_equal(sbio_host_options_add_audit_callback(o, x->fn, x->user), SBIO_OK);
  if (x && x->now) assert_int_equal(sbio_host_options_set_now(o, x->now), SBIO_OK);
  sbio_host *h = NULL;
  sbio_code rc = sbio_host_open(o, &h, e);
  sbio_host_options_free(o);
  free(cfg);
  return rc == SBIO_OK ? h : NULL;
}

static sbio_host *open_host(const char *yaml, const host_extra *x) {
  sbio_error *e = sbio_error_new();
  sbio_host *h = open_host_with(yaml, x, e);
  if (!h) fail_msg("host open: %s", sbio_error_message(e));
  sbio_error_free(e);
  return h;
}

static char *audit_config(const char *path, const char *on_failure, const char *extra) {
  char *yaml = malloc(8192);
  assert_non_null(yaml);
  snprintf(yaml, 8192, "audit:\n  path: %s\n  on_failure: %s\n%s", path, on_failure, extra ? extra : "");
  return yaml;
}

static sbio_sandbox *create(sbio_host *h) {
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_set_label(co, "tenant_id", "tenant-7");
  sbio_create_options_set_label(co, "session_id", "chat-12");
  sbio_create_options_set_secret(co, "API_TOKEN", SECRET);
  sbio_sandbox *sb = NULL;
  sbio_error *e = sbio_error_new();
  sbio_code rc = sbio_sandbox_create(h, "fake://", co, &sb, e);
  if (rc) fail_msg("create: %s", sbio_error_message(e));
  sbio_error_free(e);
  sbio_create_options_free(co);
  return sb;
}

static sbio_code exec_argv(sbio_sandbox *sb, const char *const *argv, sbio_error *e) {
  sbio_exec_result *r = NULL;
  sbio_code rc = sbio_sandbox_exec(sb, argv, NULL, &r, e);
  sbio_exec_result_free(r);
  return rc;
}

/* Splits text into lines (the text is modified); returns the count. */
static size_t split_lines(char *text, char ***lines) {
  size_t n = 0, cap = 64;
  *lines = malloc(cap * sizeof **lines);
  assert_non_null(*lines);
  for (char *p = text, *nl; *p; p = nl + 1) {
    nl = strchr(p, '\n');
    assert_non_null(nl); /* every line ends with a newline */
    *nl = '\0';
    if (n == cap) {
      cap *= 2;
      *lines = realloc(*lines, cap * sizeof **lines);
      assert_non_null(*lines);
    }
    (*lines)[n++] = p;
  }
  return n;
}

/* Validates a line strictly against the schema; returns the parsed event. */
static cJSON *valid_event(const char *line) {
  cJSON *ev = cJSON_Parse(line);
  if (!ev) fail_msg("not JSON: %.300s", line);
  char why[600];
  if (json_schema_validate(schema, ev, 1, why, sizeof why) != 0) fail_msg("%s\nin: %.600s", why, line);
  assert_null(strstr(line, SECRET));
  return ev;
}

static const char *str(const cJSON *ev, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* ----------------------------------------------------- schema coverage */

static const char *const all_events[] = {"backend_refused", "backend_stale", "backend_loaded", "create_requested",
                                         "create_denied",   "created",       "create_failed",  "exec",
                                         "file_read",       "file_write",    "file_list",      "file_mkdir",
                                         "file_remove",     "kill",          "kill_managed",   "connect_requested",
                                         "connect_denied",  "connected",     "connect_failed", NULL};

static void run_every_operation(sbio_host *h) {
  sbio_error *e = sbio_error_new();
  sbio_sandbox *sb = create(h);
  const char *echo[] = {"echo", SECRET, NULL};
  const char *boom[] = {"boom", NULL};
  assert_int_equal(exec_argv(sb, echo, e), SBIO_OK);
  assert_int_equal(exec_argv(sb, boom, e), SBIO_E_EXEC);
  sbio_exec_result *r = NULL;
  assert_int_equal(sbio_sandbox_exec_shell(sb, "echo a; echo b >&2", NULL, &r, e), SBIO_OK);
  sbio_exec_result_free(r);
  assert_int_equal(sbio_file_mkdir(sb, "/work/d", 0, e), SBIO_OK);
  assert_int_equal(sbio_file_write(sb, "/work/d/f", "12345", 5, e), SBIO_OK);
  unsigned char *data;
  size_t len;
  assert_int_equal(sbio_file_read(sb, "/work/d/f", 0, &data, &len, e), SBIO_OK);
  sbio_free(data);
  assert_int_equal(sbio_file_read(sb, "/work/none", 0, &data, &len, e), SBIO_E_PATH_NOT_FOUND);
  sbio_file_list *l = NULL;
  assert_int_equal(sbio_file_list_dir(sb, "/work/d", &l, e), SBIO_OK);
  sbio_file_list_free(l);
  assert_int_equal(sbio_file_remove(sb, "/work/d", e), SBIO_OK);
  /* Connect: admitted, failed (no such sandbox), denied (a tier the fake
   * cannot meet). Closing the connected handle destroys the sandbox. */
  sbio_sandbox *again = NULL;
  assert_int_equal(sbio_sandbox_connect(h, "fake", sbio_sandbox_id(sb), &again, e), SBIO_OK);
  assert_int_equal(sbio_sandbox_connect(h, "fake", "fake-9999", &again, e), SBIO_E_CONNECT);
  sbio_connect_options *cx = sbio_connect_options_new();
  sbio_connect_options_require_isolation(cx, SBIO_TIER_MICROVM);
  sbio_sandbox *refused = NULL;
  assert_int_equal(sbio_sandbox_connect_ex(h, "fake", sbio_sandbox_id(sb), cx, &refused, e), SBIO_E_CONFIG);
  sbio_connect_options_free(cx);
  assert_int_equal(sbio_sandbox_close(again, e), SBIO_OK);
  assert_int_equal(sbio_sandbox_close(sb, e), SBIO_OK);
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_require_isolation(co, SBIO_TIER_MICROVM);
  sbio_sandbox *denied = NULL;
  assert_int_equal(sbio_sandbox_create(h, "fake://", co, &denied, e), SBIO_E_CONFIG);
  sbio_create_options_free(co);
  int killed = -1;
  assert_int_equal(sbio_managed_kill(h, "fake", "fake-9999", &killed, e), SBIO_OK);
  sbio_error_free(e);
}

static void test_real_events_match_schema(void **state) {
  (void)state;
  char *log = path_in("audit.jsonl");
  char *yaml = audit_config(log, "fail",
                            "metadata: {max_age_days: 30}\n"
                            "backends: {fake: {settings: {scripts: [{match: boom, error: exec}]}}}\n");
  host_extra x = {.now = NOW_2027_06_01};
  sbio_host *h = open_host(yaml, &x); /* backend_stale */
  run_every_operation(h);
  sbio_host_close(h);
  free(yaml);
  /* A refused backend, and a create the provider fails. */
  yaml = audit_config(log, "warn", "backends: {fake: {expect_tier: microvm}}\n");
  h = open_host(yaml, NULL);
  sbio_host_close(h);
  free(yaml);
  yaml = audit_config(log, "warn", "backends: {fake: {settings: {simulate: {create_fails: quota exhausted}}}}\n");
  h = open_host(yaml, NULL);
  sbio_sandbox *sb = NULL;
  sbio_error *e = sbio_error_new();
  assert_int_equal(sbio_sandbox_create(h, "fake://", NULL, &sb, e), SBIO_E_CREATE);
  sbio_error_free(e);
  sbio_host_close(h);
  free(yaml);

  char *text = read_file(log, NULL);
  char **lines;
  size_t n = split_lines(text, &lines);
  int seen[sizeof all_events / sizeof *all_events] = {0};
  for (size_t i = 0; i < n; i++) {
    cJSON *ev = valid_event(lines[i]);
    const char *name = str(ev, "event");
    for (size_t k = 0; all_events[k]; k++) seen[k] += !strcmp(name, all_events[k]);
    if (!strcmp(name, "exec") && !strcmp(str(ev, "outcome"), "ok") && cJSON_GetObjectItem(ev, "shell")->valueint == 0) {
      /* Everything an operation on a sandbox names. */
      assert_string_equal(str(ev, "backend"), "fake");
      assert_string_equal(str(ev, "mechanism"), "none");
      assert_string_equal(str(ev, "tier"), "CONTAINER");
      assert_string_equal(str(ev, "claimed_tier"), "CONTAINER");
      assert_non_null(strstr(str(ev, "source_url"), "https://"));
      assert_string_equal(str(ev, "verified_on"), "2026-11-29");
      assert_non_null(str(ev, "sandbox_id"));
      assert_string_equal(str(ev, "tenant_id"), "tenant-7");
      assert_string_equal(str(ev, "session_id"), "chat-12");
      const cJSON *argv = cJSON_GetObjectItem(ev, "argv");
      assert_string_equal(cJSON_GetArrayItem(argv, 1)->valuestring, "***");
      assert_int_equal(cJSON_GetObjectItem(ev, "exit_code")->valueint, 0);
      assert_int_equal(cJSON_GetObjectItem(ev, "bytes_out")->valueint, (int)strlen(SECRET) + 1);
      assert_true(cJSON_IsNull(cJSON_GetObjectItem(ev, "error_code")));
    }
    if (!strcmp(name, "exec") && !strcmp(str(ev, "outcome"), "error")) {
      assert_string_equal(str(ev, "error_code"), "SBX_E1301");
      assert_true(cJSON_IsNull(cJSON_GetObjectItem(ev, "exit_code")));
    }
    if (!strcmp(name, "backend_refused")) {
      assert_string_equal(str(ev, "error_code"), "SBX_E1002");
      assert_non_null(strstr(str(ev, "reason"), "expect_tier"));
    }
    if (!strcmp(name, "create_denied") || !strcmp(name, "connect_denied")) {
      assert_string_equal(str(ev, "required_tier"), "MICROVM");
      assert_true(cJSON_IsArray(cJSON_GetObjectItem(ev, "required_capabilities")));
      /* The mechanism, source and date the refusal's own message cites. */
      const char *error = str(ev, "error");
      assert_non_null(error);
      /* Null on main before the denial carried them. */
      assert_non_null(str(ev, "mechanism"));
      assert_non_null(str(ev, "source_url"));
      assert_non_null(str(ev, "verified_on"));
      assert_string_equal(str(ev, "mechanism"), "none");
      assert_non_null(strstr(error, "mechanism \"none\""));
      assert_string_equal(str(ev, "verified_on"), "2026-11-29");
      assert_non_null(strstr(error, "verified 2026-11-29"));
      assert_non_null(strstr(str(ev, "source_url"), "https://"));
      assert_non_null(strstr(error, str(ev, "source_url")));
      assert_string_equal(str(ev, "tier"), "CONTAINER");
    }
    if (!strcmp(name, "connected")) assert_string_equal(str(ev, "mechanism"), "none");
    if (!strcmp(name, "connect_failed")) assert_string_equal(str(ev, "error_code"), "SBX_E1202");
    if (!strcmp(name, "create_failed")) assert_string_equal(str(ev, "error_code"), "SBX_E1201");
    cJSON_Delete(ev);
  }
  for (size_t k = 0; all_events[k]; k++)
    if (!seen[k]) fail_msg("no %s event was emitted", all_events[k]);
  free(lines);
  free(text);
  free(log);
}

/* The validator itself: it must catch what the tests rely on it for. */
static void test_validator_catches_violations(void **state) {
  (void)state;
  const char *good = "{\"ts\":\"2026-11-29T08:52:34.123Z\",\"event\":\"kill\",\"session\":"
                     "\"0123456789abcdef0123456789abcdef\",\"backend\":\"fake\",\"mechanism\":\"none\",\"tier\":"
                     "\"CONTAINER\",\"claimed_tier\":\"CONTAINER\",\"source_url\":null,\"verified_on\":null,"
                     "\"sandbox_id\":\"fake-0001\",\"tenant_id\":null,\"session_id\":null,\"argv\":null,"
                     "\"exit_code\":null,\"bytes_in\":0,\"bytes_out\":0,\"duration_ms\":1,\"outcome\":\"ok\","
                     "\"error_code\":null,\"error\":null}";
  char why[600];
  cJSON *ev = cJSON_Parse(good);
  assert_int_equal(json_schema_validate(schema, ev, 1, why, sizeof why), 0);
  struct {
    const char *key, *json, *expect;
  } bad[] = {
      {"tier", "\"container\"", "$.tier: value \"container\" is not in the enum"},
      {"bytes_in", "-1", "$.bytes_in: is below the minimum 0"},
      {"duration_ms", "1.5", "$.duration_ms: is number, not integer"},
      {"session", "\"XYZ\"", "does not match"},
      {"error_code", "\"E1\"", "does not match"},
      {"outcome", "\"error\"", "$.error_code: is null, not string"},
      {"sandbox_id", "null", "$.sandbox_id: is null, not string"},
      {"surprise", "1", "$.surprise: is not declared in the schema"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cJSON *copy = cJSON_Duplicate(ev, 1);
    cJSON_DeleteItemFromObject(copy, bad[i].key);
    cJSON_AddItemToObject(copy, bad[i].key, cJSON_Parse(bad[i].json));
    assert_int_equal(json_schema_validate(schema, copy, 1, why, sizeof why), -1);
    if (!strstr(why, bad[i].expect)) fail_msg("%s: got \"%s\"", bad[i].key, why);
    cJSON_Delete(copy);
  }
  cJSON *copy = cJSON_Duplicate(ev, 1);
  cJSON_DeleteItemFromObject(copy, "argv");
  assert_int_equal(json_schema_validate(schema, copy, 1, why, sizeof why), -1);
  assert_non_null(strstr(why, "required property \"argv\" is missing"));
  cJSON_Delete(copy);
  cJSON_Delete(ev);
}

/* ------------------------------------------------------ whole lines */

#define PAYLOAD_MAX 120000

/* argv: "true", a payload of `size` copies of `fill`, "SIZE:FILL" as a
 * tag, so a reader can tell a line was written whole. */
static void exec_payload(sbio_sandbox *sb, size_t size, char fill) {
  char *payload = malloc(size + 1);
  assert_non_null(payload);
  memset(payload, fill, size);
  payload[size] = '\0';
  char tag[64];
  snprintf(tag, sizeof tag, "%zu:%c", size, fill);
  const char *argv[] = {"true", payload, tag, NULL};
  sbio_error *e = sbio_error_new();
  assert_int_equal(exec_argv(sb, argv, e), SBIO_OK);
  sbio_error_free(e);
  free(payload);
}

static void check_payload_lines(const char *log, size_t expect_execs) {
  size_t len;
  char *text = read_file(log, &len);
  assert_true(len > 0 && text[len - 1] == '\n');
  char **lines;
  size_t n = split_lines(text, &lines), execs = 0;
  for (size_t i = 0; i < n; i++) {
    cJSON *ev = cJSON_Parse(lines[i]);
    if (!ev) fail_msg("line %zu is not whole JSON (%zu bytes): %.120s...", i + 1, strlen(lines[i]), lines[i]);
    if (!strcmp(str(ev, "event"), "exec")) {
      const cJSON *argv = cJSON_GetObjectItem(ev, "argv");
      const char *payload = cJSON_GetArrayItem(argv, 1)->valuestring;
      size_t size;
      char fill;
      assert_int_equal(sscanf(cJSON_GetArrayItem(argv, 2)->valuestring, "%zu:%c", &size, &fill), 2);
      assert_int_equal(strlen(payload), size);
      for (size_t k = 0; k < size; k++)
        if (payload[k] != fill) fail_msg("line %zu: byte %zu of the payload is foreign", i + 1, k);
      execs++;
    }
    cJSON_Delete(ev);
  }
  assert_int_equal(execs, expect_execs);
  free(lines);
  free(text);
}

typedef struct {
  sbio_host *h;
  int index;
} writer_arg;

#define WRITERS 6
#define EXECS_PER_WRITER 25

static void *writer(void *arg) {
  writer_arg *w = arg;
  sbio_sandbox *sb = create(w->h);
  for (int i = 0; i < EXECS_PER_WRITER; i++) {
    size_t size = ((size_t)(w->index * 7919 + i * 104729) % PAYLOAD_MAX) + 1;
    exec_payload(sb, size, (char)('a' + (w->index * EXECS_PER_WRITER + i) % 26));
  }
  sbio_sandbox_close(sb, NULL);
  return NULL;
}

/* Threads on one host, and on two hosts (no shared lock): the kernel's
 * O_APPEND write keeps each line whole either way. */
static void test_lines_stay_whole_with_threads(void **state) {
  (void)state;
  char *log = path_in("threads.jsonl");
  char *yaml = audit_config(log, "fail", NULL);
  sbio_host *h1 = open_host(yaml, NULL), *h2 = open_host(yaml, NULL);
  pthread_t t[WRITERS];
  writer_arg args[WRITERS];
  for (int i = 0; i < WRITERS; i++) {
    args[i] = (writer_arg){i % 2 ? h2 : h1, i};
    assert_int_equal(pthread_create(&t[i], NULL, writer, &args[i]), 0);
  }
  for (int i = 0; i < WRITERS; i++) pthread_join(t[i], NULL);
  sbio_host_close(h1);
  sbio_host_close(h2);
  check_payload_lines(log, WRITERS * EXECS_PER_WRITER);
  assert_nothing_logged();
  free(yaml);
  free(log);
}

#define PROCESSES 3

static void test_lines_stay_whole_with_processes(void **state) {
  (void)state;
  char *log = path_in("processes.jsonl");
  char *yaml = audit_config(log, "fail", NULL);
  pid_t pids[PROCESSES];
  for (int p = 0; p < PROCESSES; p++) {
    pids[p] = fork();
    assert_true(pids[p] >= 0);
    if (pids[p] == 0) {
      sbio_host *h = open_host(yaml, NULL);
      writer_arg w = {h, p};
      writer(&w);
      sbio_host_close(h);
      _exit(0);
    }
  }
  sbio_host *h = open_host(yaml, NULL);
  writer_arg w = {h, PROCESSES};
  writer(&w);
  sbio_host_close(h);
  for (int p = 0; p < PROCESSES; p++) {
    int status;
    assert_int_equal(waitpid(pids[p], &status, 0), pids[p]);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  check_payload_lines(log, (PROCESSES + 1) * EXECS_PER_WRITER);
  free(yaml);
  free(log);
}

/* ----------------------------------------------------- sink failures */

static size_t count_lines(const char *path) {
  char *text = read_file(path, NULL);
  size_t n = 0;
  for (char *p = text; *p; p++) n += *p == '\n';
  free(text);
  return n;
}

/* A rotated or deleted log is recreated with the next event. */
static void test_removed_file_is_recreated(void **state) {
  (void)state;
  char *log = path_in("rotated.jsonl");
  char *yaml = audit_config(log, "fail", NULL);
  sbio_host *h = open_host(yaml, NULL);
  sbio_sandbox *sb = create(h);
  assert_true(count_lines(log) >= 3); /* backend_loaded, create_requested, created */
  assert_int_equal(unlink(log), 0);
  const char *argv[] = {"true", NULL};
  sbio_error *e = sbio_error_new();
  assert_int_equal(exec_argv(sb, argv, e), SBIO_OK);
  assert_int_equal(count_lines(log), 1);
  struct stat st;
  assert_int_equal(stat(log, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600); /* the log is not world-readable */
  sbio_sandbox_close(sb, e);
  sbio_host_close(h);
  assert_int_equal(count_lines(log), 2);
  assert_nothing_logged();
  sbio_error_free(e);
  free(yaml);
  free(log);
}

/* The directory vanished: the file cannot be recreated. */
static void test_removed_directory(void **state) {
  (void)state;
  char *dir = path_in("logdir");
  char log[4300];
  snprintf(log, sizeof log, "%s/audit.jsonl", dir);
  sbio_error *e = sbio_error_new();
  const char *argv[] = {"true", NULL};
  for (int fail_mode = 0; fail_mode < 2; fail_mode++) {
    assert_int_equal(mkdir(dir, 0700), 0);
    char *yaml = audit_config(log, fail_mode ? "fail" : "warn", NULL);
    sbio_host *h = open_host(yaml, NULL);
    sbio_sandbox *sb = create(h);
    assert_int_equal(unlink(log), 0);
    assert_int_equal(rmdir(dir), 0);
    sbt_lines_free(&logged);
    sbio_code rc = exec_argv(sb, argv, e);
    if (fail_mode) {
      /* An operation that cannot be recorded fails. */
      assert_int_equal(rc, SBIO_E_AUDIT_SINK);
      assert_non_null(strstr(sbio_error_message(e), "audit sink failed: cannot open audit file"));
      assert_non_null(strstr(sbio_error_message(e), "No such file or directory"));
      assert_nothing_logged();
    } else {
      assert_int_equal(rc, SBIO_OK);
      assert_true(sbt_lines_contain(&logged, "audit sink failed: cannot open audit file"));
    }
    sbio_sandbox_close(sb, NULL);
    sbio_host_close(h);
    free(yaml);
  }
  sbio_error_free(e);
  free(dir);
}

/* A FIFO as audit.path is refused at once, with or without a reader, and
 * in both modes: before, the open blocked forever with no reader (every
 * operation hung, even under warn) and a reader that stopped reading would
 * have blocked every write. The alarm turns such a hang into a failure. */
static void test_fifo_is_refused(void **state) {
  (void)state;
  char *fifo = path_in("audit.fifo");
  assert_int_equal(mkfifo(fifo, 0600), 0);
  sbio_error *e = sbio_error_new();
  const char *argv[] = {"true", NULL};
  for (int with_reader = 0; with_reader < 2; with_reader++) {
    int reader = with_reader ? open(fifo, O_RDONLY | O_NONBLOCK) : -1;
    assert_true(!with_reader || reader >= 0);
    for (int fail_mode = 0; fail_mode < 2; fail_mode++) {
      alarm(20);
      char *yaml = audit_config(fifo, fail_mode ? "fail" : "warn", NULL);
      sbt_lines_free(&logged);
      sbio_host *h = open_host(yaml, NULL);
      sbio_create_options *co = sbio_create_options_new();
      sbio_sandbox *sb = NULL;
      sbio_code rc = sbio_sandbox_create(h, "fake://", co, &sb, e);
      sbio_create_options_free(co);
      if (fail_mode) {
        assert_int_equal(rc, SBIO_E_AUDIT_SINK);
        assert_non_null(strstr(sbio_error_message(e), fifo));
        assert_non_null(strstr(sbio_error_message(e), "not a regular file"));
        assert_null(sb);
      } else {
        assert_int_equal(rc, SBIO_OK);
        assert_int_equal(exec_argv(sb, argv, e), SBIO_OK);
        assert_true(sbt_lines_contain(&logged, "not a regular file"));
        sbio_sandbox_close(sb, NULL);
      }
      sbio_host_close(h);
      alarm(0);
      free(yaml);
    }
    if (reader >= 0) {
      char buf[256];
      assert_true(read(reader, buf, sizeof buf) <= 0); /* nothing was written into the pipe */
      close(reader);
    }
  }
  unlink(fifo);
  sbio_error_free(e);
  free(fifo);
}

/* A failing create_requested under `fail` means nothing is provisioned. */
static void test_full_disk(void **state) {
  (void)state;
  sbio_error *e = sbio_error_new();
  char *calls = path_in("calls.log"), extra[4400];
  snprintf(extra, sizeof extra, "backends: {fake: {settings: {call_log: %s}}}\n", calls);
  char *yaml = audit_config("/dev/full", "fail", extra);
  sbio_host *h = open_host(yaml, NULL);
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(h, "fake://", NULL, &sb, e), SBIO_E_AUDIT_SINK);
  assert_null(sb);
  assert_non_null(strstr(sbio_error_message(e), "No space left on device"));
  sbio_host_close(h);
  char *log = read_file(calls, NULL);
  assert_null(strstr(log, "create")); /* the backend was never asked */
  free(log);
  free(calls);
  free(yaml);

  /* Cleared before the host opens: past the sources' re-verification window
   * the open itself audits backend_stale, and the sink's one warning (once
   * per sink and host) is about that event instead of the create. */
  yaml = audit_config("/dev/full", "warn", NULL);
  sbt_lines_free(&logged);
  h = open_host(yaml, NULL);
  sb = create(h);
  assert_true(
      sbt_lines_contain(&logged, "audit sink failed: cannot append to audit file /dev/full: No space left on device"));
  sbio_sandbox_close(sb, NULL);
  sbio_host_close(h);
  free(yaml);
  sbio_error_free(e);
}

/* A real file system running out of space mid-line (a 64 KiB tmpfs; needs
 * the right to mount, so it is skipped elsewhere): the cut line stays one
 * line of its own and the next event starts on a fresh line. */
static void test_full_tmpfs_cuts_one_line_only(void **state) {
  (void)state;
  char *mnt = path_in("tmpfs");
  assert_int_equal(mkdir(mnt, 0700), 0);
  if (mount("sbio-audit-test", mnt, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=64k,mode=0700") != 0) {
    rmdir(mnt);
    free(mnt);
    skip(); /* not root, or no CAP_SYS_ADMIN in this container */
  }
  char log[4300], filler[4300];
  snprintf(log, sizeof log, "%s/audit.jsonl", mnt);
  snprintf(filler, sizeof filler, "%s/filler", mnt);
  char *yaml = audit_config(log, "warn", NULL);
  sbio_host *h = open_host(yaml, NULL);
  sbio_sandbox *sb = create(h); /* three short lines in the log's first page */
  size_t before = count_lines(log);
  int fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  assert_true(fd >= 0);
  char block[512];
  memset(block, 'f', sizeof block);
  while (write(fd, block, sizeof block) > 0) {
  }
  assert_int_equal(errno, ENOSPC);
  close(fd);
  sbt_lines_free(&logged);
  exec_payload(sb, 20000, 'x'); /* more than what is left of the page */
  assert_true(sbt_lines_contain(&logged, "audit sink failed: cannot append to audit file"));
  assert_int_equal(unlink(filler), 0);
  exec_payload(sb, 100, 'y');
  sbio_sandbox_close(sb, NULL);
  sbio_host_close(h);

  char *text = read_file(log, NULL);
  char **lines;
  size_t n = split_lines(text, &lines), broken = 0;
  for (size_t i = 0; i < n; i++) {
    cJSON *ev = cJSON_Parse(lines[i]);
    if (!ev) {
      broken++;
      assert_int_equal(i, before); /* the cut line is exactly where the failed event went */
      assert_null(strstr(lines[i], "\"y"));
    }
    cJSON_Delete(ev);
  }
  assert_true(broken <= 1);
  assert_int_equal(n, before + broken + 2); /* + the y exec and the kill */
  assert_non_null(strstr(lines[n - 2], "yyyy"));
  free(lines);
  free(text);
  umount2(mnt, MNT_DETACH);
  rmdir(mnt);
  free(yaml);
  free(mnt);
}

/* ------------------------------------------------------------ stderr */

typedef struct {
  pthread_mutex_t lock;
  char text[1 << 16];
  int fail;
} recorder;

static int record_line(const char *line, void *user) {
  recorder *r = user;
  pthread_mutex_lock(&r->lock);
  size_t used = strlen(r->text);
  snprintf(r->text + used, sizeof r->text - used, "%s\n", line);
  int fail = r->fail;
  pthread_mutex_unlock(&r->lock);
  return fail;
}

/* Runs fn with fd 2 pointing at `target` (a file path), then restores it. */
static void with_stderr(const char *target, void (*fn)(void *), void *arg) {
  fflush(stderr);
  int saved = dup(2);
  int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  assert_true(saved >= 0 && fd >= 0);
  dup2(fd, 2);
  close(fd);
  fn(arg);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
}

typedef struct {
  const char *yaml;
  recorder *rec;
  sbio_code exec_rc;
} stderr_run;

static void stderr_workload(void *arg) {
  stderr_run *s = arg;
  host_extra x = {.fn = record_line, .user = s->rec};
  sbio_host *h = open_host(s->yaml, &x);
  sbio_sandbox *sb = create(h);
  const char *argv[] = {"echo", SECRET, NULL};
  sbio_error *e = sbio_error_new();
  s->exec_rc = exec_argv(sb, argv, e);
  sbio_error_free(e);
  sbio_sandbox_close(sb, NULL);
  sbio_host_close(h);
}

/* stderr carries exactly the lines the callback sees: one JSON object per
 * line, the form journald and syslog collectors take. */
static void test_stderr_sink(void **state) {
  (void)state;
  char *out = path_in("stderr.txt");
  recorder rec = {.lock = PTHREAD_MUTEX_INITIALIZER};
  stderr_run s = {"audit: {stderr: true, on_failure: fail}\n", &rec, -1};
  with_stderr(out, stderr_workload, &s);
  assert_int_equal(s.exec_rc, SBIO_OK);
  char *text = read_file(out, NULL);
  assert_string_equal(text, rec.text);
  char **lines;
  size_t n = split_lines(text, &lines);
  assert_true(n >= 5); /* loaded, requested, created, exec, kill */
  for (size_t i = 0; i < n; i++) cJSON_Delete(valid_event(lines[i]));
  free(lines);
  free(text);
  free(out);
}

static void test_stderr_unwritable(void **state) {
  (void)state;
  recorder rec = {.lock = PTHREAD_MUTEX_INITIALIZER};
  stderr_run s = {"audit: {stderr: true, on_failure: warn}\n", &rec, -1};
  with_stderr("/dev/full", stderr_workload, &s);
  assert_int_equal(s.exec_rc, SBIO_OK);
  assert_true(
      sbt_lines_contain(&logged, "audit sink failed: cannot write audit event to stderr: No space left on device"));
  /* warn: the later sinks still get every event */
  assert_non_null(strstr(rec.text, "\"event\":\"exec\""));
  /* fail: the host opens, but the first create cannot be recorded. */
  sbt_lines_free(&logged);
  fflush(stderr);
  int saved = dup(2), full = open("/dev/full", O_WRONLY);
  dup2(full, 2);
  close(full);
  sbio_host *h = open_host("audit: {stderr: true, on_failure: fail}\n", NULL);
  sbio_sandbox *sb = NULL;
  sbio_error *e = sbio_error_new();
  sbio_code rc = sbio_sandbox_create(h, "fake://", NULL, &sb, e);
  sbio_host_close(h);
  dup2(saved, 2);
  close(saved);
  assert_int_equal(rc, SBIO_E_AUDIT_SINK);
  assert_non_null(strstr(sbio_error_message(e), "cannot write audit event to stderr"));
  sbio_error_free(e);
}

typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int done;
  sbio_code rc;
  char message[512];
} unread_run;

static void *unread_workload(void *arg) {
  unread_run *u = arg;
  sbio_host *h = open_host("audit: {stderr: true, on_failure: fail}\n", NULL);
  sbio_sandbox *sb = NULL;
  sbio_error *e = sbio_error_new();
  sbio_code rc = sbio_sandbox_create(h, "fake://", NULL, &sb, e);
  if (sb) sbio_sandbox_close(sb, NULL);
  sbio_host_close(h);
  pthread_mutex_lock(&u->lock);
  u->rc = rc;
  snprintf(u->message, sizeof u->message, "%s", sbio_error_message(e));
  u->done = 1;
  pthread_cond_signal(&u->cond);
  pthread_mutex_unlock(&u->lock);
  sbio_error_free(e);
  return NULL;
}

/* stderr a pipe whose reader never reads, already full: the sink used to
 * block in write() for ever, with the operation (and audit.lock) behind
 * it. Now it waits at most SBIO_DEADLINE_MARGIN_S, then fails the sink,
 * which under on_failure: fail fails the create. */
static void test_stderr_nobody_reads(void **state) {
  (void)state;
  signal(SIGPIPE, SIG_IGN); /* the clean-up of a hung run closes the reader */
  int p[2];
  assert_int_equal(pipe(p), 0);
  int fl = fcntl(p[1], F_GETFL);
  fcntl(p[1], F_SETFL, fl | O_NONBLOCK);
  char junk[4096];
  memset(junk, 'x', sizeof junk);
  while (write(p[1], junk, sizeof junk) > 0) {
  }
  fcntl(p[1], F_SETFL, fl); /* blocking again, as a program's stderr is */
  fflush(stderr);
  int saved = dup(2);
  dup2(p[1], 2);
  close(p[1]);
  unread_run u = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .rc = -1};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, unread_workload, &u), 0);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 60; /* a liveness bound, far past the 3 s the sink may wait */
  pthread_mutex_lock(&u.lock);
  while (!u.done && pthread_cond_timedwait(&u.cond, &u.lock, &until) == 0) {
  }
  int done = u.done;
  pthread_mutex_unlock(&u.lock);
  dup2(saved, 2);
  close(saved);
  close(p[0]); /* a write still blocked on the pipe now fails with EPIPE */
  pthread_join(t, NULL);
  if (!done) fail_msg("an audit event to a stderr nobody reads did not return within 60 s");
  assert_int_equal(u.rc, SBIO_E_AUDIT_SINK);
  assert_non_null(strstr(u.message, "cannot write audit event to stderr: stderr is not being read"));
}

typedef struct {
  unread_run u;
  const char *yaml;
} locked_run;

static void *locked_workload(void *arg) {
  locked_run *l = arg;
  sbio_host *h = open_host(l->yaml, NULL);
  sbio_sandbox *sb = NULL;
  sbio_error *e = sbio_error_new();
  sbio_code rc = sbio_sandbox_create(h, "fake://", NULL, &sb, e);
  if (sb) sbio_sandbox_close(sb, NULL);
  sbio_host_close(h);
  pthread_mutex_lock(&l->u.lock);
  l->u.rc = rc;
  snprintf(l->u.message, sizeof l->u.message, "%s", sbio_error_message(e));
  l->u.done = 1;
  pthread_cond_signal(&l->u.cond);
  pthread_mutex_unlock(&l->u.lock);
  sbio_error_free(e);
  return NULL;
}

/* Someone holds the audit file's advisory lock and never lets go (any
 * user who may open the file can). The sink used to wait for it in
 * flock() for ever; now it waits a bounded time and appends without it:
 * the operation succeeds and its events are in the file. */
static void test_file_locked_by_another(void **state) {
  (void)state;
  char *path = path_in("locked.log");
  int holder = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
  assert_true(holder >= 0);
  assert_int_equal(flock(holder, LOCK_SH), 0);
  char *yaml = audit_config(path, "fail", NULL);
  locked_run l = {.u = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .rc = -1}, .yaml = yaml};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, locked_workload, &l), 0);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 60; /* a liveness bound, far past the 1 s the sink may wait */
  pthread_mutex_lock(&l.u.lock);
  while (!l.u.done && pthread_cond_timedwait(&l.u.cond, &l.u.lock, &until) == 0) {
  }
  int done = l.u.done;
  pthread_mutex_unlock(&l.u.lock);
  close(holder); /* lets a hung sink go, so the thread can be joined */
  pthread_join(t, NULL);
  if (!done) fail_msg("an audit event to a file whose lock another holds did not return within 60 s");
  if (l.u.rc != SBIO_OK) fail_msg("create: %s", l.u.message);
  char *text = read_file(path, NULL);
  assert_non_null(strstr(text, "\"event\":\"created\""));
  assert_non_null(strstr(text, "\"event\":\"kill\""));
  free(text);
  free(yaml);
  free(path);
}

/* ------------------------------------------------- on_failure rules */

static void test_operation_error_wins(void **state) {
  (void)state;
  recorder rec = {.lock = PTHREAD_MUTEX_INITIALIZER};
  host_extra x = {.fn = record_line, .user = &rec};
  sbio_host *h = open_host("audit: {on_failure: fail}\n"
                           "backends: {fake: {settings: {scripts: [{match: boom, error: exec}]}}}\n",
                           &x);
  sbio_sandbox *sb = create(h);
  sbio_error *e = sbio_error_new();
  const char *ok[] = {"true", NULL}, *boom[] = {"boom", NULL};
  rec.fail = 1;
  /* The sink fails and the operation succeeded: the sink's failure is the error. */
  assert_int_equal(exec_argv(sb, ok, e), SBIO_E_AUDIT_SINK);
  assert_string_equal(sbio_error_message(e), "audit sink failed: audit callback returned an error");
  assert_nothing_logged();
  /* The operation failed too: its error wins, the sink failure is a warning. */
  assert_int_equal(exec_argv(sb, boom, e), SBIO_E_EXEC);
  assert_true(sbt_lines_contain(&logged, "audit sink failed: audit callback returned an error"));
  /* The event was still delivered to the callback (which then said no). */
  assert_non_null(strstr(rec.text, "\"argv\":[\"boom\"]"));
  rec.fail = 0;
  assert_int_equal(exec_argv(sb, ok, e), SBIO_OK);
  sbio_sandbox_close(sb, NULL);
  sbio_host_close(h);
  sbio_error_free(e);
}

/* Under warn, a failing file sink does not keep the event from the others. */
static void test_warn_tries_every_sink(void **state) {
  (void)state;
  recorder rec = {.lock = PTHREAD_MUTEX_INITIALIZER};
  host_extra x = {.fn = record_line, .user = &rec};
  char *yaml = audit_config("/dev/full", "warn", NULL);
  sbio_host *h = open_host(yaml, &x);
  sbio_sandbox *sb = create(h);
  sbio_sandbox_close(sb, NULL);
  sbio_host_close(h);
  assert_non_null(strstr(rec.text, "\"event\":\"created\""));
  assert_non_null(strstr(rec.text, "\"event\":\"kill\""));
  assert_true(sbt_lines_contain(&logged, "No space left on device"));
  free(yaml);
}

/* Under warn, a sink that fails for every event warns once, and the host's
 * close counts the rest: a full disk is not a warning per operation. */
static void test_warn_once_per_sink(void **state) {
  (void)state;
  char *yaml = audit_config("/dev/full", "warn", NULL);
  sbio_host *h = open_host(yaml, NULL);
  const char *argv[] = {"true", NULL};
  sbio_error *e = sbio_error_new();
  sbio_sandbox *sb = create(h);                                                  /* create_requested, created */
  for (int i = 0; i < 3; i++) assert_int_equal(exec_argv(sb, argv, e), SBIO_OK); /* 3 exec */
  assert_int_equal(sbio_sandbox_close(sb, e), SBIO_OK);                          /* kill */
  assert_int_equal(sbt_lines_count(&logged, "No space left on device"), 1);
  assert_int_equal(sbt_lines_count(&logged, "audit sink failed"), 1);
  sbio_host_close(h);
  /* The close counts the events the file did not get after the first
   * (the five above, and any the host's own close emits). */
  assert_int_equal(sbt_lines_count(&logged, "No space left on device"), 1);
  unsigned more = 0;
  char *all = sbt_lines_join(&logged);
  const char *summary = strstr(all, "audit sink failed "); /* not "failed:" of the warning */
  if (!summary || sscanf(summary, "audit sink failed %u more times", &more) != 1 || more < 5)
    fail_msg("no count of the failures after the first in:\n%s", all);
  free(all);
  sbio_error_free(e);
  free(yaml);
}

/* Strict UTF-8: no overlong form, surrogate, value above U+10FFFF or cut
 * sequence. */
static int strict_utf8(const unsigned char *s, size_t n) {
  for (size_t i = 0; i < n;) {
    unsigned c = s[i], len = c < 0x80                 ? 1
                             : c >= 0xc2 && c <= 0xdf ? 2
                             : c >= 0xe0 && c <= 0xef ? 3
                             : c >= 0xf0 && c <= 0xf4 ? 4
                                                      : 0;
    if (!len || i + len > n) return 0;
    unsigned cp = len == 1 ? c : c & (0x7fu >> len);
    for (unsigned k = 1; k < len; k++) {
      if ((s[i + k] & 0xc0) != 0x80) return 0;
      cp = cp << 6 | (s[i + k] & 0x3fu);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
      return 0;
    i += len;
  }
  return 1;
}

/* Issue 11: an argv word that is not UTF-8 went into the event as it was,
 * and the line was not valid JSON text. It is now U+FFFD there. */
static void test_events_are_valid_utf8(void **state) {
  (void)state;
  char *log = path_in("utf8.jsonl");
  unlink(log);
  char *yaml = audit_config(log, "fail", NULL);
  sbio_host *h = open_host(yaml, NULL);
  sbio_sandbox *sb = create(h);
  const char *argv[] = {"echo", "bad\xff\xc3 and \xe2\x82 cut", NULL};
  sbio_error *e = sbio_error_new();
  assert_int_equal(exec_argv(sb, argv, e), SBIO_OK);
  assert_int_equal(sbio_sandbox_close(sb, e), SBIO_OK);
  sbio_host_close(h);
  size_t len;
  char *text = read_file(log, &len);
  assert_true(len > 0);
  if (!strict_utf8((const unsigned char *)text, len)) fail_msg("the audit log is not valid UTF-8:\n%s", text);
  assert_non_null(strstr(text, "bad\xef\xbf\xbd\xef\xbf\xbd and \xef\xbf\xbd\xef\xbf\xbd cut"));
  sbio_error_free(e);
  free(text);
  free(yaml);
  free(log);
}

/* ------------------------------------------------- nobody listening */
static size_t cjson_allocs;
static void *counting_malloc(size_t n) {
  __atomic_add_fetch(&cjson_allocs, 1, __ATOMIC_RELAXED);
  return malloc(n);
}

static void cycle_and_refusal(sbio_host *h) {
  const char *argv[] = {"echo", SECRET, NULL};
  sbio_error *e = sbio_error_new();
  sbio_sandbox *sb = create(h);
  assert_int_equal(exec_argv(sb, argv, e), SBIO_OK);
  assert_int_equal(sbio_sandbox_close(sb, e), SBIO_OK);
  /* A refusal, too: the fake is not a microVM. */
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_require_isolation(co, SBIO_TIER_MICROVM);
  sb = NULL;
  assert_int_not_equal(sbio_sandbox_create(h, "fake://", co, &sb, e), SBIO_OK);
  assert_null(sb);
  sbio_create_options_free(co);
  sbio_error_free(e);
}

/* With no sink, no callback and no tracer, no event is built: no JSON
 * object is allocated for a create, an exec, a close or a refusal. With a
 * callback the same operations build every event, and an admitted create
 * sends no create_denied. */
static void test_nobody_listening_builds_nothing(void **state) {
  (void)state;
  unsetenv("OTEL_EXPORTER_OTLP_ENDPOINT");
  unsetenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  cJSON_Hooks counting = {.malloc_fn = counting_malloc, .free_fn = free};

  sbio_host *h = open_host("", NULL);
  cycle_and_refusal(h); /* loads and opens the backend */
  cJSON_InitHooks(&counting);
  cjson_allocs = 0;
  cycle_and_refusal(h);
  size_t quiet = cjson_allocs;
  cJSON_InitHooks(NULL);
  sbio_host_close(h);
  assert_int_equal(quiet, 0);

  recorder *rec = calloc(1, sizeof *rec);
  assert_non_null(rec);
  pthread_mutex_init(&rec->lock, NULL);
  host_extra x = {.fn = record_line, .user = rec};
  h = open_host("", &x);
  cycle_and_refusal(h);
  rec->text[0] = '\0';
  cJSON_InitHooks(&counting);
  cjson_allocs = 0;
  cycle_and_refusal(h);
  size_t heard = cjson_allocs;
  cJSON_InitHooks(NULL);
  sbio_host_close(h);
  assert_true(heard > 0);
  char **lines = NULL;
  size_t n = split_lines(rec->text, &lines);
  const char *expect[] = {"create_requested", "created", "exec", "kill", "create_requested", "create_denied"};
  assert_int_equal(n, sizeof expect / sizeof *expect);
  for (size_t i = 0; i < n; i++) {
    cJSON *ev = valid_event(lines[i]);
    assert_string_equal(str(ev, "event"), expect[i]);
    assert_null(strstr(lines[i], SECRET));
    cJSON_Delete(ev);
  }
  free(lines);
  pthread_mutex_destroy(&rec->lock);
  free(rec);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_real_events_match_schema, reset),
      cmocka_unit_test_setup(test_validator_catches_violations, reset),
      cmocka_unit_test_setup(test_lines_stay_whole_with_threads, reset),
      cmocka_unit_test_setup(test_lines_stay_whole_with_processes, reset),
      cmocka_unit_test_setup(test_removed_file_is_recreated, reset),
      cmocka_unit_test_setup(test_removed_directory, reset),
      cmocka_unit_test_setup(test_full_disk, reset),
      cmocka_unit_test_setup(test_full_tmpfs_cuts_one_line_only, reset),
      cmocka_unit_test_setup(test_fifo_is_refused, reset),
      cmocka_unit_test_setup(test_stderr_sink, reset),
      cmocka_unit_test_setup(test_stderr_unwritable, reset),
      cmocka_unit_test_setup(test_stderr_nobody_reads, reset),
      cmocka_unit_test_setup(test_file_locked_by_another, reset),
      cmocka_unit_test_setup(test_operation_error_wins, reset),
      cmocka_unit_test_setup(test_warn_tries_every_sink, reset),
      cmocka_unit_test_setup(test_warn_once_per_sink, reset),
      cmocka_unit_test_setup(test_events_are_valid_utf8, reset),
      cmocka_unit_test_setup(test_nobody_listening_builds_nothing, reset),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
