/* SPDX-License-Identifier: MIT */
/* The fake backend, driven through its ABI exactly as the core drives a
 * backend: dlopen the built sbio-backend-fake.so, take its operations table
 * from sbio_backend_entry_v1 and call it with a host services table and
 * per-call contexts built here. */
// clang-format off
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
// clang-format on

#include <dlfcn.h>
#include <pthread.h>
#include <sandboxio/backend.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SECRET "s3cr3t-value-42"

static const sbio_backend_ops *ops;
static void *dl_handle;
static atomic_int cancel_flag;
/* ABI 1.3: this exec alone was cancelled (cancel_flag is set with it). */
static atomic_int exec_cancel_flag;
/* When set, the output callback cancels the exec (1.3 style) on seeing
 * "started": a cancellation that lands while the command runs, without
 * depending on timing. */
static atomic_int cancel_when_started;

/* ------------------------------------------------------------ host side */
static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t host_monotonic(void *data) {
  (void)data;
  return now_ns();
}

static void host_log(void *data, int level, const char *message) {
  (void)data, (void)level, (void)message;
}

/* Replaces SECRET by "***", as the core's redaction would. */
static char *host_redact(void *data, const char *text) {
  (void)data;
  char *out = malloc(strlen(text) + 1);
  if (!out) return NULL;
  size_t o = 0;
  for (const char *p = text; *p;) {
    if (strncmp(p, SECRET, strlen(SECRET)) == 0) {
      memcpy(out + o, "***", 3);
      o += 3;
      p += strlen(SECRET);
    } else {
      out[o++] = *p++;
    }
  }
  out[o] = '\0';
  return out;
}

static void host_free(void *data, char *text) {
  (void)data;
  free(text);
}

static const sbio_host_services host = {
    sizeof(sbio_host_services), NULL, host_log, host_monotonic, host_redact, host_free, NULL};

static int call_cancelled(const sbio_bk_call *call) {
  (void)call;
  return atomic_load(&cancel_flag);
}

static int call_exec_cancelled(const sbio_bk_call *call) {
  (void)call;
  return atomic_load(&exec_cancel_flag);
}

static sbio_bk_call make_call(double seconds) {
  sbio_bk_call c = {sizeof c, now_ns() + (int64_t)(seconds * 1e9), &host, NULL, call_cancelled, call_exec_cancelled};
  return c;
}

/* -------------------------------------------------------------- helpers */
static void *open_fake(const char *settings) {
  void *inst = NULL;
  sbio_bk_error err = {.size = sizeof err};
  int rc = ops->open(&host, settings, &inst, &err);
  if (rc != SBIO_OK) fail_msg("open failed: %d %s", rc, err.message);
  assert_non_null(inst);
  return inst;
}

static int open_error(const char *settings, sbio_bk_error *err) {
  void *inst = NULL;
  memset(err, 0, sizeof *err);
  err->size = sizeof *err;
  int rc = ops->open(&host, settings, &inst, err);
  assert_null(inst);
  return rc;
}

typedef struct create_opts {
  const sbio_bk_kv *env;
  size_t n_env;
  const sbio_bk_kv *secrets;
  size_t n_secrets;
  const sbio_bk_kv *labels;
  size_t n_labels;
  int egress;
  const char *const *allow;
  size_t n_allow;
  const char *gpu;
} create_opts;

static sbio_bk_create_req make_req(const create_opts *o) {
  sbio_bk_create_req req = {.size = sizeof req, .timeout_s = 300};
  if (o) {
    req.env = o->env;
    req.n_env = o->n_env;
    req.secrets = o->secrets;
    req.n_secrets = o->n_secrets;
    req.labels = o->labels;
    req.n_labels = o->n_labels;
    req.egress = o->egress;
    req.allow = o->allow;
    req.n_allow = o->n_allow;
    req.gpu = o->gpu;
  }
  return req;
}

static int try_create(void *inst, const create_opts *o, double timeout, void **sb, sbio_bk_sandbox_info *info,
                      sbio_bk_error *err) {
  sbio_bk_create_req req = make_req(o);
  sbio_bk_call call = make_call(timeout);
  memset(info, 0, sizeof *info);
  info->size = sizeof *info;
  memset(err, 0, sizeof *err);
  err->size = sizeof *err;
  return ops->create(inst, &req, &call, sb, info, err);
}

static void *create_sb(void *inst, const create_opts *o) {
  void *sb = NULL;
  sbio_bk_sandbox_info info;
  sbio_bk_error err;
  int rc = try_create(inst, o, 10, &sb, &info, &err);
  if (rc != SBIO_OK) fail_msg("create failed: %d %s", rc, err.message);
  assert_non_null(sb);
  assert_string_equal(info.mechanism, "none");
  return sb;
}

typedef struct chunk {
  int stream;
  char text[64];
  int64_t at_ns;
} chunk;

typedef struct capture {
  char out[8192];
  size_t out_len;
  char err[8192];
  size_t err_len;
  chunk chunks[64];
  size_t n_chunks;
  size_t total_chunks;
} capture;

static void on_output(void *user, int stream, const char *data, size_t len) {
  capture *c = user;
  if (atomic_load(&cancel_when_started) && len >= 7 && memcmp(data, "started", 7) == 0) {
    atomic_store(&exec_cancel_flag, 1);
    atomic_store(&cancel_flag, 1);
  }
  char *buf = stream == 1 ? c->out : c->err;
  size_t *blen = stream == 1 ? &c->out_len : &c->err_len;
  size_t room = sizeof c->out - 1 - *blen;
  size_t n = len < room ? len : room;
  memcpy(buf + *blen, data, n);
  *blen += n;
  buf[*blen] = '\0';
  if (c->n_chunks < sizeof c->chunks / sizeof *c->chunks) {
    chunk *k = &c->chunks[c->n_chunks++];
    k->stream = stream;
    snprintf(k->text, sizeof k->text, "%.*s", (int)(len < 63 ? len : 63), data);
    k->at_ns = now_ns();
  }
  c->total_chunks++;
}

typedef struct exec_in {
  const char *shell;
  const char *const *argv;
  size_t argc;
  const sbio_bk_kv *env;
  size_t n_env;
  const char *cwd;
  const char *stdin_text;
  double timeout;
} exec_in;

static int run(void *sb, const exec_in *in, capture *cap, int *exit_code, sbio_bk_error *err) {
  memset(cap, 0, sizeof *cap);
  memset(err, 0, sizeof *err);
  err->size = sizeof *err;
  sbio_bk_exec_req req = {.size = sizeof req,
                          .argv = in->argv,
                          .argc = in->argc,
                          .shell = in->shell,
                          .env = in->env,
                          .n_env = in->n_env,
                          .cwd = in->cwd,
                          .has_stdin = in->stdin_text != NULL,
                          .stdin_data = (const unsigned char *)in->stdin_text,
                          .stdin_len = in->stdin_text ? strlen(in->stdin_text) : 0,
                          .output = on_output,
                          .output_user = cap};
  sbio_bk_call call = make_call(in->timeout > 0 ? in->timeout : 10);
  return ops->exec(sb, &req, &call, exit_code, err);
}

/* Runs a shell string that must succeed at the ABI level. */
static int sh(void *sb, const char *script, capture *cap) {
  exec_in in = {.shell = script};
  int code = -1;
  sbio_bk_error err;
  int rc = run(sb, &in, cap, &code, &err);
  if (rc != SBIO_OK) fail_msg("exec '%s' failed: %d %s", script, rc, err.message);
  return code;
}

static int argv_run(void *sb, const char *const *argv, size_t argc, capture *cap) {
  exec_in in = {.argv = argv, .argc = argc};
  int code = -1;
  sbio_bk_error err;
  int rc = run(sb, &in, cap, &code, &err);
  if (rc != SBIO_OK) fail_msg("exec argv failed: %d %s", rc, err.message);
  return code;
}

static capture *cap_new(void) {
  capture *c = calloc(1, sizeof *c);
  assert_non_null(c);
  return c;
}

typedef struct bytes {
  unsigned char data[4096];
  size_t len;
} bytes;

static int sink(void *user, const void *data, size_t len) {
  bytes *b = user;
  if (b->len + len > sizeof b->data) return 1;
  memcpy(b->data + b->len, data, len);
  b->len += len;
  return 0;
}

static int fread_(void *sb, const char *path, bytes *out, sbio_bk_error *err) {
  memset(out, 0, sizeof *out);
  memset(err, 0, sizeof *err);
  sbio_bk_call call = make_call(5);
  return ops->file_read(sb, path, &call, sink, out, err);
}

