/* SPDX-License-Identifier: MIT */
/* sbio_run / sbio_run_shell on a real engine, under runc and (when the
 * engine has it) runsc: what the create/exec tests promise holds for the
 * one-call run too (output, exit codes, stdin, env, cwd, deadlines,
 * cancellation, the hardened container, the lifetime backstop, refusals
 * before anything exists, an image without `timeout`), and after every
 * run nothing of this host's session is left on the engine. The same
 * tests pass whether the core takes the create/exec fallback or the
 * backend's one-shot `run` (ABI 1.5); two tests assert the one-shot path
 * itself: the command is the container's own main process, and an image
 * without `timeout` (its backstop) is an error that says so. */
#include "docker_support.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static dx_env env;

static const char *const runtimes[] = {"runc", "runsc"};

/* runc always; runsc too when the engine has it registered. */
static size_t n_runtimes(void) {
  static int said;
  if (!env.runsc && !said++) fprintf(stderr, "NOTE: runsc is not registered with the engine: runc only\n");
  return env.runsc ? 2 : 1;
}

static void pause_s(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

/* ------------------------------------------------------ audit recorder */
/* Every audit event of one host, as lines of JSON. A run on another
 * thread writes while the test reads, hence the lock. */
typedef struct recorder {
  pthread_mutex_t mu;
  char **lines;
  size_t n;
} recorder;

static int on_audit(const char *json_line, void *user) {
  recorder *r = user;
  pthread_mutex_lock(&r->mu);
  char **p = realloc(r->lines, (r->n + 1) * sizeof *p);
  if (p) {
    r->lines = p;
    r->lines[r->n++] = strdup(json_line);
  }
  pthread_mutex_unlock(&r->mu);
  return 0;
}

/* The last event named `name`, parsed (NULL if none). */
static cJSON *rec_last(recorder *r, const char *name) {
  cJSON *found = NULL;
  pthread_mutex_lock(&r->mu);
  for (size_t i = 0; i < r->n; i++) {
    cJSON *ev = r->lines[i] ? cJSON_Parse(r->lines[i]) : NULL;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(ev, "event");
    if (cJSON_IsString(e) && !strcmp(e->valuestring, name)) {
      cJSON_Delete(found);
      found = ev;
    } else {
      cJSON_Delete(ev);
    }
  }
  pthread_mutex_unlock(&r->mu);
  return found;
}

static size_t rec_count(recorder *r, const char *name) {
  size_t n = 0;
  pthread_mutex_lock(&r->mu);
  for (size_t i = 0; i < r->n; i++) {
    cJSON *ev = r->lines[i] ? cJSON_Parse(r->lines[i]) : NULL;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(ev, "event");
    if (cJSON_IsString(e) && !strcmp(e->valuestring, name)) n++;
    cJSON_Delete(ev);
  }
  pthread_mutex_unlock(&r->mu);
  return n;
}

static const char *ev_str(const cJSON *ev, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* ------------------------------------------------------------- a host */
typedef struct rh {
  dx_host h;
  recorder rec;
  const char *runtime;
  char session[80]; /* the host's session id, from its first event */
} rh;

static void rh_open(rh *x, const char *runtime) {
  memset(x, 0, sizeof *x);
  pthread_mutex_init(&x->rec.mu, NULL);
  x->runtime = runtime;
  assert_int_equal(dx_open_audited(&x->h, &env, runtime, NULL, on_audit, &x->rec), 0);
  fprintf(stderr, "-- runtime %s\n", runtime);
}

static void rh_close(rh *x) {
  dx_close(&x->h);
  for (size_t i = 0; i < x->rec.n; i++) free(x->rec.lines[i]);
  free(x->rec.lines);
  pthread_mutex_destroy(&x->rec.mu);
}

/* The session every event of this host carries (and every container it
 * makes is labelled with). */
static const char *rh_session(rh *x) {
  if (!x->session[0]) {
    pthread_mutex_lock(&x->rec.mu);
    cJSON *ev = x->rec.n ? cJSON_Parse(x->rec.lines[0]) : NULL;
    pthread_mutex_unlock(&x->rec.mu);
    const char *s = ev_str(ev, "session");
    if (s) snprintf(x->session, sizeof x->session, "%s", s);
    cJSON_Delete(ev);
  }
  return x->session;
}

/* Nothing of this host's session is on the engine, in any state. */
static void assert_none_left(rh *x) {
  const char *s = rh_session(x);
  assert_true(strlen(s) > 0);
  char label[160];
  snprintf(label, sizeof label, "io.sandboxio.session=%s", s);
  int n = dx_count_containers(&env, label);
  if (n != 0)
    fprintf(stderr, "FAIL: %d container(s) of session %s left on the engine (runtime %s)\n", n, s, x->runtime);
  assert_int_equal(n, 0);
}

/* One run (argv, or script when argv is NULL) that must return `want`;
 * afterwards nothing of the session is left. */
static sbio_exec_result *run_want(rh *x, const char *const *argv, const char *script, const sbio_create_options *co,
                                  const sbio_exec_options *eo, sbio_code want) {
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  sbio_code rc = argv ? sbio_run(x->h.host, "docker://", co, argv, eo, &r, err)
                      : sbio_run_shell(x->h.host, "docker://", co, script, eo, &r, err);
  if (rc != want)
    fprintf(stderr, "run (%s): [%s] %s (hint: %s)\n", x->runtime, sbio_code_name(rc), sbio_error_message(err),
            sbio_error_hint(err));
  sbio_error_free(err);
  assert_int_equal(rc, want);
  assert_none_left(x);
  return r;
}

static const char *out_of(const sbio_exec_result *r) {
  size_t len;
  return sbio_exec_result_stdout(r, &len);
}

static const char *err_of(const sbio_exec_result *r) {
  size_t len;
  return sbio_exec_result_stderr(r, &len);
}

/* ------------------------------------------------------------ 1. argv */
static void test_argv_run_reports_mechanism(void **state) {
  (void)state;
  for (size_t k = 0; k < n_runtimes(); k++) {
    rh x;
    rh_open(&x, runtimes[k]);
    const char *argv[] = {"echo", "hello", "world", NULL};
    sbio_exec_result *r = run_want(&x, argv, NULL, NULL, NULL, SBIO_OK);
    assert_non_null(r);
    assert_string_equal(out_of(r), "hello world\n");
    assert_int_equal(sbio_exec_result_exit_code(r), 0);
    sbio_exec_result_free(r);
    /* Audited as for create: the mechanism and tier it really got. */
    cJSON *created = rec_last(&x.rec, "created");
    assert_non_null(created);
    assert_string_equal(ev_str(created, "mechanism"), runtimes[k]);
    assert_string_equal(ev_str(created, "tier"), k == 0 ? "CONTAINER" : "GVISOR");
    const char *id = ev_str(created, "sandbox_id");
    assert_non_null(id);
    assert_true(strlen(id) > 0);
    assert_null(dx_inspect(&env, id)); /* that container is gone */
    cJSON *exec = rec_last(&x.rec, "exec");
    assert_non_null(exec);
    assert_string_equal(ev_str(exec, "sandbox_id"), id);
    assert_int_equal(rec_count(&x.rec, "kill"), 1);
    cJSON_Delete(exec);
    cJSON_Delete(created);
    rh_close(&x);
  }
}

/* ------------------------------------------ 2. no shell; shell; streams */
static void test_argv_never_through_a_shell_and_shell_mode(void **state) {
  (void)state;
  for (size_t k = 0; k < n_runtimes(); k++) {
    rh x;
    rh_open(&x, runtimes[k]);
    const char *argv[] = {"echo", "$HOME", "a;b", NULL};
    sbio_exec_result *r = run_want(&x, argv, NULL, NULL, NULL, SBIO_OK);
    assert_string_equal(out_of(r), "$HOME a;b\n");
    sbio_exec_result_free(r);
    /* A script: stdout and stderr apart, a non-zero status is data. */
    dx_out out = {0};
    sbio_exec_options *o = sbio_exec_options_new();
    sbio_exec_options_set_output_callback(o, dx_out_cb, &out);
    r = run_want(&x, NULL, "echo out; echo err >&2; exit 3", NULL, o, SBIO_OK);
    assert_string_equal(out_of(r), "out\n");
    assert_string_equal(err_of(r), "err\n");
    assert_int_equal(sbio_exec_result_exit_code(r), 3);
    assert_string_equal(out.data[1], "out\n");
    assert_string_equal(out.data[2], "err\n");
    sbio_exec_result_free(r);
    sbio_exec_options_free(o);
    dx_out_free(&out);
    rh_close(&x);
  }
}

/* ------------------------------------------------------ 3. exit codes */
static void test_exit_codes(void **state) {
  (void)state;
  static const int codes[] = {0, 1, 42};
  for (size_t k = 0; k < n_runtimes(); k++) {
    rh x;
    rh_open(&x, runtimes[k]);
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
      char script[32];
      snprintf(script, sizeof script, "exit %d", codes[i]);
      const char *argv[] = {"sh", "-c", script, NULL};
      sbio_exec_result *r = run_want(&x, argv, NULL, NULL, NULL, SBIO_OK);
      assert_int_equal(sbio_exec_result_exit_code(r), codes[i]);
      sbio_exec_result_free(r);
    }
    rh_close(&x);
  }
}

/* ------------------------------------------------ 4. missing program */
/* As exec promises (test_docker_exec.c): not an error, but what a shell
 * makes of it: 127 and a message on stderr naming the program. */
static void test_missing_program_is_127(void **state) {
  (void)state;
  for (size_t k = 0; k < n_runtimes(); k++) {
    rh x;
    rh_open(&x, runtimes[k]);
    const char *argv[] = {"/no/such/prog", NULL};
    sbio_exec_result *r = run_want(&x, argv, NULL, NULL, NULL, SBIO_OK);
    assert_non_null(r);
    fprintf(stderr, "/no/such/prog -> %d: %s", sbio_exec_result_exit_code(r), err_of(r));
    assert_int_equal(sbio_exec_result_exit_code(r), 127);
    assert_non_null(strstr(err_of(r), "/no/such/prog"));
    sbio_exec_result_free(r);
    rh_close(&x);
  }
}

/* ------------------------------------------------------------ 5. stdin */
static void test_stdin(void **state) {
  (void)state;
  for (size_t k = 0; k < n_runtimes(); k++) {
    rh x;
    rh_open(&x, runtimes[k]);
    sbio_exec_options *o = sbio_exec_options_new();
    sbio_exec_options_set_stdin(o, "abc\n", 4);
    const char *cat[] = {"cat", NULL};
    sbio_exec_result *r = run_want(&x, cat, NULL, NULL, o, SBIO_OK);
    assert_string_equal(out_of(r), "abc\n");
    assert_int_equal(sbio_exec_result_exit_code(r), 0);
    sbio_exec_result_free(r);
    sbio_exec_options_free(o);
    rh_close(&x);
  }
}

/* ------------------------------------------------------ 6. env and cwd */
static void test_env_and_cwd(void **state) {
  (void)state;
  for (size_t k = 0; k < n_runtimes(); k++) {
    rh x;
    rh_open(&x, runtimes[k]);
    sbio_create_options *co = sbio_create_options_new();
    sbio_create_options_set_env(co, "SANDBOX_VAR", "from-create");
    sbio_create_options_set_env(co, "OVERRIDDEN", "create");
    sbio_exec_options *o = sbio_exec_options_new();
    sbio_exec_options_set_env(o, "EXEC_VAR", "from exec; with $pecial chars");
    sbio_exec_options_set_env(o, "OVERRIDDEN", "exec");
    sbio_exec_options_set_cwd(o, "/tmp");
    const char *argv[] = {"sh", "-c", "pwd; env", NULL};
    sbio_exec_result *r = run_want(&x, argv, NULL, co, o, SBIO_OK);
    const char *out = out_of(r);
    fprintf(stderr, "%s", out);
    assert_memory_equal(out, "/tmp\n", 5);
    assert_non_null(strstr(out, "SANDBOX_VAR=from-create\n"));
    assert_non_null(strstr(out, "EXEC_VAR=from exec; with $pecial chars\n"));
    assert_non_null(strstr(out, "OVERRIDDEN=exec\n"));
    sbio_exec_result_free(r);
    /* Without a cwd: the work directory. */
    const char *pwd[] = {"pwd", NULL};
    r = run_want(&x, pwd, NULL, NULL, NULL, SBIO_OK);
    assert_string_equal(out_of(r), "/work\n");
    sbio_exec_result_free(r);
    sbio_exec_options_free(o);
    sbio_create_options_free(co);
    rh_close(&x);
  }
}

/* ---------------------------------------------------- 7. large output */
static void test_large_output_exact_count(void **state) {
  (void)state;
  const size_t n = 8u << 20;
  for (size_t k = 0; k < n_runtimes(); k++) {
    rh x;
    rh_open(&x, runtimes[k]);
    dx_out out = {.keep = 4096};
    sbio_exec_options *o = sbio_exec_options_new();
    sbio_exec_options_set_output_callback(o, dx_out_cb, &out);
    const char *argv[] = {"head", "-c", "8388608", "/dev/zero", NULL};
    sbio_exec_result *r = run_want(&x, argv, NULL, NULL, o, SBIO_OK);
    assert_int_equal(sbio_exec_result_exit_code(r), 0);
    assert_int_equal(out.total[1], n);
    assert_int_equal(out.total[2], 0);
    size_t len = 0;
    sbio_exec_result_stdout(r, &len);
    assert_int_equal(len, n); /* under the default 16 MiB cap: all of it */
    assert_false(sbio_exec_result_truncated(r));
    sbio_exec_result_free(r);
    sbio_exec_options_free(o);
    dx_out_free(&out);
    rh_close(&x);
  }
}

/* --------------------------------------------------------- 8. deadline */
static void test_deadline_kills_and_removes(void **state) {
  (void)state;
  for (size_t k = 0; k < n_runtimes(); k++) {
    rh x;
    rh_open(&x, runtimes[k]);
    sbio_exec_options *o = sbio_exec_options_new();
    /* On the one-shot path the deadline also covers making and starting
     * the container, which a loaded machine (runsc under ASan) can take
     * seconds over: 8 s leaves room for that, so the command does start. */
    sbio_exec_options_set_timeout(o, 8);
    const char *argv[] = {"sleep", "60", NULL};
    double t0 = dx_now();
    sbio_exec_result *r = run_want(&x, argv, NULL, NULL, o, SBIO_E_EXEC_TIMEOUT);
    double dt = dx_now() - t0;
    fprintf(stderr, "deadline 8 s -> returned after %.2f s\n", dt);
    assert_true(dt < 30); /* the deadline ended it, not the 60 s sleep: does not hang */
    assert_non_null(r);
    assert_int_equal(sbio_exec_result_exit_code(r), 137);
    sbio_exec_result_free(r);
    cJSON *created = rec_last(&x.rec, "created");
    assert_non_null(created);
    assert_null(dx_inspect(&env, ev_str(created, "sandbox_id")));
    cJSON_Delete(created);
    sbio_exec_options_free(o);
    rh_close(&x);
  }
}

/* ----------------------------------------------------------- 9. cancel */
static void test_cancel_from_another_thread(void **state) {
  (void)state;
  for (size_t k = 0; k < n_runtimes(); k++) {
    rh x;
    rh_open(&x, runtimes[k]);
    sbio_exec_options *o = sbio_exec_options_new();
    sbio_exec_options_set_timeout(o, 120);
    /* Bounded at 60 s: the one-shot path makes and starts the container
     * before the command prints. */
    dx_canceller t;
    assert_int_equal(dx_canceller_start(&t, o, 60), 0);
    sbio_error *err = sbio_error_new();
    double t0 = dx_now();
    sbio_code rc = sbio_run_shell(x.h.host, "docker://", NULL, "echo started; sleep 60", o, NULL, err);
    double dt = dx_now() - t0;
    int saw_output = dx_canceller_join(&t);
    fprintf(stderr, "cancelled run returned after %.2f s: [%s] %s\n", dt, sbio_code_name(rc), sbio_error_message(err));
    sbio_error_free(err);
    assert_true(saw_output);
    assert_int_equal(rc, SBIO_E_CANCELLED);
    assert_true(dt < 60); /* the cancel ended it: neither the sleep nor the 120 s deadline */
    assert_none_left(&x);
    sbio_exec_options_free(o);
    dx_canceller_free(&t);
    rh_close(&x);
  }
}

/* ------------------------------------------- 10/11. the running container */
typedef struct bg_run {
  rh *x;
  sbio_create_options *co;
  sbio_exec_options *eo;
  sbio_cancel *token;
  sbio_code rc;
} bg_run;

static void *bg_main(void *p) {
  bg_run *b = p;
  const char *argv[] = {"sleep", "27", NULL};
  sbio_error *err = sbio_error_new();
  b->rc = sbio_run(b->x->h.host, "docker://", b->co, argv, b->eo, NULL, err);
  if (b->rc != SBIO_E_CANCELLED)
    fprintf(stderr, "background run: [%s] %s\n", sbio_code_name(b->rc), sbio_error_message(err));
  sbio_error_free(err);
  return NULL;
}

/* The id of the one running container labelled `label`, "" if none. */
static void running_with(const char *label, char *id, size_t size) {
  cJSON *root = dx_list_containers(&env, label, "running");
  id[0] = '\0';
  if (root && cJSON_GetArraySize(root) == 1) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(root, 0), "Id");
    if (cJSON_IsString(v)) snprintf(id, size, "%s", v->valuestring);
  }
  cJSON_Delete(root);
}

