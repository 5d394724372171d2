/* SPDX-License-Identifier: MIT */
/* `sbio run`'s progress bar: drawn on stderr only when stderr is a
 * terminal and the colour rules allow it (NO_COLOR unset or empty, TERM
 * not "dumb"), erased before anything else is printed; never a byte of it
 * when stderr is a pipe or a file (logs, CI). The progress test backend
 * reports the step "pull img-v1" during create. */
#include "../cli/harness.h"

#include <stdlib.h>
#include <string.h>

#define ERASE "\r\033[K"

static void run_progress(h_result *r, const char *const *env, int pty_stderr) {
  char *cfg = h_write("empty.yaml", "");
  h_opts o = {.env = env};
  const char *const argv[] = {
      "--config", cfg, "--backend-path", PROGRESS_BK_DIR, "run", "--backend", "progress://img-v1", "--", "echo",
      "hi",       NULL};
  if (pty_stderr)
    h_run_pty_stderr(r, &o, argv);
  else
    h_run(r, &o, argv);
  free(cfg);
  H_ASSERT_STATUS(r, 0);
  assert_string_equal(r->out, "echo hi\n"); /* the backend echoes its argv */
}

/* Neither a carriage return nor an escape sequence: no trace of a bar. */
static void assert_no_bar(const h_result *r) {
  if (h_contains(r->err, r->err_len, "pull img-v1") || memchr(r->err, '\r', r->err_len) ||
      memchr(r->err, '\033', r->err_len))
    fail_msg("unexpected progress output on stderr: \"%s\"", r->err);
}

static void test_bar_on_a_terminal(void **state) {
  (void)state;
  const char *const env[] = {"TERM=xterm", NULL};
  h_result r;
  run_progress(&r, env, 1);
  /* The first report is always drawn (0 B of a size not yet known). */
  if (!h_contains(r.err, r.err_len, "\rpull img-v1  0 B\033[K"))
    fail_msg("no progress bar on the terminal; stderr was \"%s\"", r.err);
  /* ...and the bar is erased at the end: the last thing on stderr. */
  assert_true(r.err_len >= strlen(ERASE));
  assert_memory_equal(r.err + r.err_len - strlen(ERASE), ERASE, strlen(ERASE));
  h_result_free(&r);
}

static void test_no_bar_when_stderr_is_not_a_terminal(void **state) {
  (void)state;
  const char *const env[] = {"TERM=xterm", NULL};
  h_result r;
  run_progress(&r, env, 0);
  assert_no_bar(&r);
  assert_int_equal(r.err_len, 0);
  h_result_free(&r);
}

static void test_no_bar_under_no_color(void **state) {
  (void)state;
  const char *const env[] = {"TERM=xterm", "NO_COLOR=1", NULL};
  h_result r;
  run_progress(&r, env, 1);
  assert_no_bar(&r);
  h_result_free(&r);
}

static void test_no_bar_on_a_dumb_terminal(void **state) {
  (void)state;
  const char *const env[] = {"TERM=dumb", NULL};
  h_result r;
  run_progress(&r, env, 1);
  assert_no_bar(&r);
  h_result_free(&r);
}

/* With -v the library's info lines go to stderr too: each starts on a
 * line of its own, never glued to the bar. */
static void test_log_lines_erase_the_bar_first(void **state) {
  (void)state;
  const char *const env[] = {"TERM=xterm", NULL};
  char *cfg = h_write("empty.yaml", "");
  h_opts o = {.env = env};
  h_result r;
  H_RUN_PTY_STDERR(&r, &o, "--config", cfg, "--backend-path", PROGRESS_BK_DIR, "-vv", "run", "--backend",
                   "progress://img-v1", "--", "echo", "hi");
  free(cfg);
  H_ASSERT_STATUS(&r, 0);
  const char *p = r.err;
  while ((p = strstr(p, "sbio: ")) != NULL) {
    /* Preceded by the start of stderr, a newline, or the bar's erasure. */
    int clean = p == r.err || p[-1] == '\n' ||
                (p - r.err >= (long)strlen(ERASE) && !memcmp(p - strlen(ERASE), ERASE, strlen(ERASE)));
    if (!clean) fail_msg("a log line is glued to the progress bar: \"%s\"", r.err);
    p++;
  }
  h_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bar_on_a_terminal),
      cmocka_unit_test(test_no_bar_when_stderr_is_not_a_terminal),
      cmocka_unit_test(test_no_bar_under_no_color),
      cmocka_unit_test(test_no_bar_on_a_dumb_terminal),
      cmocka_unit_test(test_log_lines_erase_the_bar_first),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