static int fwrite_(void *sb, const char *path, const void *data, size_t len, sbio_bk_error *err) {
  memset(err, 0, sizeof *err);
  sbio_bk_call call = make_call(5);
  return ops->file_write(sb, path, data, len, &call, err);
}

static int fmkdir(void *sb, const char *path, int parents, sbio_bk_error *err) {
  memset(err, 0, sizeof *err);
  sbio_bk_call call = make_call(5);
  return ops->file_mkdir(sb, path, parents, &call, err);
}

static int fremove(void *sb, const char *path, sbio_bk_error *err) {
  memset(err, 0, sizeof *err);
  sbio_bk_call call = make_call(5);
  return ops->file_remove(sb, path, &call, err);
}

typedef struct listing {
  char text[2048]; /* "path:bytes:dir|" per entry */
  size_t n;
} listing;

static void on_entry(void *user, const sbio_bk_dirent *e) {
  listing *l = user;
  size_t len = strlen(l->text);
  snprintf(l->text + len, sizeof l->text - len, "%s:%s:%lld:%d|", e->name, e->path, (long long)e->bytes, e->is_dir);
  l->n++;
}

static int flist(void *sb, const char *path, listing *l, sbio_bk_error *err) {
  memset(l, 0, sizeof *l);
  memset(err, 0, sizeof *err);
  sbio_bk_call call = make_call(5);
  return ops->file_list(sb, path, &call, on_entry, l, err);
}

static int kill_sb(void *sb, double timeout, sbio_bk_error *err) {
  memset(err, 0, sizeof *err);
  sbio_bk_call call = make_call(timeout);
  return ops->kill(sb, &call, err);
}

static double seconds_since(int64_t start) {
  return (double)(now_ns() - start) / 1e9;
}

/* ---------------------------------------------------------------- setup */
static int group_setup(void **state) {
  (void)state;
  dl_handle = dlopen(SBIO_TEST_BACKEND_DIR "/sbio-backend-fake.so", RTLD_NOW | RTLD_LOCAL);
  if (!dl_handle) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return -1;
  }
  sbio_backend_entry_fn entry;
  *(void **)&entry = dlsym(dl_handle, SBIO_BACKEND_ENTRY_SYMBOL);
  if (!entry) return -1;
  ops = entry();
  return ops ? 0 : -1;
}

static int group_teardown(void **state) {
  (void)state;
  if (dl_handle) dlclose(dl_handle);
  return 0;
}

static int reset(void **state) {
  (void)state;
  atomic_store(&cancel_flag, 0);
  atomic_store(&exec_cancel_flag, 0);
  atomic_store(&cancel_when_started, 0);
  return 0;
}

/* ------------------------------------------------------------- metadata */
static void test_descriptor_and_metadata(void **state) {
  (void)state;
  assert_int_equal(ops->abi_major, SBIO_BACKEND_ABI_MAJOR);
  assert_true(ops->size >= sizeof(sbio_backend_ops));
  assert_string_equal(ops->name, "fake");
  const char *quote = "The fake backend executes nothing and isolates nothing; it reports CONTAINER so tests "
                      "exercise the tier logic.";
  assert_non_null(strstr(ops->metadata_json, quote));
  assert_non_null(strstr(ops->metadata_json, "\"tier\":\"container\""));
  const char *caps[] = {"run_command",       "streaming", "filesystem",      "upload_download", "network_policy",
                        "network_allowlist", "stdin",     "separate_stderr", "managed",         "connect"};
  for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", caps[i]);
    assert_non_null(strstr(ops->metadata_json, quoted));
  }
  assert_true(SBIO_OPS_HAS(ops, kill_managed));
  /* The page the metadata cites states the sentence verbatim. */
  FILE *f = fopen(SBIO_TEST_SOURCE_DIR "/../docs/backends/fake.md", "r");
  assert_non_null(f);
  static char doc[65536];
  size_t n = fread(doc, 1, sizeof doc - 1, f);
  fclose(f);
  doc[n] = '\0';
  assert_non_null(strstr(doc, quote));
}

/* ------------------------------------------------------------- settings */
static void test_settings_accepted(void **state) {
  (void)state;
  void *a = open_fake(NULL);
  ops->close(a);
  void *b = open_fake("{}");
  ops->close(b);
  void *c = open_fake("{\"time_scale\":0.5,\"scripts\":[{\"match\":\"x\",\"stdout\":\"y\",\"stderr\":\"z\","
                      "\"exit_code\":4,\"delay\":1,\"hang\":false,\"error\":\"exec\"}],"
                      "\"simulate\":{\"create_fails\":\"m\",\"create_takes\":1,\"kill_fails\":\"k\","
                      "\"kill_hangs\":false,\"auth_missing\":false,\"connect_fails\":\"c\"},"
                      "\"call_log\":\"/tmp/never-written\"}");
  ops->close(c);
}

static void expect_config_error(const char *settings, const char *needle) {
  sbio_bk_error err;
  int rc = open_error(settings, &err);
  assert_int_equal(rc, SBIO_E_CONFIG);
  if (!strstr(err.message, needle)) fail_msg("message '%s' does not name '%s'", err.message, needle);
}

static void test_settings_rejected(void **state) {
  (void)state;
  expect_config_error("{\"bogus\":1}", "'bogus'");
  expect_config_error("{\"time_scale\":\"fast\"}", "time_scale");
  expect_config_error("{\"time_scale\":0}", "time_scale");
  expect_config_error("{\"time_scale\":-1}", "time_scale");
  expect_config_error("{\"scripts\":{}}", "scripts");
  expect_config_error("{\"scripts\":[{\"match\":\"a\",\"exit_code\":\"1\"}]}", "scripts[0].exit_code");
  expect_config_error("{\"scripts\":[{\"match\":\"a\"},{\"match\":\"b\",\"exit_code\":256}]}", "scripts[1].exit_code");
  expect_config_error("{\"scripts\":[{\"stdout\":\"a\"}]}", "scripts[0].match");
  expect_config_error("{\"scripts\":[{\"match\":\"a\",\"colour\":1}]}", "scripts[0].colour");
  expect_config_error("{\"scripts\":[{\"match\":\"a\",\"error\":\"boom\"}]}", "scripts[0].error");
  expect_config_error("{\"scripts\":[{\"match\":\"a\",\"hang\":1}]}", "scripts[0].hang");
  expect_config_error("{\"simulate\":{\"kill_hangs\":\"yes\"}}", "simulate.kill_hangs");
  expect_config_error("{\"simulate\":{\"explode\":true}}", "simulate.explode");
  expect_config_error("{\"simulate\":[]}", "simulate");
  expect_config_error("{\"call_log\":\"relative.log\"}", "call_log");
  expect_config_error("{\"call_log\":5}", "call_log");
  expect_config_error("{\"time_scale\":1,\"time_scale\":2}", "time_scale");
  expect_config_error("[1,2]", "object");
  expect_config_error("{\"time_scale\":", "JSON");
  expect_config_error("{} trailing", "JSON");
}

/* ------------------------------------------------------- plan and create */
static void test_plan_and_create(void **state) {
  (void)state;
  void *inst = open_fake(NULL);
  sbio_bk_create_req req = make_req(NULL);
  char mech[64] = "";
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(ops->plan(inst, &req, mech, sizeof mech, &err), SBIO_OK);
  assert_string_equal(mech, "none");
  create_opts gpu = {.gpu = "a100"};
  req = make_req(&gpu);
  assert_int_equal(ops->plan(inst, &req, mech, sizeof mech, &err), SBIO_E_CAPABILITY);
  assert_non_null(strstr(err.message, "GPU"));
  void *sb = NULL;
  sbio_bk_sandbox_info info;
  assert_int_equal(try_create(inst, &gpu, 5, &sb, &info, &err), SBIO_E_CAPABILITY);
  assert_null(sb);
  assert_int_equal(try_create(inst, NULL, 5, &sb, &info, &err), SBIO_OK);
  assert_string_equal(info.id, "fake-0001");
  assert_string_equal(info.mechanism, "none");
  void *sb2 = NULL;
  assert_int_equal(try_create(inst, NULL, 5, &sb2, &info, &err), SBIO_OK);
  assert_string_equal(info.id, "fake-0002");
  ops->release(sb);
  ops->release(sb2);
  ops->close(inst);
}