/* Starts `sleep 27` through sbio_run on another thread (sandbox timeout
 * 60), inspects its container once it runs, then cancels the run and
 * joins it. Returns the inspect (NULL if the container never ran); no
 * assertion fails while the thread runs, so it is always joined. */
static cJSON *inspect_running_run(rh *x, sbio_code *run_rc) {
  static unsigned serial;
  char value[64], label[128];
  snprintf(value, sizeof value, "%ld-%u-%s", (long)getpid(), ++serial, x->runtime);
  snprintf(label, sizeof label, "io.sandboxio.meta.dxrun=%s", value);
  bg_run b = {.x = x, .co = sbio_create_options_new(), .eo = sbio_exec_options_new(), .token = sbio_cancel_new()};
  sbio_create_options_set_timeout(b.co, 60);
  sbio_create_options_set_label(b.co, "dxrun", value);
  sbio_exec_options_set_cancel(b.eo, b.token);
  pthread_t t;
  cJSON *c = NULL;
  if (pthread_create(&t, NULL, bg_main, &b) == 0) {
    char id[128] = "";
    for (double end = dx_now() + 60; !id[0] && dx_now() < end;) {
      running_with(label, id, sizeof id);
      if (!id[0]) pause_s(0.1);
    }
    if (id[0]) c = dx_inspect(&env, id);
    sbio_cancel_request(b.token);
    pthread_join(t, NULL);
  } else {
    b.rc = SBIO_E_INTERNAL;
  }
  *run_rc = b.rc;
  sbio_cancel_free(b.token);
  sbio_exec_options_free(b.eo);
  sbio_create_options_free(b.co);
  return c;
}

