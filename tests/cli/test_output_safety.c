/* SPDX-License-Identifier: MIT */
/* What sbio prints about names it does not control: every --json document
 * is valid UTF-8 (checked by Python's strict decoder and its JSON parser),
 * a long message is cut on a character boundary with its FILE:LINE:COLUMN
 * kept, and a terminal never receives a control character from a file
 * name or a backend's text. */
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* A file name with an escape sequence, a line break and a byte that is
 * not UTF-8. */
#define HOSTILE_NAME "x\033[31my\nz\xff.yaml"

/* Writes len bytes to scratch/name. */
static char *write_bytes(const char *name, const char *data, size_t len) {
  char *path = h_path(name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
  return path;
}

/* Runs Debian's Python on the bytes: `mode` "json" parses them as one
 * JSON document after a strict UTF-8 decode, "text" only decodes. 0 when
 * they pass. */
static int python_check(const char *data, size_t len, const char *mode) {
  char *path = write_bytes("python-check.bin", data, len);
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "/usr/bin/python3 -c 'import json, sys\n"
           "text = open(sys.argv[2], \"rb\").read().decode(\"utf-8\", \"strict\")\n"
           "if sys.argv[1] == \"json\": json.loads(text)\n' %s '%s'",
           mode, path);
  int status = system(cmd);
  free(path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void assert_valid_json(const h_result *r) {
  if (python_check(r->out, r->out_len, "json") != 0) fail_msg("stdout is not valid UTF-8 JSON:\n%s", r->out);
}

static void assert_valid_text(const char *s, size_t len) {
  if (python_check(s, len, "text") != 0) fail_msg("not valid UTF-8:\n%s", s);
}

/* No C0 control byte but the line breaks that end lines, no DEL. */
static void assert_no_control_bytes(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c < 0x20 && c != '\n') || c == 0x7f) fail_msg("control byte 0x%02x at %zu in:\n%s", c, i, s);
  }
}

static size_t count_lines(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static void test_hostile_config_name_in_errors(void **state) {
  (void)state;
  char *cfg = h_write(HOSTILE_NAME, "bogus: 1\n");
  h_result r;
  H_RUN(&r, NULL, "config", "check", cfg);
  H_ASSERT_STATUS(&r, 78);
  assert_no_control_bytes(r.err, r.err_len);
  assert_valid_text(r.err, r.err_len);
  /* One line of message, one of hint: the name's line break is shown, not
   * obeyed, and so are the escape and the stray byte. */
  assert_int_equal(count_lines(r.err), 2);
  assert_non_null(strstr(r.err, "x\\x1b[31my\\x0az\\xff.yaml:1:1: unknown key"));
  h_result_free(&r);

  H_RUN(&r, NULL, "config", "check", "--json", cfg);
  H_ASSERT_STATUS(&r, 78);
  assert_valid_json(&r);
  cJSON *doc = h_json(&r);
  const char *msg =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "error"), "message")->valuestring;
  assert_non_null(strstr(msg, "x\\x1b[31my\\x0az\\xff.yaml:1:1: unknown key"));
  cJSON_Delete(doc);
  h_result_free(&r);

  /* The generic error path (run reads the configuration first). */
  H_RUN(&r, NULL, "--config", cfg, "run", "--", "true");
  H_ASSERT_STATUS(&r, 78);
  assert_no_control_bytes(r.err, r.err_len);
  assert_valid_text(r.err, r.err_len);
  h_result_free(&r);
  free(cfg);
}

static void test_hostile_config_name_when_ok(void **state) {
  (void)state;
  char *cfg = h_write(HOSTILE_NAME, "default_backend: fake://\n");
  h_result r;
  H_RUN(&r, NULL, "config", "check", cfg);
  H_ASSERT_STATUS(&r, 0);
  assert_no_control_bytes(r.out, r.out_len);
  assert_valid_text(r.out, r.out_len);
  assert_non_null(strstr(r.out, "x\\x1b[31my\\x0az\\xff.yaml: ok\n"));
  h_result_free(&r);

  H_RUN(&r, NULL, "config", "check", "--json", cfg);
  H_ASSERT_STATUS(&r, 0);
  assert_valid_json(&r);
  h_result_free(&r);

  /* The same name in doctor's report, both forms. */
  H_RUN(&r, NULL, "--config", cfg, "doctor");
  assert_no_control_bytes(r.out, r.out_len);
  assert_valid_text(r.out, r.out_len);
  h_result_free(&r);
  H_RUN(&r, NULL, "--config", cfg, "doctor", "--json");
  assert_valid_json(&r);
  h_result_free(&r);
  free(cfg);
}

/* A path of more than 2,047 bytes of two-byte characters (15 directories
 * of 100 "é"): the message used to be cut inside a character, and the
 * cut took the line and column with it. */
