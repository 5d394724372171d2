/* SPDX-License-Identifier: MIT */
/* sbio backends, inspect, reap, version, help: listings for people and
 * the stable --json documents for programs, colour rules, usage errors. */
#include "harness.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

static char *empty_config(void) {
  return h_write("empty.yaml", "");
}

static const cJSON *get(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!v) fail_msg("missing key '%s'", key);
  return v;
}

static const char *get_str(const cJSON *o, const char *key) {
  const cJSON *v = get(o, key);
  if (!cJSON_IsString(v)) fail_msg("'%s' is not a string", key);
  return v->valuestring;
}

static int str_or_null(const cJSON *o, const char *key) {
  const cJSON *v = get(o, key);
  return cJSON_IsString(v) || cJSON_IsNull(v);
}

static const cJSON *find_backend(const cJSON *list, const char *name) {
  const cJSON *b;
  cJSON_ArrayForEach(b, list) {
    if (strcmp(get_str(b, "name"), name) == 0) return b;
  }
  return NULL;
}

static int matches(const char *text, const char *pattern) {
  regex_t re;
  assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE), 0);
  int ok = regexec(&re, text, 0, NULL, 0) == 0;
  regfree(&re);
  return ok;
}

static void test_backends_lists_fake_as_container(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "backends");
  H_ASSERT_STATUS(&r, 0);
  assert_true(matches(r.out, "^NAME +STATUS +TIER +CLAIMED +VERIFIED +SOURCE +VERSION +PATH$"));
  assert_true(matches(r.out, "^fake +(available|loaded) +CONTAINER +CONTAINER +[0-9]{4}-[0-9]{2}-[0-9]{2} +https://"));
  assert_string_equal(r.err, "");
  h_result_free(&r);
  free(cfg);
}

static void check_backend_fields(const cJSON *b) {
  assert_string_equal(get_str(b, "tier"), "CONTAINER");
  assert_string_equal(get_str(b, "claimed_tier"), "CONTAINER");
  assert_true(cJSON_IsBool(get(b, "enabled")));
  assert_true(cJSON_IsTrue(get(b, "enabled")));
  assert_true(matches(get_str(b, "verified_on"), "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"));
  assert_true(matches(get_str(b, "source_url"), "^https://"));
  assert_true(matches(get_str(b, "path"), "/sbio-backend-fake\\.so$"));
  assert_true(str_or_null(b, "version"));
  assert_true(cJSON_IsNull(get(b, "reason")));
  const cJSON *mechs = get(b, "mechanisms");
  assert_true(cJSON_IsArray(mechs));
  assert_true(cJSON_GetArraySize(mechs) >= 1);
  const cJSON *m = cJSON_GetArrayItem(mechs, 0);
  get_str(m, "name");
  assert_string_equal(get_str(m, "tier"), "CONTAINER");
  assert_string_equal(get_str(m, "claimed_tier"), "CONTAINER");
  assert_true(cJSON_IsBool(get(m, "stale")));
}

static void test_backends_json_has_the_documented_fields(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "backends", "--json");
  H_ASSERT_STATUS(&r, 0);
  cJSON *doc = h_json(&r);
  assert_true(cJSON_IsTrue(get(doc, "ok")));
  assert_true(cJSON_IsArray(get(doc, "search_path")));
  const cJSON *files = get(doc, "config_files");
  assert_int_equal(cJSON_GetArraySize(files), 1);
  assert_string_equal(cJSON_GetArrayItem(files, 0)->valuestring, cfg);
  assert_true(cJSON_IsNull(get(doc, "default_backend")));
  assert_string_equal(get_str(doc, "isolation_floor"), "UNKNOWN");
  const cJSON *fake = find_backend(get(doc, "backends"), "fake");
  assert_non_null(fake);
  assert_string_equal(get_str(fake, "status"), "available");
  check_backend_fields(fake);
  cJSON_Delete(doc);
  h_result_free(&r);
  free(cfg);
}

static void test_backends_load_loads_enabled_backends(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "backends", "--load", "--json");
  H_ASSERT_STATUS(&r, 0);
  cJSON *doc = h_json(&r);
  const cJSON *fake = find_backend(get(doc, "backends"), "fake");
  assert_non_null(fake);
  assert_string_equal(get_str(fake, "status"), "loaded");
  cJSON_Delete(doc);
  h_result_free(&r);
  free(cfg);
}