/* ------------------------------------------------------------------ exec */
static void test_exec_argv(void **state) {
  (void)state;
  const sbio_bk_kv env[] = {{"X", "from-env"}};
  create_opts o = {.env = env, .n_env = 1};
  void *inst = open_fake(NULL);
  void *sb = create_sb(inst, &o);
  capture *c = cap_new();
  const char *echo[] = {"echo", "hello", "world"};
  assert_int_equal(argv_run(sb, echo, 3, c), 0);
  assert_string_equal(c->out, "hello world\n");
  assert_string_equal(c->err, "");
  /* argv mode never expands or interprets anything */
  const char *noexp[] = {"echo", "$X", "${X}", "a;b", ">", "f", "&&", "false"};
  assert_int_equal(argv_run(sb, noexp, 8, c), 0);
  assert_string_equal(c->out, "$X ${X} a;b > f && false\n");
  const char *n[] = {"echo", "-n", "no newline"};
  assert_int_equal(argv_run(sb, n, 3, c), 0);
  assert_string_equal(c->out, "no newline");
  const char *missing[] = {"frobnicate", "--now"};
  assert_int_equal(argv_run(sb, missing, 2, c), 127);
  assert_string_equal(c->err, "fake: command not found: frobnicate\n");
  const char *f[] = {"false"};
  assert_int_equal(argv_run(sb, f, 1, c), 1);
  const char *t[] = {"/bin/true"};
  assert_int_equal(argv_run(sb, t, 1, c), 0);
  const char *ex[] = {"exit", "42"};
  assert_int_equal(argv_run(sb, ex, 2, c), 42);
  const char *shc[] = {"sh", "-c", "echo $X; exit 5"};
  assert_int_equal(argv_run(sb, shc, 3, c), 5);
  assert_string_equal(c->out, "from-env\n");
  const char *bashc[] = {"bash", "-lc", "echo ${X}-b"};
  assert_int_equal(argv_run(sb, bashc, 3, c), 0);
  assert_string_equal(c->out, "from-env-b\n");
  /* no argv and no shell string is a misuse */
  exec_in bad = {.argv = NULL, .argc = 0};
  int code;
  sbio_bk_error err;
  assert_int_equal(run(sb, &bad, c, &code, &err), SBIO_E_INVALID_ARGUMENT);
  free(c);
  ops->release(sb);
  ops->close(inst);
}

static void test_exec_shell_language(void **state) {
  (void)state;
  void *inst = open_fake(NULL);
  void *sb = create_sb(inst, NULL);
  capture *c = cap_new();
  assert_int_equal(sh(sb, "X=hi; echo $X ${X} \"$X\" '$X'", c), 0);
  assert_string_equal(c->out, "hi hi hi $X\n");
  /* ; continues after a failure, like sh */
  assert_int_equal(sh(sb, "echo a; false; echo b", c), 0);
  assert_string_equal(c->out, "a\nb\n");
  assert_int_equal(sh(sb, "echo a; false", c), 1);
  /* && and || short-circuit, grouped left to right */
  assert_int_equal(sh(sb, "false && echo no || echo yes", c), 0);
  assert_string_equal(c->out, "yes\n");
  assert_int_equal(sh(sb, "true || echo no && echo yes", c), 0);
  assert_string_equal(c->out, "yes\n");
  assert_int_equal(sh(sb, "true && false && echo no", c), 1);
  assert_string_equal(c->out, "");
  /* redirects: stdout to stderr */
  assert_int_equal(sh(sb, "echo to-err >&2; echo to-err-too 1>&2; echo out", c), 0);
  assert_string_equal(c->err, "to-err\nto-err-too\n");
  assert_string_equal(c->out, "out\n");
  assert_int_equal(sh(sb, "nosuch 2>&1", c), 127);
  assert_string_equal(c->out, "fake: command not found: nosuch\n");
  assert_int_equal(sh(sb, "nosuch 2>/dev/null", c), 127);
  assert_string_equal(c->err, "");
  /* exit N ends the script */
  assert_int_equal(sh(sb, "echo before; exit 3; echo after", c), 3);
  assert_string_equal(c->out, "before\n");
  assert_int_equal(sh(sb, "false; echo $?", c), 0);
  assert_string_equal(c->out, "1\n");
  assert_int_equal(sh(sb, "nosuch-cmd", c), 127);
  assert_string_equal(c->err, "fake: command not found: nosuch-cmd\n");
  /* quoting and escapes */
  assert_int_equal(sh(sb, "echo \"a  b\" 'c  d' e\\ f \"q\\\"q\" \"\" end", c), 0);
  assert_string_equal(c->out, "a  b c  d e f q\"q  end\n");
  assert_int_equal(sh(sb, "echo one # a comment\necho two", c), 0);
  assert_string_equal(c->out, "one\ntwo\n");
  /* a variable set for one command only */
  assert_int_equal(sh(sb, "Y=once printenv Y; printenv Y", c), 1);
  assert_string_equal(c->out, "once\n");
  /* syntax errors run nothing at all */
  assert_int_equal(sh(sb, "echo first; echo \"unterminated", c), 2);
  assert_string_equal(c->out, "");
  assert_non_null(strstr(c->err, "syntax error"));
  assert_int_equal(sh(sb, "echo a | cat", c), 2);
  assert_non_null(strstr(c->err, "pipes"));
  assert_int_equal(sh(sb, "echo $(id)", c), 2);
  /* nested shells keep their variables and exit to themselves */
  assert_int_equal(sh(sb, "sh -c 'Z=inner; exit 4'; echo \"[$Z] $?\"", c), 0);
  assert_string_equal(c->out, "[] 4\n");
  /* seq, test, cd, pwd */
  assert_int_equal(sh(sb, "seq 3; seq 5 7; seq 10 -5 0", c), 0);
  assert_string_equal(c->out, "1\n2\n3\n5\n6\n7\n10\n5\n0\n");
  assert_int_equal(sh(sb, "pwd; cd /tmp && pwd; cd /nowhere; pwd", c), 0);
  assert_string_equal(c->out, "/work\n/tmp\n/tmp\n");
  assert_int_equal(sh(sb, "test -d /work && [ -e /tmp ] && test ! -f /work && [ a = a ] && test 3 -lt 4", c), 0);
  assert_int_equal(sh(sb, "test -f /nope", c), 1);
  free(c);
  ops->release(sb);
  ops->close(inst);
}

static void test_exec_env_and_stdin(void **state) {
  (void)state;
  const sbio_bk_kv env[] = {{"B", "create-b"}, {"A", "create-a"}, {"TOKEN", "from-env"}};
  const sbio_bk_kv secrets[] = {{"TOKEN", SECRET}};
  create_opts o = {.env = env, .n_env = 3, .secrets = secrets, .n_secrets = 1};
  void *inst = open_fake(NULL);
  void *sb = create_sb(inst, &o);
  capture *c = cap_new();
  const sbio_bk_kv call_env[] = {{"B", "call-b"}, {"C", "call-c"}};
  exec_in in = {.shell = "printenv B; printenv TOKEN; printenv C; printenv", .env = call_env, .n_env = 2};
  int code;
  sbio_bk_error err;
  assert_int_equal(run(sb, &in, c, &code, &err), SBIO_OK);
  assert_int_equal(code, 0);
  /* secrets win over env, the call's env over the sandbox's; printenv sorts */
  assert_string_equal(c->out, "call-b\n" SECRET "\ncall-c\nA=create-a\nB=call-b\nC=call-c\nTOKEN=" SECRET "\n");
  assert_int_equal(sh(sb, "printenv NOPE", c), 1);
  assert_int_equal(sh(sb, "env | true", c), 2); /* pipes unsupported */
  assert_int_equal(sh(sb, "env", c), 0);
  assert_non_null(strstr(c->out, "A=create-a\n"));
  assert_int_equal(sh(sb, "env -i ONLY=1 printenv", c), 0);
  assert_string_equal(c->out, "ONLY=1\n");
  /* cat with no operands echoes stdin, once */
  exec_in cat = {.shell = "cat; cat", .stdin_text = "line one\nline two\n"};
  assert_int_equal(run(sb, &cat, c, &code, &err), SBIO_OK);
  assert_int_equal(code, 0);
  assert_string_equal(c->out, "line one\nline two\n");
  const char *argv_cat[] = {"cat"};
  exec_in cat2 = {.argv = argv_cat, .argc = 1, .stdin_text = "x"};
  assert_int_equal(run(sb, &cat2, c, &code, &err), SBIO_OK);
  assert_string_equal(c->out, "x");
  /* `sh` with no script reads it from stdin */
  const char *argv_sh[] = {"sh"};
  exec_in sh_stdin = {.argv = argv_sh, .argc = 1, .stdin_text = "echo from-stdin; exit 6"};
  assert_int_equal(run(sb, &sh_stdin, c, &code, &err), SBIO_OK);
  assert_int_equal(code, 6);
  assert_string_equal(c->out, "from-stdin\n");
  free(c);
  ops->release(sb);
  ops->close(inst);
}