/* The same hardened container as create makes (test_docker_isolation.c). */
static void test_hardening_of_the_run_container(void **state) {
  (void)state;
  for (size_t k = 0; k < n_runtimes(); k++) {
    rh x;
    rh_open(&x, runtimes[k]);
    sbio_code rc;
    cJSON *c = inspect_running_run(&x, &rc);
    assert_non_null(c); /* its container ran */
    assert_int_equal(rc, SBIO_E_CANCELLED);
    assert_none_left(&x);
    dx_assert_hardened(c, runtimes[k], 60, rh_session(&x));
    cJSON_Delete(c);
    rh_close(&x);
  }
}

/* Entrypoint and Cmd as one readable list, for the failure message. */
static void command_line(const cJSON *c, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  const char *parts[] = {"Entrypoint", "Cmd"};
  for (size_t p = 0; p < 2; p++) {
    used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "%s%s [", p ? " " : "", parts[p]);
    const cJSON *arr = dx_path(c, "Config", parts[p]);
    for (const cJSON *v = cJSON_IsArray(arr) ? arr->child : NULL; v && used < size; v = v->next)
      used += (size_t)snprintf(buf + used, size - used, "%s\"%s\"", v == arr->child ? "" : " ",
                               cJSON_IsString(v) ? v->valuestring : "?");
    if (used < size) used += (size_t)snprintf(buf + used, size - used, "]");
  }
}