static void test_backends_shows_why_a_backend_is_disabled(void **state) {
  (void)state;
  char *cfg = h_write("disabled.yaml", "backends:\n  fake:\n    enabled: false\n");
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "backends");
  H_ASSERT_STATUS(&r, 0);
  assert_true(matches(r.out, "^fake +disabled "));
  assert_true(matches(r.out, "^  fake \\(disabled\\): .+"));
  h_result_free(&r);
  H_RUN(&r, NULL, "--config", cfg, "backends", "--json");
  cJSON *doc = h_json(&r);
  const cJSON *fake = find_backend(get(doc, "backends"), "fake");
  assert_string_equal(get_str(fake, "status"), "disabled");
  assert_true(cJSON_IsFalse(get(fake, "enabled")));
  assert_true(strlen(get_str(fake, "reason")) > 0);
  cJSON_Delete(doc);
  h_result_free(&r);
  free(cfg);
}

static void test_inspect_fake(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "inspect", "fake");
  H_ASSERT_STATUS(&r, 0);
  assert_true(matches(r.out, "^name: +fake$"));
  assert_true(matches(r.out, "^sha256: +[0-9a-f]{64}$"));
  assert_true(matches(r.out, "^tier: +CONTAINER$"));
  assert_true(matches(r.out, "^capabilities: +.*run_command"));
  assert_true(matches(r.out, "^    source: +https://"));
  h_result_free(&r);

  H_RUN(&r, NULL, "--config", cfg, "inspect", "fake", "--json");
  H_ASSERT_STATUS(&r, 0);
  cJSON *doc = h_json(&r);
  const cJSON *b = get(doc, "backend");
  assert_string_equal(get_str(b, "name"), "fake");
  check_backend_fields(b);
  assert_true(matches(get_str(b, "sha256"), "^[0-9a-f]{64}$"));
  assert_true(str_or_null(b, "summary"));
  assert_true(cJSON_IsNull(get(get(b, "pins"), "expect_tier")));
  const cJSON *caps = get(b, "capabilities");
  int has_run = 0;
  const cJSON *c;
  cJSON_ArrayForEach(c, caps) has_run |= strcmp(c->valuestring, "run_command") == 0;
  assert_true(has_run);
  const cJSON *m = cJSON_GetArrayItem(get(b, "mechanisms"), 0);
  assert_true(cJSON_IsNumber(get(m, "age_days")));
  assert_true(get(m, "age_days")->valueint >= 0);
  assert_true(str_or_null(m, "quote"));
  assert_true(cJSON_IsNull(get(m, "reason")) || cJSON_IsString(get(m, "reason")));
  cJSON_Delete(doc);
  h_result_free(&r);
  free(cfg);
}

static void test_inspect_shows_a_pin(void **state) {
  (void)state;
  char *cfg = h_write("pinned.yaml", "backends:\n  fake:\n    expect_tier: container\n");
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "inspect", "fake", "--json");
  H_ASSERT_STATUS(&r, 0);
  cJSON *doc = h_json(&r);
  assert_string_equal(get_str(get(get(doc, "backend"), "pins"), "expect_tier"), "CONTAINER");
  cJSON_Delete(doc);
  h_result_free(&r);
  free(cfg);
}

static void test_inspect_unknown_name_exits_69_and_lists_names(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "inspect", "nosuch");
  H_ASSERT_STATUS(&r, 69);
  assert_string_equal(r.out, "");
  assert_true(matches(r.err, "^error: \\[SBX_E1001\\] .*nosuch"));
  assert_true(matches(r.err, "^  hint: available: .*fake"));
  h_result_free(&r);

  H_RUN(&r, NULL, "--config", cfg, "inspect", "nosuch", "--json");
  H_ASSERT_STATUS(&r, 69);
  assert_string_equal(r.err, "");
  cJSON *doc = h_json(&r);
  assert_true(cJSON_IsFalse(get(doc, "ok")));
  const cJSON *e = get(doc, "error");
  assert_string_equal(get_str(e, "code"), "SBX_E1001");
  assert_string_equal(get_str(e, "class"), "BackendNotFound");
  assert_non_null(strstr(get_str(e, "message"), "nosuch"));
  assert_non_null(strstr(get_str(e, "hint"), "fake"));
  assert_true(str_or_null(e, "backend"));
  assert_int_equal(get(e, "exit_code")->valueint, 69);
  cJSON_Delete(doc);
  h_result_free(&r);

  H_RUN(&r, NULL, "--config", cfg, "inspect");
  H_ASSERT_STATUS(&r, 64);
  h_result_free(&r);
  free(cfg);
}