static void test_exec_files_and_cwd(void **state) {
  (void)state;
  void *inst = open_fake(NULL);
  void *sb = create_sb(inst, NULL);
  capture *c = cap_new();
  assert_int_equal(sh(sb, "echo hi > f.txt; echo more >> f.txt; cat f.txt /work/f.txt", c), 0);
  assert_string_equal(c->out, "hi\nmore\nhi\nmore\n");
  assert_int_equal(sh(sb, "echo replaced > f.txt; cat ./f.txt", c), 0);
  assert_string_equal(c->out, "replaced\n");
  assert_int_equal(sh(sb, "cat missing.txt", c), 1);
  assert_string_equal(c->err, "cat: missing.txt: No such file or directory\n");
  assert_int_equal(sh(sb, "echo x > /nodir/f", c), 1);
  assert_non_null(strstr(c->err, "cannot create /nodir/f"));
  assert_int_equal(sh(sb, "nosuch > err.txt 2>&1; cat err.txt", c), 0);
  assert_string_equal(c->out, "fake: command not found: nosuch\n");
  assert_int_equal(sh(sb, "mkdir -p a/b/c && mkdir d && ls; ls a", c), 0);
  assert_string_equal(c->out, "a\nd\nerr.txt\nf.txt\nb\n");
  assert_int_equal(sh(sb, "mkdir d", c), 1);
  assert_non_null(strstr(c->err, "File exists"));
  assert_int_equal(sh(sb, "rm a", c), 1);
  assert_non_null(strstr(c->err, "Is a directory"));
  assert_int_equal(sh(sb, "rm -rf a && rm -f nothing && rm f.txt && ls", c), 0);
  assert_string_equal(c->out, "d\nerr.txt\n");
  assert_int_equal(sh(sb, "rm -rf /work", c), 1);
  assert_int_equal(sh(sb, "rm -rf /", c), 1);
  assert_int_equal(sh(sb, "ls /nope", c), 2);
  /* cwd: relative paths of cat follow it */
  assert_int_equal(sh(sb, "echo in-tmp > /tmp/t", c), 0);
  exec_in in = {.shell = "cat t; pwd", .cwd = "/tmp"};
  int code;
  sbio_bk_error err;
  assert_int_equal(run(sb, &in, c, &code, &err), SBIO_OK);
  assert_string_equal(c->out, "in-tmp\n/tmp\n");
  exec_in rel = {.shell = "pwd", .cwd = "d"};
  assert_int_equal(run(sb, &rel, c, &code, &err), SBIO_OK);
  assert_string_equal(c->out, "/work/d\n");
  exec_in nodir = {.shell = "pwd", .cwd = "/does/not/exist"};
  assert_int_equal(run(sb, &nodir, c, &code, &err), SBIO_E_EXEC);
  assert_non_null(strstr(err.message, "/does/not/exist"));
  free(c);
  ops->release(sb);
  ops->close(inst);
}

static void test_exec_network(void **state) {
  (void)state;
  void *inst = open_fake(NULL);
  const char *allow[] = {"api.example.com", "*.allowed.org", "10.1.0.0/16"};
  create_opts deny = {.allow = allow, .n_allow = 3};
  void *sb = create_sb(inst, &deny);
  capture *c = cap_new();
  assert_int_equal(sh(sb, "curl -s --max-time 5 https://evil.example.net/x", c), 7);
  assert_string_equal(c->err, "curl: (7) Failed to connect to evil.example.net: egress denied by policy\n");
  assert_int_equal(sh(sb, "curl --max-time 5 -H 'A: b' https://user@API.example.com:8443/v1?q=1", c), 0);
  assert_string_equal(c->out, "OK\n");
  assert_int_equal(sh(sb, "wget -q -O out.html http://deep.sub.allowed.org/", c), 0);
  assert_int_equal(sh(sb, "curl http://allowed.org/", c), 7); /* *.x does not match x itself */
  assert_int_equal(sh(sb, "curl 10.1.2.3", c), 0);
  assert_int_equal(sh(sb, "curl http://10.2.0.1/", c), 7);
  assert_int_equal(sh(sb, "curl -s", c), 2);
  ops->release(sb);
  create_opts open_net = {.egress = 1};
  sb = create_sb(inst, &open_net);
  assert_int_equal(sh(sb, "curl https://anything.example/", c), 0);
  assert_string_equal(c->out, "OK\n");
  free(c);
  ops->release(sb);
  ops->close(inst);
}

/* ------------------------------------------------ streaming and time */
static void test_streaming_order_and_chunks(void **state) {
  (void)state;
  void *inst = open_fake("{\"time_scale\":0.002}");
  void *sb = create_sb(inst, NULL);
  capture *c = cap_new();
  assert_int_equal(sh(sb, "echo a; echo b >&2; seq 2; echo \"x\ny\"", c), 0);
  assert_int_equal(c->n_chunks, 6);
  const int streams[] = {1, 2, 1, 1, 1, 1};
  const char *texts[] = {"a\n", "b\n", "1\n", "2\n", "x\n", "y\n"};
  for (size_t i = 0; i < 6; i++) {
    assert_int_equal(c->chunks[i].stream, streams[i]);
    assert_string_equal(c->chunks[i].text, texts[i]);
  }
  /* Output is delivered as produced: the first line arrives before a sleep
   * of 100 virtual seconds (0.2 s real) ends. */
  int64_t start = now_ns();
  assert_int_equal(sh(sb, "echo first; sleep 100; echo second", c), 0);
  int64_t end = now_ns();
  assert_int_equal(c->n_chunks, 2);
  assert_true(end - c->chunks[0].at_ns > 150000000LL);
  assert_true(c->chunks[1].at_ns - c->chunks[0].at_ns > 150000000LL);
  assert_true(end - start < 30000000000LL); /* scaled: unscaled, the sleep is 100 s */
  free(c);
  ops->release(sb);
  ops->close(inst);
}

static void test_virtual_sleep_is_scaled(void **state) {
  (void)state;
  void *inst = open_fake("{\"time_scale\":0.001}");
  void *sb = create_sb(inst, NULL);
  capture *c = cap_new();
  int64_t start = now_ns();
  assert_int_equal(sh(sb, "sleep 100 && echo done", c), 0); /* 100 virtual s = 0.1 s */
  double took = seconds_since(start);
  assert_true(took >= 0.09);
  assert_true(took < 30); /* scaled: unscaled, it is 100 s */
  assert_string_equal(c->out, "done\n");
  assert_int_equal(sh(sb, "sleep 1m", c), 0); /* 60 virtual s */
  assert_int_equal(sh(sb, "sleep soon", c), 1);
  assert_int_equal(sh(sb, "sleep", c), 1);
  free(c);
  ops->release(sb);
  ops->close(inst);
}

static void test_deadline_kills_command_sandbox_survives(void **state) {
  (void)state;
  void *inst = open_fake(NULL); /* 0.01: 1000 virtual s = 10 s real */
  void *sb = create_sb(inst, NULL);
  capture *c = cap_new();
  exec_in in = {.shell = "echo started; sleep 100000; echo never", .timeout = 1};
  int code = 0;
  sbio_bk_error err;
  int64_t start = now_ns();
  assert_int_equal(run(sb, &in, c, &code, &err), SBIO_E_EXEC_TIMEOUT);
  double took = seconds_since(start);
  assert_true(took >= 0.98);
  assert_true(took < 300); /* the deadline ended it: the sleep is 1000 s */
  assert_string_equal(c->out, "started\n");
  assert_non_null(strstr(err.message, "1 s deadline and was killed"));
  /* still usable */
  assert_int_equal(sh(sb, "echo ok", c), 0);
  assert_string_equal(c->out, "ok\n");
  /* argv mode, and infinite sleeps, end at the deadline too */
  const char *argv[] = {"sleep", "inf"};
  exec_in in2 = {.argv = argv, .argc = 2, .timeout = 0.1};
  assert_int_equal(run(sb, &in2, c, &code, &err), SBIO_E_EXEC_TIMEOUT);
  exec_in in3 = {.shell = "seq 1 100000000000", .timeout = 0.2};
  assert_int_equal(run(sb, &in3, c, &code, &err), SBIO_E_EXEC_TIMEOUT);
  free(c);
  ops->release(sb);
  ops->close(inst);
}