/* Whether Entrypoint+Cmd hold "sleep" then "27" (or one word "sleep 27",
 * if the backend wraps the command in a script). */
static int runs_the_command(const cJSON *c) {
  const char *prev = "";
  const char *parts[] = {"Entrypoint", "Cmd"};
  for (size_t p = 0; p < 2; p++) {
    const cJSON *arr = dx_path(c, "Config", parts[p]);
    for (const cJSON *v = cJSON_IsArray(arr) ? arr->child : NULL; v; v = v->next) {
      if (!cJSON_IsString(v)) continue;
      if ((!strcmp(prev, "sleep") && !strcmp(v->valuestring, "27")) || strstr(v->valuestring, "sleep 27")) return 1;
      prev = v->valuestring;
    }
  }
  return 0;
}

/* ONE-SHOT: the command is the container's own main process (under the
 * backstop), not an exec into an idle `sleep <timeout+1>` container. */
static void test_one_shot_command_is_the_main_process(void **state) {
  (void)state;
  /* Every runtime is looked at before failing, so the message says which
   * took which path. */
  char why[1024] = "";
  for (size_t k = 0; k < n_runtimes(); k++) {
    rh x;
    rh_open(&x, runtimes[k]);
    sbio_code rc;
    cJSON *c = inspect_running_run(&x, &rc);
    assert_non_null(c);
    assert_int_equal(rc, SBIO_E_CANCELLED);
    assert_none_left(&x);
    char cmd[400];
    command_line(c, cmd, sizeof cmd);
    fprintf(stderr, "%s: container runs %s\n", runtimes[k], cmd);
    if (!runs_the_command(c)) {
      size_t used = strlen(why);
      snprintf(why + used, sizeof why - used, "%sunder %s the container's main process is %s", used ? "; " : "",
               runtimes[k], cmd);
    }
    cJSON_Delete(c);
    rh_close(&x);
  }
  if (why[0]) fail_msg("sbio_run took the create/exec path: %s, not the command (\"sleep\" \"27\")", why);
}