static void test_config_errors_are_json_in_json_mode(void **state) {
  (void)state;
  char *cfg = h_write("typo-for-json.yaml", "default_backnd: fake://\n");
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "backends", "--json");
  H_ASSERT_STATUS(&r, 78);
  cJSON *doc = h_json(&r);
  assert_true(cJSON_IsFalse(get(doc, "ok")));
  assert_string_equal(get_str(get(doc, "error"), "code"), "SBX_E1000");
  assert_string_equal(get_str(get(doc, "error"), "class"), "ConfigurationError");
  cJSON_Delete(doc);
  h_result_free(&r);
  free(cfg);
}

static void test_reap_lists_nothing_in_a_fresh_process(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  /* Only the fake: other backends may need an engine or credentials. */
  H_RUN(&r, NULL, "--config", cfg, "reap", "--backend", "fake");
  H_ASSERT_STATUS(&r, 0);
  assert_null(strstr(r.out, "dry run"));
  h_result_free(&r);

  H_RUN(&r, NULL, "--config", cfg, "reap", "--backend", "fake", "--json");
  H_ASSERT_STATUS(&r, 0);
  cJSON *doc = h_json(&r);
  assert_true(cJSON_IsTrue(get(doc, "ok")));
  assert_true(cJSON_IsFalse(get(doc, "kill")));
  assert_true(cJSON_IsObject(get(doc, "labels")));
  assert_true(cJSON_IsArray(get(doc, "backends")));
  assert_true(cJSON_IsArray(get(doc, "sandboxes")));
  assert_int_equal(cJSON_GetArraySize(get(doc, "sandboxes")), 0);
  cJSON_Delete(doc);
  h_result_free(&r);

  H_RUN(&r, NULL, "--config", cfg, "reap", "--backend", "fake", "--label", "tenant_id=t1", "--kill", "--json");
  H_ASSERT_STATUS(&r, 0);
  doc = h_json(&r);
  assert_true(cJSON_IsTrue(get(doc, "kill")));
  assert_string_equal(get_str(get(doc, "labels"), "tenant_id"), "t1");
  const cJSON *fake = find_backend(get(doc, "backends"), "fake");
  assert_non_null(fake);
  assert_string_equal(get_str(fake, "status"), "listed");
  assert_int_equal(get(fake, "found")->valueint, 0);
  assert_true(cJSON_IsNull(get(fake, "error")));
  cJSON_Delete(doc);
  h_result_free(&r);
  free(cfg);
}

static void test_reap_failures(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "reap", "--backend", "nosuch", "--json");
  H_ASSERT_STATUS(&r, 69);
  cJSON *doc = h_json(&r);
  assert_true(cJSON_IsFalse(get(doc, "ok")));
  const cJSON *b = find_backend(get(doc, "backends"), "nosuch");
  assert_non_null(b);
  assert_string_equal(get_str(b, "status"), "not_found");
  assert_string_equal(get_str(get(b, "error"), "code"), "SBX_E1001");
  cJSON_Delete(doc);
  h_result_free(&r);
  H_RUN(&r, NULL, "--config", cfg, "reap", "--label", "novalue");
  H_ASSERT_STATUS(&r, 64);
  assert_true(h_contains(r.err, r.err_len, "usage: sbio reap"));
  h_result_free(&r);
  free(cfg);
}

static void test_version(void **state) {
  (void)state;
  h_result r;
  H_RUN(&r, NULL, "version");
  H_ASSERT_STATUS(&r, 0);
  assert_true(matches(r.out, "^sbio [0-9]+\\.[0-9]+\\.[0-9]+\nlibsandboxio [0-9]+\\.[0-9]+\\.[0-9]+\n$"));
  h_result_free(&r);
  H_RUN(&r, NULL, "--version");
  H_ASSERT_STATUS(&r, 0);
  assert_true(matches(r.out, "^sbio [0-9.]+$"));
  h_result_free(&r);
  H_RUN(&r, NULL, "version", "--json");
  H_ASSERT_STATUS(&r, 0);
  cJSON *doc = h_json(&r);
  assert_true(matches(get_str(doc, "sbio"), "^[0-9]+\\.[0-9]+\\.[0-9]+$"));
  assert_true(matches(get_str(doc, "library"), "^[0-9]+\\.[0-9]+\\.[0-9]+"));
  cJSON_Delete(doc);
  h_result_free(&r);
}