typedef struct killer {
  void *sb;
  double delay_s;
  int rc;
} killer;

static void *kill_later(void *arg) {
  killer *k = arg;
  struct timespec ts = {0, (long)(k->delay_s * 1e9)};
  nanosleep(&ts, NULL);
  sbio_bk_error err;
  k->rc = kill_sb(k->sb, 5, &err);
  return NULL;
}

static void *cancel_later(void *arg) {
  (void)arg;
  struct timespec ts = {0, 100000000L};
  nanosleep(&ts, NULL);
  atomic_store(&cancel_flag, 1);
  return NULL;
}

static void test_kill_during_exec(void **state) {
  (void)state;
  void *inst = open_fake("{\"scripts\":[{\"match\":\"stuck\",\"hang\":true}]}");
  capture *c = cap_new();
  const char *scripts[] = {"sleep 100000", "stuck forever", "echo a; sleep 100000; echo b"};
  for (size_t i = 0; i < 3; i++) {
    void *sb = create_sb(inst, NULL);
    killer k = {sb, 0.1, -1};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, kill_later, &k), 0);
    exec_in in = {.shell = scripts[i], .timeout = 30};
    int code = 0;
    sbio_bk_error err;
    int64_t start = now_ns();
    assert_int_equal(run(sb, &in, c, &code, &err), SBIO_OK);
    double took = seconds_since(start);
    pthread_join(t, NULL);
    assert_int_equal(k.rc, SBIO_OK);
    assert_int_equal(code, 137);
    assert_true(took < 15); /* the kill ended it, not the 30 s deadline */
    /* use after kill */
    assert_int_equal(run(sb, &in, c, &code, &err), SBIO_E_GONE);
    char expect[64];
    snprintf(expect, sizeof expect, "no longer exists");
    assert_non_null(strstr(err.message, expect));
    assert_non_null(strstr(err.message, "fake-000"));
    bytes b;
    assert_int_equal(fread_(sb, "x", &b, &err), SBIO_E_GONE);
    assert_int_equal(fwrite_(sb, "x", "y", 1, &err), SBIO_E_GONE);
    /* idempotent */
    assert_int_equal(kill_sb(sb, 5, &err), SBIO_OK);
    assert_int_equal(kill_sb(sb, 5, &err), SBIO_OK);
    ops->release(sb);
  }
  /* a cancelled call ends the exec like a kill */
  void *sb = create_sb(inst, NULL);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, cancel_later, NULL), 0);
  exec_in in = {.shell = "sleep 100000", .timeout = 30};
  int code = 0;
  sbio_bk_error err;
  assert_int_equal(run(sb, &in, c, &code, &err), SBIO_OK);
  pthread_join(t, NULL);
  assert_int_equal(code, 137);
  atomic_store(&cancel_flag, 0);
  assert_int_equal(sh(sb, "echo alive", c), 0); /* cancellation is not a kill */
  free(c);
  ops->release(sb);
  ops->close(inst);
}

/* What a 1.3 backend sees from an older core: a call context without
 * exec_cancelled, a table without features. The helpers must say "no",
 * whatever lies past the declared size. */
static void test_abi_1_3_members_check_the_size(void **state) {
  (void)state;
  sbio_bk_call call = make_call(1);
  atomic_store(&exec_cancel_flag, 1);
  assert_true(sbio_bk_exec_cancelled(&call));
  call.size = (uint32_t)offsetof(sbio_bk_call, exec_cancelled); /* a 1.2 core */
  assert_false(SBIO_CALL_HAS(&call, exec_cancelled));
  assert_false(sbio_bk_exec_cancelled(&call));
  call.size = sizeof call;
  call.exec_cancelled = NULL;
  assert_false(sbio_bk_exec_cancelled(&call));
  atomic_store(&exec_cancel_flag, 0);
  sbio_backend_ops old = *ops;
  old.size = (uint32_t)offsetof(sbio_backend_ops, features); /* a 1.2 table */
  assert_true(old.features & SBIO_BK_FEATURE_EXEC_CANCEL);
  assert_int_equal(SBIO_OPS_FEATURES(&old), 0);
  assert_true(ops->abi_minor >= 3); /* 1.3 or later */
}

/* ABI 1.3: a cancelled exec (exec_cancelled) ends with SBIO_E_CANCELLED,
 * its output so far delivered, and the sandbox keeps its state. */
static void test_exec_cancel_keeps_the_sandbox(void **state) {
  (void)state;
  assert_true(SBIO_OPS_FEATURES(ops) & SBIO_BK_FEATURE_EXEC_CANCEL);
  void *inst = open_fake("{\"scripts\":[{\"match\":\"stuck\",\"hang\":true}]}");
  void *sb = create_sb(inst, NULL);
  capture *c = cap_new();
  assert_int_equal(sh(sb, "echo kept > /work/state", c), 0);
  const char *scripts[] = {"echo started; sleep 100000; echo never", "echo started; seq 1 100000000000"};
  for (size_t i = 0; i < 2; i++) {
    atomic_store(&cancel_when_started, 1);
    exec_in in = {.shell = scripts[i], .timeout = 60};
    int code = 0;
    sbio_bk_error err;
    int64_t start = now_ns();
    assert_int_equal(run(sb, &in, c, &code, &err), SBIO_E_CANCELLED);
    assert_true(seconds_since(start) < 30.0); /* not the 60 s deadline */
    assert_int_equal(code, 137);
    assert_non_null(strstr(c->out, "started\n"));
    assert_null(strstr(c->out, "never"));
    assert_non_null(strstr(err.message, "cancelled"));
    atomic_store(&cancel_when_started, 0);
    atomic_store(&exec_cancel_flag, 0);
    atomic_store(&cancel_flag, 0);
    assert_int_equal(sh(sb, "cat /work/state", c), 0);
    assert_string_equal(c->out, "kept\n");
  }
  /* A scripted hang notices the cancellation too (here already requested). */
  atomic_store(&exec_cancel_flag, 1);
  atomic_store(&cancel_flag, 1);
  exec_in in = {.shell = "stuck", .timeout = 60};
  int code = 0;
  sbio_bk_error err;
  assert_int_equal(run(sb, &in, c, &code, &err), SBIO_E_CANCELLED);
  atomic_store(&exec_cancel_flag, 0);
  atomic_store(&cancel_flag, 0);
  assert_int_equal(sh(sb, "cat /work/state", c), 0);
  free(c);
  ops->release(sb);
  ops->close(inst);
}

/* ---------------------------------------------------------------- files */
static void test_files_roundtrip_and_paths(void **state) {
  (void)state;
  void *inst = open_fake(NULL);
  void *sb = create_sb(inst, NULL);
  sbio_bk_error err;
  bytes b;
  const unsigned char bin[] = {0, 1, 2, 0, 255, '\n', 0, 'x', 0};
  assert_int_equal(fwrite_(sb, "data.bin", bin, sizeof bin, &err), SBIO_OK);
  assert_int_equal(fread_(sb, "/work/data.bin", &b, &err), SBIO_OK);
  assert_int_equal(b.len, sizeof bin);
  assert_memory_equal(b.data, bin, sizeof bin);
  assert_int_equal(fread_(sb, "/work/./sub/../data.bin", &b, &err), SBIO_OK);
  assert_int_equal(b.len, sizeof bin);
  assert_int_equal(fread_(sb, "//work///data.bin", &b, &err), SBIO_OK);
  /* exec sees the same file at the same relative path */
  capture *c = cap_new();
  assert_int_equal(sh(sb, "test -f data.bin && echo yes > made-by-exec", c), 0);
  assert_int_equal(fread_(sb, "made-by-exec", &b, &err), SBIO_OK);
  assert_int_equal(b.len, 4);
  assert_memory_equal(b.data, "yes\n", 4);
  /* empty file */
  assert_int_equal(fwrite_(sb, "empty", "", 0, &err), SBIO_OK);
  assert_int_equal(fread_(sb, "empty", &b, &err), SBIO_OK);
  assert_int_equal(b.len, 0);
  /* overwrite */
  assert_int_equal(fwrite_(sb, "data.bin", "new", 3, &err), SBIO_OK);
  assert_int_equal(fread_(sb, "data.bin", &b, &err), SBIO_OK);
  assert_int_equal(b.len, 3);
  /* ".." never climbs above "/" and nothing on the host is touched */
  assert_int_equal(fwrite_(sb, "../../../../../../tmp/escape", "e", 1, &err), SBIO_OK);
  assert_int_equal(fread_(sb, "/tmp/escape", &b, &err), SBIO_OK);
  assert_int_equal(fwrite_(sb, "../../../etc/passwd", "e", 1, &err), SBIO_E_PATH_NOT_FOUND);
  assert_non_null(strstr(err.message, "/etc"));
  /* errors */
  assert_int_equal(fread_(sb, "missing", &b, &err), SBIO_E_PATH_NOT_FOUND);
  assert_string_equal(err.message, "no such file: /work/missing");
  assert_int_equal(fread_(sb, "/tmp", &b, &err), SBIO_E_FS);
  assert_int_equal(fwrite_(sb, "/nope/deeper/f", "x", 1, &err), SBIO_E_PATH_NOT_FOUND);
  assert_non_null(strstr(err.message, "/nope/deeper"));
  assert_int_equal(fwrite_(sb, "/work", "x", 1, &err), SBIO_E_FS);
  assert_int_equal(fwrite_(sb, "data.bin/child", "x", 1, &err), SBIO_E_FS);
  /* a sink that says stop */
  unsigned char big[5000];
  memset(big, 'z', sizeof big);
  assert_int_equal(fwrite_(sb, "big", big, sizeof big, &err), SBIO_OK);
  assert_int_not_equal(fread_(sb, "big", &b, &err), SBIO_OK);
  free(c);
  ops->release(sb);
  ops->close(inst);
}

