/* SPDX-License-Identifier: MIT */
/* Exec semantics: exit statuses, stdout and stderr, environment, argv
 * without a shell, stdin, and refused options. Timeouts: cases_timeout.c. */
#include "cases.h"
#include "probes.h"

#include <string.h>

#define CREATE_VAR "SBIO_CONFORMANCE_CREATE_VAR"

void kit_exec_exit_codes(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  kit_run *r = kit_exec(c, sb, PROBE_SH("exit 3"), NULL, 0);
  if (!kit_run_ok(c, r, "sh -c 'exit 3' (a non-zero status is data, not an error)")) return;
  if (r->exit_code != 3) kit_fail(c, "sh -c 'exit 3' reported exit %d", r->exit_code);
  r = kit_exec(c, sb, PROBE_SH("exit 0"), NULL, 0);
  if (kit_run_ok(c, r, "sh -c 'exit 0'") && r->exit_code != 0)
    kit_fail(c, "sh -c 'exit 0' reported exit %d", r->exit_code);
  kit_note(c, "exit 3 and exit 0 came back as data");
}

/* A program that does not exist is what a shell makes of it: exit code
 * 127 as data (no error), and a message naming it where the caller reads
 * errors (stderr, or the one output stream of a backend without
 * separate_stderr). Both a name not on PATH and an absolute path. */
void kit_exec_missing_program(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  int separate = (sbio_sandbox_capabilities(sb) & SBIO_CAP_SEPARATE_STDERR) != 0;
  const char *name = kit_probe_name(c, "no-such-program");
  const char *programs[] = {name, kit_fmt(c, "/%s/program", name)};
  for (size_t i = 0; i < 2; i++) {
    const char *argv[] = {programs[i], NULL};
    kit_run *r = kit_exec(c, sb, argv, NULL, 0);
    if (!kit_run_ok(c, r, kit_fmt(c, "running the missing program %s (exit 127 is data, not an error)", programs[i])))
      return;
    if (r->exit_code != 127)
      kit_fail(c, "the missing program %s reported exit %d, not 127 (stdout %s, stderr %s)", programs[i], r->exit_code,
               kit_quote(c, r->out, r->out_len), kit_quote(c, r->errout, r->err_len));
    int in_err = r->err_len && memmem(r->errout, r->err_len, name, strlen(name)) != NULL;
    int in_out = r->out_len && memmem(r->out, r->out_len, name, strlen(name)) != NULL;
    if (!(in_err || (!separate && in_out)))
      kit_fail(c, "nothing on %s names the missing program %s (stdout %s, stderr %s)",
               separate ? "stderr" : "the output", programs[i], kit_quote(c, r->out, r->out_len),
               kit_quote(c, r->errout, r->err_len));
  }
  if (!kit_failed(c)) kit_note(c, "exit 127 and a message naming it, for a name and for a path");
}

void kit_exec_stdout_stderr_separate(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  kit_run *r = kit_exec(c, sb, PROBE_BOTH, NULL, 0);
  if (!kit_run_ok(c, r, kit_argv_text(c, PROBE_BOTH))) return;
  if (r->out_len != 4 || memcmp(r->out, "out\n", 4) != 0 || r->err_len != 4 || memcmp(r->errout, "err\n", 4) != 0)
    kit_fail(c, "expected stdout \"out\\n\" and stderr \"err\\n\", got stdout %s and stderr %s",
             kit_quote(c, r->out, r->out_len), kit_quote(c, r->errout, r->err_len));
}

void kit_exec_stderr_not_lost(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  kit_run *r = kit_exec(c, sb, PROBE_STDERR, NULL, 0);
  if (!kit_run_ok(c, r, kit_argv_text(c, PROBE_STDERR))) return;
  int separate = (c->ctx->caps & SBIO_CAP_SEPARATE_STDERR) != 0;
  int in_err = r->err_len == 4 && memcmp(r->errout, "err\n", 4) == 0;
  int in_out = r->out_len == 4 && memcmp(r->out, "err\n", 4) == 0;
  int ok = separate ? in_err && r->out_len == 0 : in_err || in_out;
  if (!ok)
    kit_fail(c, "%s: expected \"err\\n\" on %s, got stdout %s and stderr %s", kit_argv_text(c, PROBE_STDERR),
             separate ? "stderr alone" : "stdout or stderr", kit_quote(c, r->out, r->out_len),
             kit_quote(c, r->errout, r->err_len));
  kit_note(c, "stderr arrived on %s", in_err ? "stderr" : "stdout (the backend merges the streams)");
}