static void test_help_and_usage_errors(void **state) {
  (void)state;
  h_result r;
  H_RUN(&r, NULL, "--help");
  H_ASSERT_STATUS(&r, 0);
  assert_true(matches(r.out, "^Exit codes:$"));
  assert_true(matches(r.out, "^  124 "));
  assert_true(matches(r.out, "^  78 "));
  assert_true(matches(r.out, "^  69 "));
  assert_true(matches(r.out, "^  64 "));
  h_result_free(&r);
  H_RUN(&r, NULL, "help", "run");
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.out, r.out_len, "--require-isolation"));
  h_result_free(&r);
  H_RUN(&r, NULL, "run", "--help");
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.out, r.out_len, "--secret K=ENVVAR"));
  h_result_free(&r);

  H_RUN(&r, NULL, "frobnicate");
  H_ASSERT_STATUS(&r, 64);
  assert_string_equal(r.out, "");
  assert_true(h_contains(r.err, r.err_len, "unknown command 'frobnicate'"));
  h_result_free(&r);
  H_RUN(&r, NULL, "--bogus", "backends");
  H_ASSERT_STATUS(&r, 64);
  h_result_free(&r);
  H_RUN(&r, NULL, "backends", "--json=1");
  H_ASSERT_STATUS(&r, 64);
  h_result_free(&r);
  H_RUN(&r, NULL, "--config");
  H_ASSERT_STATUS(&r, 64);
  h_result_free(&r);

  h_proc p;
  h_start(&p, NULL, (const char *const[]){NULL});
  h_finish(&p, &r);
  H_ASSERT_STATUS(&r, 64);
  assert_string_equal(r.out, "");
  h_result_free(&r);
}

static void test_colour_only_on_a_terminal_without_no_color(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  const char *const tty_env[] = {"TERM=xterm", NULL};
  h_opts tty = {.env = tty_env, .pty_stdout = 1};
  H_RUN(&r, &tty, "--config", cfg, "backends");
  H_ASSERT_STATUS(&r, 0);
  /* The tier is yellow (CONTAINER) on a terminal. */
  assert_true(h_contains(r.out, r.out_len, "\033[33mCONTAINER\033[0m"));
  h_result_free(&r);

  const char *const no_color_env[] = {"TERM=xterm", "NO_COLOR=1", NULL};
  h_opts no_color = {.env = no_color_env, .pty_stdout = 1};
  H_RUN(&r, &no_color, "--config", cfg, "backends");
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.out, r.out_len, "CONTAINER"));
  assert_false(h_contains(r.out, r.out_len, "\033"));
  h_result_free(&r);

  const char *const dumb_env[] = {"TERM=dumb", NULL};
  h_opts dumb = {.env = dumb_env, .pty_stdout = 1};
  H_RUN(&r, &dumb, "--config", cfg, "inspect", "fake");
  H_ASSERT_STATUS(&r, 0);
  assert_false(h_contains(r.out, r.out_len, "\033"));
  h_result_free(&r);

  /* Empty NO_COLOR does not count as set. */
  const char *const empty_env[] = {"TERM=xterm", "NO_COLOR=", NULL};
  h_opts empty = {.env = empty_env, .pty_stdout = 1};
  H_RUN(&r, &empty, "--config", cfg, "inspect", "fake");
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.out, r.out_len, "\033["));
  h_result_free(&r);

  /* Not a terminal: never. */
  h_opts pipe_out = {.env = tty_env, .pty_stdout = 0};
  H_RUN(&r, &pipe_out, "--config", cfg, "backends");
  H_ASSERT_STATUS(&r, 0);
  assert_false(h_contains(r.out, r.out_len, "\033"));
  assert_false(h_contains(r.err, r.err_len, "\033"));
  h_result_free(&r);
  free(cfg);
}

/* Copies the file at from to to, with mode. */
static void copy_file(const char *from, const char *to, mode_t mode) {
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  assert_non_null(in);
  assert_non_null(out);
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0) assert_int_equal(fwrite(buf, 1, n, out), n);
  fclose(in);
  assert_int_equal(fclose(out), 0);
  assert_int_equal(chmod(to, mode), 0);
}

/* A relative --backend-path is a directory typed on purpose: it is taken
 * from the current directory (made absolute), where the library on its
 * own ignores relative search directories (SBIO_BACKEND_PATH, config). */