/* ------------------------------------ 12. lifetime backstop after kill -9 */
/* --timeout is the sandbox's lifetime and the command's deadline; a few
 * seconds, but enough for create on a busy machine (it is create's
 * deadline too). */
#define BACKSTOP_TIMEOUT_S 5

static void test_lifetime_backstop_after_kill_9(void **state) {
  (void)state;
  for (size_t k = 0; k < n_runtimes(); k++) {
    dx_host h;
    assert_int_equal(dx_open(&h, &env, runtimes[k], NULL), 0);
    char value[64], label[128], label_arg[96], timeout[16];
    snprintf(value, sizeof value, "k9run-%ld-%s", (long)getpid(), runtimes[k]);
    snprintf(label, sizeof label, "io.sandboxio.meta.run=%s", value);
    snprintf(label_arg, sizeof label_arg, "run=%s", value);
    snprintf(timeout, sizeof timeout, "%d", BACKSTOP_TIMEOUT_S);
    const char *argv[] = {DX_SBIO, "--config", h.config,  "run", "--backend", "docker", "--timeout",
                          timeout, "--label",  label_arg, "--",  "sleep",     "60",     NULL};
    pid_t pid = dx_spawn_quiet(argv);
    assert_true(pid >= 0);
    /* Once its container runs, sbio dies without a chance to clean up. */
    char id[128] = "";
    for (double end = dx_now() + 60; !id[0] && dx_now() < end;) {
      running_with(label, id, sizeof id);
      if (!id[0]) pause_s(0.05);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    double killed = dx_now();
    fprintf(stderr, "%s: container %.12s ran; sbio killed\n", runtimes[k], id[0] ? id : "(none)");
    assert_true(id[0] != '\0');
    int gone = 0;
    while (!gone && dx_now() < killed + BACKSTOP_TIMEOUT_S + 20) {
      gone = dx_count_containers(&env, label) == 0;
      if (!gone) pause_s(0.2);
    }
    fprintf(stderr, "%s: gone %.1f s after the kill\n", runtimes[k], dx_now() - killed);
    assert_true(gone);
    dx_close(&h);
  }
}

/* ------------------------------------------ 13. refused before anything */
/* The engine's own clock (unix seconds, from /info SystemTime), -1 when
 * unknown. Event times are the engine's: this process's clock may be
 * another (the suite also runs under libfaketime, which a Go dockerd
 * does not follow). */
static long engine_now(void) {
  long code;
  char *text = dx_api(&env, "GET", "/info", NULL, &code);
  cJSON *root = code == 200 && text ? cJSON_Parse(text) : NULL;
  free(text);
  const cJSON *t = root ? cJSON_GetObjectItemCaseSensitive(root, "SystemTime") : NULL;
  struct tm tm = {0};
  long now = -1;
  if (cJSON_IsString(t) && sscanf(t->valuestring, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec) == 6) {
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    now = (long)timegm(&tm); /* the time as written; its offset, if any, below */
    const char *zone = strpbrk(t->valuestring + 19, "Z+-");
    int zh = 0, zm = 0;
    if (zone && *zone != 'Z' && sscanf(zone + 1, "%d:%d", &zh, &zm) == 2)
      now -= (*zone == '+' ? 1 : -1) * (zh * 3600L + zm * 60L);
  }
  cJSON_Delete(root);
  return now;
}

/* Engine events "create" of containers labelled `label` between two
 * times (the engine's unix seconds): whether a container ever existed,
 * even briefly. */
static int created_events(const char *label, long since, long until) {
  char filter[512], path[1024];
  snprintf(filter, sizeof filter, "{\"type\":[\"container\"],\"event\":[\"create\"],\"label\":[\"%s\"]}", label);
  CURL *h = curl_easy_init();
  char *esc = h ? curl_easy_escape(h, filter, 0) : NULL;
  snprintf(path, sizeof path, "/events?since=%ld&until=%ld&filters=%s", since, until, esc ? esc : "");
  curl_free(esc);
  curl_easy_cleanup(h);
  long code;
  char *text = dx_api(&env, "GET", path, NULL, &code);
  int n = code == 200 ? 0 : -1;
  for (const char *p = text; n >= 0 && (p = strstr(p, "\"Action\":\"create\"")); p++) n++;
  free(text);
  return n;
}

static void refused(rh *x, const sbio_create_options *co, sbio_code want) {
  const char *argv[] = {"echo", "never", NULL};
  sbio_exec_result *r = NULL;
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_run(x->h.host, "docker://", co, argv, NULL, &r, err);
  fprintf(stderr, "refused (%s): [%s] %s\n", x->runtime, sbio_code_name(rc), sbio_error_message(err));
  sbio_error_free(err);
  assert_int_equal(rc, want);
  assert_null(r);
}

static void test_refused_before_anything_exists(void **state) {
  (void)state;
  for (size_t k = 0; k < n_runtimes(); k++) {
    rh x;
    rh_open(&x, runtimes[k]);
    char value[64], label[128];
    snprintf(value, sizeof value, "refuse-%ld-%s", (long)getpid(), runtimes[k]);
    snprintf(label, sizeof label, "io.sandboxio.meta.dxrun=%s", value);
    long since = engine_now() - 1;
    assert_true(since > 0);
    int before = dx_count_containers(&env, NULL);
    assert_true(before >= 0);
    sbio_create_options *o = sbio_create_options_new();
    sbio_create_options_set_label(o, "dxrun", value);
    if (k == 0) { /* gVisor is more than runc gives */
      sbio_create_options_require_isolation(o, SBIO_TIER_GVISOR);
      refused(&x, o, SBIO_E_CONFIG);
      assert_int_equal(rec_count(&x.rec, "created"), 0);
      sbio_create_options_free(o);
      o = sbio_create_options_new();
      sbio_create_options_set_label(o, "dxrun", value);
    }
    /* An egress allow-list docker cannot enforce. */
    sbio_create_options_allow_host(o, "pypi.org");
    refused(&x, o, SBIO_E_CAPABILITY);
    assert_int_equal(rec_count(&x.rec, "created"), 0);
    assert_int_equal(rec_count(&x.rec, "exec"), 0);
    assert_int_equal(dx_count_containers(&env, NULL), before);
    int n = created_events(label, since, engine_now() + 1);
    assert_int_equal(n, 0); /* none existed, not even for a moment */
    /* The check sees a container that did exist: the same label, allowed. */
    sbio_create_options_free(o);
    o = sbio_create_options_new();
    sbio_create_options_set_label(o, "dxrun", value);
    sbio_create_options_require_isolation(o, SBIO_TIER_CONTAINER);
    const char *argv[] = {"true", NULL};
    sbio_exec_result_free(run_want(&x, argv, NULL, o, NULL, SBIO_OK));
    assert_int_equal(created_events(label, since, engine_now() + 1), 1);
    sbio_create_options_free(o);
    rh_close(&x);
  }
}

/* ---------------------------------------- 14. an image without timeout */
/* The one-shot container runs the command under the image's `timeout`
 * (the lifetime backstop). An image without one cannot run it: that is
 * SBX_E1201 naming `timeout`, not the 127 of a missing command (docker's
 * init says "exec timeout failed" and exits 127), and nothing is left. */
static void test_image_without_timeout_is_an_error(void **state) {
  (void)state;
  /* engine.sh always imports it: its absence is the harness's fault. */
  assert_true(env.image_no_timeout[0] != '\0');
  char target[200];
  snprintf(target, sizeof target, "docker://%s", env.image_no_timeout);
  for (size_t k = 0; k < n_runtimes(); k++) {
    rh x;
    rh_open(&x, runtimes[k]);
    int before = dx_count_containers(&env, NULL);
    assert_true(before >= 0);
    const char *argv[] = {"echo", "never", NULL};
    sbio_exec_result *r = NULL;
    sbio_error *err = sbio_error_new();
    sbio_code rc = sbio_run(x.h.host, target, NULL, argv, NULL, &r, err);
    fprintf(stderr, "%s on %s: [%s] %s (hint: %s)\n", runtimes[k], env.image_no_timeout,
            sbio_code_name(sbio_error_code(err)), sbio_error_message(err), sbio_error_hint(err));
    assert_int_equal(rc, SBIO_E_CREATE);
    assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1201");
    assert_non_null(strstr(sbio_error_message(err), "no `timeout`"));
    /* The command never ran: no output of its, whatever result there is. */
    if (r) assert_null(strstr(out_of(r), "never"));
    sbio_exec_result_free(r);
    sbio_error_free(err);
    /* The container was made (the error comes from its start): it is gone. */
    assert_int_equal(rec_count(&x.rec, "created"), 1);
    assert_none_left(&x);
    assert_int_equal(dx_count_containers(&env, NULL), before);
    rh_close(&x);
  }
}

int main(void) {
  int rc = dx_env_load(&env);
  if (rc) return rc;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_argv_run_reports_mechanism),
      cmocka_unit_test(test_argv_never_through_a_shell_and_shell_mode),
      cmocka_unit_test(test_exit_codes),
      cmocka_unit_test(test_missing_program_is_127),
      cmocka_unit_test(test_stdin),
      cmocka_unit_test(test_env_and_cwd),
      cmocka_unit_test(test_large_output_exact_count),
      cmocka_unit_test(test_deadline_kills_and_removes),
      cmocka_unit_test(test_cancel_from_another_thread),
      cmocka_unit_test(test_hardening_of_the_run_container),
      cmocka_unit_test(test_one_shot_command_is_the_main_process),
      cmocka_unit_test(test_lifetime_backstop_after_kill_9),
      cmocka_unit_test(test_refused_before_anything_exists),
      cmocka_unit_test(test_image_without_timeout_is_an_error),
  };
  return cmocka_run_group_tests_name("docker_run", tests, NULL, NULL);
}