static void test_files_list_mkdir_remove(void **state) {
  (void)state;
  void *inst = open_fake(NULL);
  void *sb = create_sb(inst, NULL);
  sbio_bk_error err;
  listing l;
  assert_int_equal(flist(sb, "/", &l, &err), SBIO_OK);
  assert_string_equal(l.text, "tmp:/tmp:0:1|work:/work:0:1|");
  assert_int_equal(flist(sb, ".", &l, &err), SBIO_OK);
  assert_int_equal(l.n, 0);
  assert_int_equal(fwrite_(sb, "b.txt", "12345", 5, &err), SBIO_OK);
  assert_int_equal(fwrite_(sb, "a-b", "1", 1, &err), SBIO_OK);
  assert_int_equal(fmkdir(sb, "a", 0, &err), SBIO_OK);
  assert_int_equal(fwrite_(sb, "a/inner", "xy", 2, &err), SBIO_OK);
  assert_int_equal(flist(sb, "/work", &l, &err), SBIO_OK);
  assert_string_equal(l.text, "a:/work/a:0:1|a-b:/work/a-b:1:0|b.txt:/work/b.txt:5:0|");
  assert_int_equal(flist(sb, "a", &l, &err), SBIO_OK);
  assert_string_equal(l.text, "inner:/work/a/inner:2:0|");
  assert_int_equal(flist(sb, "missing", &l, &err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(flist(sb, "b.txt", &l, &err), SBIO_E_FS);
  /* mkdir */
  assert_int_equal(fmkdir(sb, "x/y/z", 0, &err), SBIO_E_PATH_NOT_FOUND);
  assert_non_null(strstr(err.message, "/work/x/y"));
  assert_int_equal(fmkdir(sb, "x/y/z", 1, &err), SBIO_OK);
  assert_int_equal(fmkdir(sb, "x/y/z", 1, &err), SBIO_OK);
  assert_int_equal(fmkdir(sb, "x/y/z", 0, &err), SBIO_E_FS);
  assert_int_equal(fmkdir(sb, "b.txt", 1, &err), SBIO_E_FS);
  assert_int_equal(fmkdir(sb, "b.txt/sub", 1, &err), SBIO_E_FS);
  assert_int_equal(fmkdir(sb, "/", 0, &err), SBIO_E_FS);
  assert_int_equal(fmkdir(sb, "/", 1, &err), SBIO_OK);
  /* remove: a file, a tree, never / or /work */
  assert_int_equal(fremove(sb, "b.txt", &err), SBIO_OK);
  assert_int_equal(fremove(sb, "x", &err), SBIO_OK);
  assert_int_equal(fremove(sb, "a", &err), SBIO_OK);
  assert_int_equal(flist(sb, "/work", &l, &err), SBIO_OK);
  assert_string_equal(l.text, "a-b:/work/a-b:1:0|");
  assert_int_equal(fread_(sb, "a/inner", &(bytes){0}, &err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(fremove(sb, "x", &err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(fremove(sb, "/", &err), SBIO_E_FS);
  assert_int_equal(fremove(sb, "/work", &err), SBIO_E_FS);
  assert_int_equal(fremove(sb, "/work/..", &err), SBIO_E_FS);
  assert_int_equal(fremove(sb, "/tmp", &err), SBIO_OK);
  ops->release(sb);
  ops->close(inst);
}

/* -------------------------------------------------------------- scripts */
static void test_scripts(void **state) {
  (void)state;
  void *inst = open_fake("{\"time_scale\":0.002,\"scripts\":["
                         "{\"match\":\"deploy\",\"stdout\":\"one\\ntwo\\n\",\"stderr\":\"warn\\n\",\"exit_code\":3},"
                         "{\"match\":\"dep\",\"stdout\":\"second\\n\"},"
                         "{\"match\":\"slow job\",\"delay\":100,\"stdout\":\"done\\n\"},"
                         "{\"match\":\"stuck\",\"hang\":true},"
                         "{\"match\":\"pip install\",\"error\":\"network_policy\"}]}");
  void *sb = create_sb(inst, NULL);
  capture *c = cap_new();
  assert_int_equal(sh(sb, "./deploy --prod", c), 3);
  assert_string_equal(c->out, "one\ntwo\n");
  assert_string_equal(c->err, "warn\n");
  assert_int_equal(c->n_chunks, 3);
  assert_int_equal(c->chunks[2].stream, 2);
  const char *argv[] = {"dep", "x"};
  assert_int_equal(argv_run(sb, argv, 2, c), 0);
  assert_string_equal(c->out, "second\n");
  int64_t start = now_ns();
  assert_int_equal(sh(sb, "run slow job", c), 0);
  assert_true(seconds_since(start) >= 0.18);
  assert_string_equal(c->out, "done\n");
  exec_in in = {.shell = "stuck", .timeout = 0.2};
  int code;
  sbio_bk_error err;
  start = now_ns();
  assert_int_equal(run(sb, &in, c, &code, &err), SBIO_E_EXEC_TIMEOUT);
  assert_true(seconds_since(start) >= 0.19);
  exec_in pip = {.shell = "pip install requests"};
  assert_int_equal(run(sb, &pip, c, &code, &err), SBIO_E_NETWORK_POLICY);
  /* a delay longer than the deadline times out */
  exec_in slow = {.shell = "slow job", .timeout = 0.05};
  assert_int_equal(run(sb, &slow, c, &code, &err), SBIO_E_EXEC_TIMEOUT);
  /* unmatched commands still go to the virtual shell */
  assert_int_equal(sh(sb, "echo plain", c), 0);
  assert_string_equal(c->out, "plain\n");
  free(c);
  ops->release(sb);
  ops->close(inst);
}

/* ------------------------------------------------------------- simulate */
typedef struct managed_seen {
  char ids[8][32];
  char labels[8][128];
  int64_t created_at[8];
  size_t n;
} managed_seen;

static void on_managed(void *user, const sbio_bk_managed *m) {
  managed_seen *s = user;
  if (s->n >= 8) return;
  snprintf(s->ids[s->n], sizeof s->ids[0], "%s", m->id);
  s->labels[s->n][0] = '\0';
  for (size_t i = 0; i < m->n_labels; i++) {
    size_t len = strlen(s->labels[s->n]);
    snprintf(s->labels[s->n] + len, sizeof s->labels[0] - len, "%s=%s,", m->labels[i].key, m->labels[i].value);
  }
  assert_string_equal(m->state, "running");
  s->created_at[s->n] = m->created_at;
  s->n++;
}

static size_t list_managed(void *inst, const sbio_bk_kv *labels, size_t n, managed_seen *seen) {
  memset(seen, 0, sizeof *seen);
  sbio_bk_call call = make_call(5);
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(ops->list_managed(inst, labels, n, &call, on_managed, seen, &err), SBIO_OK);
  return seen->n;
}

static void test_simulated_create_failures(void **state) {
  (void)state;
  void *sb = NULL;
  sbio_bk_sandbox_info info;
  sbio_bk_error err;
  managed_seen seen;
  void *inst = open_fake("{\"simulate\":{\"create_fails\":\"quota exhausted\"}}");
  assert_int_equal(try_create(inst, NULL, 5, &sb, &info, &err), SBIO_E_CREATE);
  assert_null(sb);
  assert_non_null(strstr(err.message, "quota exhausted"));
  assert_int_equal(list_managed(inst, NULL, 0, &seen), 0);
  ops->close(inst);

  inst = open_fake("{\"simulate\":{\"auth_missing\":true}}");
  assert_int_equal(try_create(inst, NULL, 5, &sb, &info, &err), SBIO_E_AUTH);
  assert_non_null(strstr(err.message, "SBIO_FAKE_TOKEN"));
  assert_string_equal(err.hint, "export SBIO_FAKE_TOKEN=...");
  ops->close(inst);

  /* 10000 virtual s at 0.01 = 100 s real, under a 0.2 s deadline */
  inst = open_fake("{\"simulate\":{\"create_takes\":10000}}");
  int64_t start = now_ns();
  assert_int_equal(try_create(inst, NULL, 0.2, &sb, &info, &err), SBIO_E_CREATE_TIMEOUT);
  double took = seconds_since(start);
  assert_true(took >= 0.19 && took < 50); /* the deadline ended it, not the create */
  assert_null(sb);
  assert_int_equal(list_managed(inst, NULL, 0, &seen), 0);
  ops->close(inst);
  /* ... and in time under a generous deadline (100 virtual s: 1 s) */
  inst = open_fake("{\"simulate\":{\"create_takes\":100}}");
  start = now_ns();
  assert_int_equal(try_create(inst, NULL, 60, &sb, &info, &err), SBIO_OK);
  assert_true(seconds_since(start) >= 1.0);
  ops->release(sb);
  ops->close(inst);
}

static void test_simulated_kill_failures(void **state) {
  (void)state;
  sbio_bk_error err;
  managed_seen seen;
  void *inst = open_fake("{\"simulate\":{\"kill_fails\":\"provider said 500\"}}");
  void *sb = create_sb(inst, NULL);
  assert_int_equal(kill_sb(sb, 5, &err), SBIO_E_CONNECT);
  assert_non_null(strstr(err.message, "provider said 500"));
  assert_non_null(strstr(err.hint, "sbio reap"));
  /* the sandbox is still there, and reap's kill_managed finishes the job */
  assert_int_equal(list_managed(inst, NULL, 0, &seen), 1);
  sbio_bk_call call = make_call(5);
  int killed = -1;
  assert_int_equal(ops->kill_managed(inst, seen.ids[0], &call, &killed, &err), SBIO_OK);
  assert_int_equal(killed, 1);
  assert_int_equal(list_managed(inst, NULL, 0, &seen), 0);
  capture *c = cap_new();
  int code;
  exec_in in = {.shell = "true"};
  assert_int_equal(run(sb, &in, c, &code, &err), SBIO_E_GONE);
  ops->release(sb);
  ops->close(inst);

  inst = open_fake("{\"simulate\":{\"kill_hangs\":true}}");
  sb = create_sb(inst, NULL);
  int64_t start = now_ns();
  assert_int_equal(kill_sb(sb, 0.2, &err), SBIO_E_CONNECT);
  double took = seconds_since(start);
  assert_true(took >= 0.19 && took < 15); /* the deadline ended it: the kill hangs */
  assert_non_null(strstr(err.message, "did not complete before its deadline"));
  assert_non_null(strstr(err.hint, "sbio reap"));
  assert_int_equal(sh(sb, "echo still-here", c), 0);
  free(c);
  ops->release(sb);
  ops->close(inst);

  inst = open_fake("{\"simulate\":{\"connect_fails\":\"unreachable\"}}");
  sb = create_sb(inst, NULL);
  void *other = NULL;
  sbio_bk_sandbox_info info = {.size = sizeof info};
  call = make_call(5);
  assert_int_equal(ops->connect(inst, "fake-0001", &call, &other, &info, &err), SBIO_E_CONNECT);
  assert_non_null(strstr(err.message, "unreachable"));
  assert_null(other);
  ops->release(sb);
  ops->close(inst);
}

/* ------------------------------------------------------------- call log */
static char *read_text(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return strdup("");
  static char buf[16384];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return strdup(buf);
}

static void test_call_log(void **state) {
  (void)state;
  char path[] = "/tmp/sbio-fake-calllog-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  unlink(path);
  char settings[256];
  snprintf(settings, sizeof settings, "{\"call_log\":\"%s\"}", path);
  void *inst = open_fake(settings);
  /* a refused plan: create is never called, and the log shows it */
  create_opts gpu = {.gpu = "h100"};
  sbio_bk_create_req req = make_req(&gpu);
  char mech[16];
  sbio_bk_error err;
  assert_int_equal(ops->plan(inst, &req, mech, sizeof mech, &err), SBIO_E_CAPABILITY);
  char *text = read_text(path);
  assert_string_equal(text, "plan\n");
  free(text);
  const sbio_bk_kv secrets[] = {{"API_TOKEN", SECRET}};
  create_opts o = {.secrets = secrets, .n_secrets = 1};
  void *sb = create_sb(inst, &o);
  capture *c = cap_new();
  assert_int_equal(sh(sb, "echo hi", c), 0);
  assert_int_equal(sh(sb, "echo " SECRET "\necho next", c), 0);
  assert_int_equal(fwrite_(sb, "f", "x", 1, &err), SBIO_OK);
  assert_int_equal(kill_sb(sb, 5, &err), SBIO_OK);
  text = read_text(path);
  assert_string_equal(text, "plan\n"
                            "create fake-0001\n"
                            "exec fake-0001 echo hi\n"
                            "exec fake-0001 echo ***\\necho next\n"
                            "file_write fake-0001 /work/f\n"
                            "kill fake-0001\n");
  assert_null(strstr(text, SECRET));
  free(text);
  free(c);
  ops->release(sb);
  ops->close(inst);
  unlink(path);
}

/* ------------------------------------------- connect and managed sandboxes */
static void test_connect_and_managed(void **state) {
  (void)state;
  void *inst = open_fake(NULL);
  const sbio_bk_kv acme[] = {{"tenant", "acme"}, {"session", "s1"}};
  const sbio_bk_kv beta[] = {{"tenant", "beta"}};
  create_opts oa = {.labels = acme, .n_labels = 2}, ob = {.labels = beta, .n_labels = 1};
  int64_t before = (int64_t)time(NULL);
  void *a = create_sb(inst, &oa);
  void *b = create_sb(inst, &ob);
  managed_seen seen;
  assert_int_equal(list_managed(inst, NULL, 0, &seen), 2);
  assert_string_equal(seen.ids[0], "fake-0001");
  assert_string_equal(seen.ids[1], "fake-0002");
  assert_true(seen.created_at[0] >= before && seen.created_at[0] <= (int64_t)time(NULL));
  const sbio_bk_kv filter[] = {{"tenant", "acme"}};
  assert_int_equal(list_managed(inst, filter, 1, &seen), 1);
  assert_string_equal(seen.ids[0], "fake-0001");
  assert_string_equal(seen.labels[0], "session=s1,tenant=acme,");
  const sbio_bk_kv both[] = {{"tenant", "acme"}, {"session", "other"}};
  assert_int_equal(list_managed(inst, both, 2, &seen), 0);

  /* connect: a second handle onto the same sandbox */
  void *a2 = NULL;
  sbio_bk_sandbox_info info = {.size = sizeof info};
  sbio_bk_error err;
  sbio_bk_call call = make_call(5);
  assert_int_equal(ops->connect(inst, "fake-0001", &call, &a2, &info, &err), SBIO_OK);
  assert_string_equal(info.id, "fake-0001");
  assert_string_equal(info.mechanism, "none");
  assert_int_equal(fwrite_(a, "shared", "s", 1, &err), SBIO_OK);
  ops->release(a); /* the other handle keeps the sandbox */
  bytes data;
  assert_int_equal(fread_(a2, "shared", &data, &err), SBIO_OK);
  assert_int_equal(data.len, 1);
  void *none = NULL;
  assert_int_equal(ops->connect(inst, "fake-9999", &call, &none, &info, &err), SBIO_E_CONNECT);
  assert_string_equal(err.message, "no live fake sandbox with id fake-9999");
  assert_null(none);
  /* another instance has its own sandboxes */
  void *inst2 = open_fake(NULL);
  assert_int_equal(ops->connect(inst2, "fake-0001", &call, &none, &info, &err), SBIO_E_CONNECT);
  ops->close(inst2);

  int killed = -1;
  assert_int_equal(ops->kill_managed(inst, "fake-0001", &call, &killed, &err), SBIO_OK);
  assert_int_equal(killed, 1);
  assert_int_equal(ops->kill_managed(inst, "fake-0001", &call, &killed, &err), SBIO_OK);
  assert_int_equal(killed, 0);
  assert_int_equal(fread_(a2, "shared", &data, &err), SBIO_E_GONE);
  assert_int_equal(ops->connect(inst, "fake-0001", &call, &none, &info, &err), SBIO_E_CONNECT);
  assert_int_equal(list_managed(inst, NULL, 0, &seen), 1);
  ops->release(a2);
  ops->release(b);
  ops->close(inst);
}

/* A handle that outlives close: its sandbox is gone, and release is safe. */
static void test_close_with_live_handle(void **state) {
  (void)state;
  void *inst = open_fake(NULL);
  void *sb = create_sb(inst, NULL);
  ops->close(inst);
  capture *c = cap_new();
  exec_in in = {.shell = "true"};
  int code;
  sbio_bk_error err;
  assert_int_equal(run(sb, &in, c, &code, &err), SBIO_E_GONE);
  free(c);
  ops->release(sb);
}

/* --------------------------------------------------------- concurrency */
typedef struct worker {
  void *sb;
  int id;
  int failures;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  capture *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  for (int i = 0; i < 50; i++) {
    char script[128];
    snprintf(script, sizeof script, "echo %d-%d > w%d; cat w%d; mkdir -p d%d/x; rm -r d%d", w->id, i, w->id, w->id,
             w->id, w->id);
    exec_in in = {.shell = script};
    int code = -1;
    sbio_bk_error err;
    char expect[32];
    snprintf(expect, sizeof expect, "%d-%d\n", w->id, i);
    if (run(w->sb, &in, c, &code, &err) != SBIO_OK || code != 0 || strcmp(c->out, expect) != 0) w->failures++;
    char name[16];
    snprintf(name, sizeof name, "f%d", w->id);
    if (fwrite_(w->sb, name, expect, strlen(expect), &err) != SBIO_OK) w->failures++;
  }
  free(c);
  return NULL;
}

static void test_concurrent_handles(void **state) {
  (void)state;
  void *inst = open_fake(NULL);
  void *sb = create_sb(inst, NULL);
  worker w[4];
  pthread_t t[4];
  sbio_bk_call call = make_call(5);
  sbio_bk_sandbox_info info = {.size = sizeof info};
  sbio_bk_error err;
  for (int i = 0; i < 4; i++) {
    w[i] = (worker){NULL, i, 0};
    assert_int_equal(ops->connect(inst, "fake-0001", &call, &w[i].sb, &info, &err), SBIO_OK);
    assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(t[i], NULL);
    assert_int_equal(w[i].failures, 0);
    ops->release(w[i].sb);
  }
  ops->release(sb);
  ops->close(inst);
}

/* -------------------------------------------------------- robustness */
static void test_shell_survives_garbage(void **state) {
  (void)state;
  void *inst = open_fake("{\"time_scale\":0.0001}");
  void *sb = create_sb(inst, NULL);
  capture *c = cap_new();
  static const char alphabet[] = "ab$X{}()'\"\\;&|<>#=12 \n\t-*/.:echo catlsmkdirrm-rf sh -c exit seq sleep test [ ]";
  uint32_t seed = 12345;
  char script[96];
  for (int iter = 0; iter < 3000; iter++) {
    size_t len = 0;
    size_t want = (seed >> 7) % (sizeof script - 1);
    for (; len < want; len++) {
      seed = seed * 1103515245u + 12345u;
      script[len] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
    }
    script[len] = '\0';
    exec_in in = {.shell = script, .timeout = 0.5};
    int code;
    sbio_bk_error err;
    int rc = run(sb, &in, c, &code, &err);
    assert_true(rc == SBIO_OK || rc == SBIO_E_EXEC_TIMEOUT);
    if (rc == SBIO_OK) assert_true(code >= 0 && code <= 255);
  }
  static const char *const nasty[] = {
      "",
      ";;;;",
      "&&",
      "||",
      "${",
      "${}",
      "${1}",
      "$",
      "\\",
      "'",
      "\"",
      ">",
      "2>",
      "3>x",
      ">&",
      ">&3",
      "echo >",
      "echo $UNSET > ''",
      ">$UNSET",
      "#",
      "exit x",
      "exit 999",
      "seq 1 0 5",
      "seq a",
      "seq 9223372036854775807 9223372036854775807",
      "sh -c",
      "sh -c 'sh -c \"sh -c exit\"'",
      "cat /",
      "ls /work/../../..",
      "mkdir /",
      "rm",
      "test",
      "[",
      "[ ]",
      "test a b c d",
      "curl ://",
      "curl http://[::1",
      "curl -o",
      "env -z",
      "cd ''",
      "echo \\\n x",
      "x=1 y=2",
      "=",
  };
  for (size_t i = 0; i < sizeof nasty / sizeof *nasty; i++) {
    exec_in in = {.shell = nasty[i], .timeout = 0.5};
    int code;
    sbio_bk_error err;
    int rc = run(sb, &in, c, &code, &err);
    assert_true(rc == SBIO_OK || rc == SBIO_E_EXEC_TIMEOUT);
  }
  /* expansions cannot double their way through memory */
  char grow[2048] = "X=abcdefgh";
  for (int i = 0; i < 40; i++) strcat(grow, "; X=$X$X");
  strcat(grow, "; echo unreachable");
  exec_in big = {.shell = grow, .timeout = 5};
  int big_code;
  sbio_bk_error big_err;
  assert_int_equal(run(sb, &big, c, &big_code, &big_err), SBIO_OK);
  assert_int_equal(big_code, 2);
  assert_non_null(strstr(c->err, "longer than 1 MiB"));
  assert_string_equal(c->out, "");
  /* recursion is bounded: X re-runs itself through sh -c forever */
  exec_in in = {.shell = "X='sh -c \"$X\"'; sh -c \"$X\"", .timeout = 2};
  int code;
  sbio_bk_error err;
  assert_int_equal(run(sb, &in, c, &code, &err), SBIO_OK);
  assert_int_equal(code, 2);
  assert_non_null(strstr(c->err, "nested too deeply"));
  free(c);
  ops->release(sb);
  ops->close(inst);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_descriptor_and_metadata, reset),
      cmocka_unit_test_setup(test_settings_accepted, reset),
      cmocka_unit_test_setup(test_settings_rejected, reset),
      cmocka_unit_test_setup(test_plan_and_create, reset),
      cmocka_unit_test_setup(test_exec_argv, reset),
      cmocka_unit_test_setup(test_exec_shell_language, reset),
      cmocka_unit_test_setup(test_exec_env_and_stdin, reset),
      cmocka_unit_test_setup(test_exec_files_and_cwd, reset),
      cmocka_unit_test_setup(test_exec_network, reset),
      cmocka_unit_test_setup(test_streaming_order_and_chunks, reset),
      cmocka_unit_test_setup(test_virtual_sleep_is_scaled, reset),
      cmocka_unit_test_setup(test_deadline_kills_command_sandbox_survives, reset),
      cmocka_unit_test_setup(test_kill_during_exec, reset),
      cmocka_unit_test_setup(test_exec_cancel_keeps_the_sandbox, reset),
      cmocka_unit_test_setup(test_abi_1_3_members_check_the_size, reset),
      cmocka_unit_test_setup(test_files_roundtrip_and_paths, reset),
      cmocka_unit_test_setup(test_files_list_mkdir_remove, reset),
      cmocka_unit_test_setup(test_scripts, reset),
      cmocka_unit_test_setup(test_simulated_create_failures, reset),
      cmocka_unit_test_setup(test_simulated_kill_failures, reset),
      cmocka_unit_test_setup(test_call_log, reset),
      cmocka_unit_test_setup(test_connect_and_managed, reset),
      cmocka_unit_test_setup(test_close_with_live_handle, reset),
      cmocka_unit_test_setup(test_concurrent_handles, reset),
      cmocka_unit_test_setup(test_shell_survives_garbage, reset),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