static void test_relative_backend_path_is_taken_from_the_current_directory(void **state) {
  (void)state;
  char *cfg = empty_config();
  char *dir = h_path("rel-plugins");
  assert_int_equal(mkdir(dir, 0755), 0);
  char *dst = h_path("rel-plugins/sbio-backend-fake.so");
  copy_file(SBIO_TEST_FAKE_PLUGIN, dst, 0644);
  char cwd[4096];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(h_scratch()), 0);
  h_result r, d;
  H_RUN(&r, NULL, "--config", cfg, "--backend-path", "rel-plugins:/nonexistent/sbio", "backends", "--json");
  H_RUN(&d, NULL, "--config", cfg, "--backend-path", "./rel-plugins", "doctor");
  assert_int_equal(chdir(cwd), 0);
  H_ASSERT_STATUS(&r, 0);
  assert_false(h_contains(r.err, r.err_len, "ignoring"));
  cJSON *doc = h_json(&r);
  const cJSON *fake = find_backend(get(doc, "backends"), "fake");
  assert_non_null(fake);
  assert_string_equal(get_str(fake, "path"), dst); /* the copy, which shadows the built-in one */
  cJSON_Delete(doc);
  if (d.status >= 128) fail_msg("sbio doctor died of signal %d; its stderr: %s", d.status - 128, d.err);
  assert_false(h_contains(d.err, d.err_len, "ignoring"));
  assert_true(h_contains(d.out, d.out_len, "rel-plugins"));
  h_result_free(&r);
  h_result_free(&d);
  free(dst);
  free(dir);
  free(cfg);
}

/* In a set-user-ID or set-group-ID process (AT_SECURE) SBIO_BACKEND_PATH
 * is not obeyed, as the dynamic linker ignores LD_LIBRARY_PATH there and
 * the library ignores SBIO_CONFIG: it names directories to load code from,
 * and whoever sets a privileged program's environment must not choose that
 * code. A copy of sbio whose group is nogroup, with the set-group-ID bit,
 * started by root, runs with AT_SECURE. Set-group-ID rather than
 * set-user-ID: the process stays root, so LeakSanitizer (which stops the
 * process the way a debugger does) still works in the sanitizer build.
 * Before, it searched the variable's directory first. */
static void test_backend_path_variable_is_ignored_when_privileged(void **state) {
  (void)state;
  if (geteuid() != 0) skip(); /* only root can give a file to another group */
  struct statvfs fs;
  assert_int_equal(statvfs(h_scratch(), &fs), 0);
  assert_false(fs.f_flag & ST_NOSUID); /* the scratch directory must allow set-user-ID */
  char *bin = h_path("sbio-setgid");
  copy_file(SBIO_CLI_PATH, bin, 0755);
  assert_int_equal(chown(bin, (uid_t)-1, 65534), 0);
  assert_int_equal(chmod(bin, 02755), 0);
  char *dir = h_path("planted");
  assert_int_equal(mkdir(dir, 0755), 0);
  char var[4200];
  snprintf(var, sizeof var, "SBIO_BACKEND_PATH=%s", dir);
  int out[2];
  assert_int_equal(pipe(out), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    char *const argv[] = {bin, "backends", "--json", NULL};
    char *const envp[] = {var, "PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
    execve(bin, argv, envp);
    _exit(127);
  }
  close(out[1]);
  char doc_text[1 << 16];
  size_t len = 0;
  for (ssize_t n; len + 1 < sizeof doc_text && (n = read(out[0], doc_text + len, sizeof doc_text - 1 - len)) > 0;)
    len += (size_t)n;
  doc_text[len] = '\0';
  close(out[0]);
  int ws = 0;
  assert_int_equal(waitpid(pid, &ws, 0), pid);
  if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) fail_msg("the set-group-ID sbio failed (%d): %s", ws, doc_text);
  cJSON *doc = cJSON_Parse(doc_text);
  assert_non_null(doc);
  const cJSON *dirs = get(doc, "search_path"), *d;
  assert_true(cJSON_IsArray(dirs));
  cJSON_ArrayForEach(d, dirs) {
    if (cJSON_IsString(d) && strcmp(d->valuestring, dir) == 0)
      fail_msg("a set-group-ID sbio searched SBIO_BACKEND_PATH=%s", dir);
  }
  cJSON_Delete(doc);
  free(dir);
  free(bin);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_backends_lists_fake_as_container),
      cmocka_unit_test(test_backends_json_has_the_documented_fields),
      cmocka_unit_test(test_backends_load_loads_enabled_backends),
      cmocka_unit_test(test_backends_shows_why_a_backend_is_disabled),
      cmocka_unit_test(test_inspect_fake),
      cmocka_unit_test(test_inspect_shows_a_pin),
      cmocka_unit_test(test_inspect_unknown_name_exits_69_and_lists_names),
      cmocka_unit_test(test_config_errors_are_json_in_json_mode),
      cmocka_unit_test(test_reap_lists_nothing_in_a_fresh_process),
      cmocka_unit_test(test_reap_failures),
      cmocka_unit_test(test_version),
      cmocka_unit_test(test_help_and_usage_errors),
      cmocka_unit_test(test_colour_only_on_a_terminal_without_no_color),
      cmocka_unit_test(test_relative_backend_path_is_taken_from_the_current_directory),
      cmocka_unit_test(test_backend_path_variable_is_ignored_when_privileged),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