static void test_long_multibyte_path_keeps_location(void **state) {
  (void)state;
  char dir[8192];
  size_t o = (size_t)snprintf(dir, sizeof dir, "%s", h_scratch());
  for (int level = 0; level < 15; level++) {
    dir[o++] = '/';
    for (int i = 0; i < 100; i++) o += (size_t)snprintf(dir + o, sizeof dir - o, "\xc3\xa9");
    dir[o] = '\0';
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) fail_msg("mkdir: %s", strerror(errno));
  }
  char cfg[8300];
  snprintf(cfg, sizeof cfg, "%s/c.yaml", dir);
  FILE *f = fopen(cfg, "w");
  assert_non_null(f);
  fputs("bogus_key: 1\n", f);
  assert_int_equal(fclose(f), 0);
  assert_true(strlen(cfg) > 3000);

  h_result r;
  H_RUN(&r, NULL, "config", "check", "--json", cfg);
  H_ASSERT_STATUS(&r, 78);
  assert_valid_json(&r);
  cJSON *doc = h_json(&r);
  const char *msg =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "error"), "message")->valuestring;
  /* The start of the path gives way; its end, the position and the
   * message stay. */
  assert_true(strncmp(msg, "...", 3) == 0);
  assert_non_null(strstr(msg, "\xc3\xa9/c.yaml:1:1: unknown key \"bogus_key\""));
  cJSON_Delete(doc);
  h_result_free(&r);

  H_RUN(&r, NULL, "config", "check", cfg);
  H_ASSERT_STATUS(&r, 78);
  assert_valid_text(r.err, r.err_len);
  assert_non_null(strstr(r.err, "/c.yaml:1:1: unknown key"));
  h_result_free(&r);
}

/* A name of 3,000 bytes of "é" echoed in a message. */
static void test_long_multibyte_name_in_json_message(void **state) {
  (void)state;
  char name[3100];
  size_t o = 0;
  for (int i = 0; i < 1500; i++) o += (size_t)snprintf(name + o, sizeof name - o, "\xc3\xa9");
  h_result r;
  H_RUN(&r, NULL, "inspect", name, "--json");
  H_ASSERT_STATUS(&r, 69);
  assert_valid_json(&r);
  h_result_free(&r);
  H_RUN(&r, NULL, "inspect", name);
  H_ASSERT_STATUS(&r, 69);
  assert_valid_text(r.err, r.err_len);
  h_result_free(&r);
}

/* A backend message longer than its buffer, in three-byte characters, and
 * carrying an escape sequence and a line break. */
static void test_backend_message_is_cut_on_a_character_and_escaped(void **state) {
  (void)state;
  char yaml[8192];
  size_t o = (size_t)snprintf(yaml, sizeof yaml,
                              "backends:\n  fake:\n    settings:\n      simulate:\n        create_fails: \"\\e[2J\\n");
  for (int i = 0; i < 1000; i++) o += (size_t)snprintf(yaml + o, sizeof yaml - o, "\xe2\x82\xac");
  snprintf(yaml + o, sizeof yaml - o, "\"\n");
  char *cfg = h_write("long-fail.yaml", yaml);
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "run", "--", "true");
  H_ASSERT_STATUS(&r, 69);
  assert_no_control_bytes(r.err, r.err_len);
  assert_valid_text(r.err, r.err_len);
  assert_non_null(strstr(r.err, "fake create failed: \\x1b[2J\\x0a\xe2\x82\xac"));
  h_result_free(&r);
  free(cfg);
}

/* A library warning quoting a value from the environment. */
static void test_library_warnings_are_escaped(void **state) {
  (void)state;
  const char *env[] = {"OTEL_TRACES_EXPORTER=\033]0;title\007\033[2Jx\ny", NULL};
  h_opts o = {.env = env};
  h_result r;
  H_RUN(&r, &o, "backends");
  H_ASSERT_STATUS(&r, 0);
  assert_no_control_bytes(r.err, r.err_len);
  assert_non_null(strstr(r.err, "OTEL_TRACES_EXPORTER=\"\\x1b]0;title\\x07\\x1b[2Jx\\x0ay\" is not supported"));
  h_result_free(&r);
}

/* Each line sbio writes to stderr is one write(): a reader (a log
 * collector, or the terminal while `sbio run` copies the command's own
 * stderr) never gets a message in pieces. stderr is a SOCK_SEQPACKET
 * socket here, so every write arrives as one packet. Before, a shown value
 * went out a character per write: hundreds of pieces per message. */
static void test_each_stderr_line_is_one_write(void **state) {
  (void)state;
  const char *env[] = {"OTEL_TRACES_EXPORTER=\033[2Jx\ny", NULL};
  h_opts o = {.env = env, .stderr_packets = 1};
  char *cfg = h_write("empty.yaml", "{}\n");
  h_result r;
  /* A library warning quoting hostile text, then an error with a hint. */
  H_RUN(&r, &o, "--config", cfg, "run", "--backend", "no\033[2Jsuch://", "--", "true");
  H_ASSERT_STATUS(&r, 78);
  assert_true(count_lines(r.err) >= 3);
  assert_non_null(strstr(r.err, "is not supported"));
  assert_non_null(strstr(r.err, "  hint: "));
  if (r.err_writes_not_one_line != 0)
    fail_msg("%zu writes to stderr were not one whole line:\n%s", r.err_writes_not_one_line, r.err);
  h_result_free(&r);
  free(cfg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hostile_config_name_in_errors),
      cmocka_unit_test(test_hostile_config_name_when_ok),
      cmocka_unit_test(test_long_multibyte_path_keeps_location),
      cmocka_unit_test(test_long_multibyte_name_in_json_message),
      cmocka_unit_test(test_backend_message_is_cut_on_a_character_and_escaped),
      cmocka_unit_test(test_library_warnings_are_escaped),
      cmocka_unit_test(test_each_stderr_line_is_one_write),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