/* Fails unless `env` printed var=want. */
static void expect_env(kit_case *c, const kit_run *r, const char *var, const char *want, const char *what) {
  if (!kit_run_ok(c, r, "env")) return;
  const char *got = kit_env_value(c, r->out, r->out_len, var);
  if (r->exit_code != 0 || !got || strcmp(got, want) != 0)
    kit_fail(c, "%s: expected %s=%s in the output of env, got %s (exit %d)", what, var, want,
             got ? kit_quote(c, got, strlen(got)) : "no such variable", r->exit_code);
}

void kit_exec_env_injected(kit_case *c) {
  sbio_create_options *o = kit_opts(c);
  sbio_create_options_set_env(o, CREATE_VAR, "c1");
  sbio_create_options_set_env(o, PROBE_VAR, "from-create");
  sbio_sandbox *sb = kit_create_ok(c, o, "create with env");
  if (!sb) return;
  sbio_exec_options *xo = kit_xopts(c);
  sbio_exec_options_set_env(xo, PROBE_VAR, "v1");
  kit_run *r = kit_exec(c, sb, PROBE_ENV, xo, 0);
  expect_env(c, r, PROBE_VAR, "v1", "a per-exec variable (which overrides the create-time one)");
  expect_env(c, r, CREATE_VAR, "c1", "a create-time variable");
  r = kit_exec(c, sb, PROBE_ENV, NULL, 0);
  expect_env(c, r, PROBE_VAR, "from-create", "a create-time variable, in an exec without env");
}

void kit_exec_argv_not_through_shell(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  sbio_exec_options *xo = kit_xopts(c);
  sbio_exec_options_set_env(xo, PROBE_VAR, "expanded");
  /* A shell would expand the variable, collapse the double space, strip
   * the quotes and run the second echo. */
  const char *const *argv = KIT_PROBE_ARGV("echo", "$" PROBE_VAR, "a  b", "'c'", "x;", "echo", "y");
  kit_run *r = kit_exec(c, sb, argv, xo, 0);
  kit_expect_output(c, r, kit_argv_text(c, argv), "$" PROBE_VAR " a  b 'c' x; echo y\n");
}

void kit_exec_stdin(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  static const char input[] = "hello stdin\nsecond line\n";
  sbio_exec_options *xo = kit_xopts(c);
  sbio_exec_options_set_stdin(xo, input, sizeof input - 1);
  kit_run *r = kit_exec(c, sb, PROBE_CAT_STDIN, xo, 0);
  kit_expect_output(c, r, "cat with stdin", input);
}

void kit_exec_non_positive_timeout_refused(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  static const double bad[] = {0.0, -1.0};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    sbio_exec_options *xo = kit_xopts(c);
    sbio_code set = sbio_exec_options_set_timeout(xo, bad[i]);
    if (set != SBIO_E_CONFIG)
      kit_fail(c, "sbio_exec_options_set_timeout(%g) returned %s, expected SBX_E1000", bad[i], kit_code(set));
    /* Fail closed: options whose setter was refused must not run. */
    kit_run *r = kit_exec(c, sb, PROBE_ECHO("must not run"), xo, 0);
    if (r->rc != SBIO_E_CONFIG)
      kit_fail(c, "exec with a refused timeout of %g: expected SBX_E1000, got %s", bad[i],
               r->rc == SBIO_OK ? "success" : kit_err_text(c, r->rc, r->err));
  }
}

void kit_exec_undeclared_refused(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  kit_run *r = kit_exec(c, sb, PROBE_ECHO("must not run"), NULL, 0);
  if (r->rc != SBIO_E_CAPABILITY)
    kit_fail(c, "exec without run_command: expected SBX_E1101, got %s",
             r->rc == SBIO_OK ? "success" : kit_err_text(c, r->rc, r->err));
  else if (!strstr(sbio_error_message(r->err), "run_command"))
    kit_fail(c, "the refusal does not name run_command: %s", kit_err_text(c, r->rc, r->err));
}
