/* SPDX-License-Identifier: MIT */
#include "docker_support.h"

/* cmocka's own prerequisites, before it: the assertion helpers below fail
 * the test that calls them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double dx_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int dx_in_ci(void) {
  const char *ci = getenv("CI");
  return ci && !strcmp(ci, "true");
}

int dx_copy_field(char *dst, size_t size, const char *src) {
  size_t n = strlen(src);
  if (n >= size) {
    fprintf(stderr, "FAIL: test state value too long: %.64s...\n", src);
    return 1;
  }
  memcpy(dst, src, n + 1);
  return 0;
}

int dx_env_load(dx_env *e) {
  memset(e, 0, sizeof *e);
  const char *dir = getenv("SBIO_TEST_DOCKER_STATE");
  if (!dir || !dir[0]) {
    fprintf(stderr, "SKIP: SBIO_TEST_DOCKER_STATE is not set (run through ctest, which starts the engine)\n");
    return 77;
  }
  snprintf(e->state_dir, sizeof e->state_dir, "%s", dir);
  char path[600], line[1024];
  snprintf(path, sizeof path, "%s/state", dir);
  FILE *fp = fopen(path, "r");
  if (!fp) {
    fprintf(stderr, "%s: no engine state at %s (did docker_engine_start run?)\n", dx_in_ci() ? "FAIL" : "SKIP", path);
    return dx_in_ci() ? 1 : 77;
  }
  int rc = 0;
  while (fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\n")] = '\0';
    if (!strncmp(line, "skip=", 5)) {
      fprintf(stderr, "SKIP: docker tests: %s\n", line + 5);
      rc = 77;
    } else if (!strncmp(line, "error=", 6)) {
      fprintf(stderr, "FAIL: docker tests: no engine: %s\n", line + 6);
      rc = 1;
    } else if (!strncmp(line, "host=", 5)) {
      if (dx_copy_field(e->host, sizeof e->host, line + 5) != 0) rc = 1;
    } else if (!strncmp(line, "image=", 6)) {
      if (dx_copy_field(e->image, sizeof e->image, line + 6) != 0) rc = 1;
    } else if (!strncmp(line, "image_no_timeout=", 17)) {
      if (dx_copy_field(e->image_no_timeout, sizeof e->image_no_timeout, line + 17) != 0) rc = 1;
    } else if (!strncmp(line, "runsc=", 6)) {
      e->runsc = atoi(line + 6);
    } else if (!strncmp(line, "external=", 9)) {
      e->external = atoi(line + 9);
    } else if (!strncmp(line, "registry=", 9)) {
      if (dx_copy_field(e->registry, sizeof e->registry, line + 9) != 0) rc = 1;
    } else if (!strncmp(line, "pull_image=", 11)) {
      if (dx_copy_field(e->pull_image, sizeof e->pull_image, line + 11) != 0) rc = 1;
    } else if (!strncmp(line, "registry_skip=", 14)) {
      snprintf(e->registry_skip, sizeof e->registry_skip, "%.200s", line + 14);
    }
  }
  fclose(fp);
  if (rc == 0 && strncmp(e->host, "unix://", 7) != 0) {
    fprintf(stderr, "FAIL: docker tests need a unix:// engine, got '%s'\n", e->host);
    rc = 1;
  }
  snprintf(e->socket, sizeof e->socket, "%s", e->host + (strlen(e->host) > 7 ? 7 : 0));
  return rc;
}

static void on_log(sbio_log_level level, const char *message, void *user) {
  dx_host *h = user;
  (void)level;
  char **p = realloc(h->log, (h->n_log + 1) * sizeof *p);
  if (!p) return;
  h->log = p;
  h->log[h->n_log++] = strdup(message);
}

int dx_log_contains(const dx_host *h, const char *needle) {
  for (size_t i = 0; i < h->n_log; i++)
    if (h->log[i] && strstr(h->log[i], needle)) return 1;
  return 0;
}

int dx_open(dx_host *h, const dx_env *e, const char *runtime, const char *extra) {
  return dx_open_audited(h, e, runtime, extra, NULL, NULL);
}

int dx_open_audited(dx_host *h, const dx_env *e, const char *runtime, const char *extra, sbio_audit_fn audit,
                    void *audit_user) {
  memset(h, 0, sizeof *h);
  snprintf(h->dir, sizeof h->dir, "/tmp/sbio-dxt-XXXXXX");
  if (!mkdtemp(h->dir)) return -1;
  snprintf(h->config, sizeof h->config, "%s/config.yaml", h->dir);
  FILE *fp = fopen(h->config, "w");
  if (!fp) return -1;
  fprintf(fp, "backends:\n  docker:\n    settings:\n      host: %s\n      image: %s\n", e->host, e->image);
  /* Never pull unless the caller's extra lines choose (a duplicate key is
   * refused). */
  if (!extra || !strstr(extra, "pull:")) fputs("      pull: never\n", fp);
  if (runtime) fprintf(fp, "      runtime: %s\n", runtime);
  if (extra) fputs(extra, fp);
  fclose(fp);
  sbio_host_options *o = sbio_host_options_new();
  sbio_host_options_set_config_file(o, h->config);
  sbio_host_options_set_log_callback(o, on_log, h);
  if (audit) sbio_host_options_add_audit_callback(o, audit, audit_user);
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_host_open(o, &h->host, err);
  if (rc != SBIO_OK) fprintf(stderr, "host open failed: %s\n", sbio_error_message(err));
  sbio_error_free(err);
  sbio_host_options_free(o);
  return rc == SBIO_OK ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

void dx_close(dx_host *h) {
  sbio_host_close(h->host);
  h->host = NULL;
  for (size_t i = 0; i < h->n_log; i++) free(h->log[i]);
  free(h->log);
  h->log = NULL;
  h->n_log = 0;
  if (h->dir[0]) nftw(h->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

typedef struct body {
  char *data;
  size_t len;
} body;

static size_t on_body(char *data, size_t size, size_t n, void *user) {
  body *b = user;
  char *p = realloc(b->data, b->len + size * n + 1);
  if (!p) return 0;
  b->data = p;
  memcpy(b->data + b->len, data, size * n);
  b->len += size * n;
  b->data[b->len] = '\0';
  return size * n;
}

char *dx_api(const dx_env *e, const char *method, const char *path, const char *json, long *status) {
  CURL *h = curl_easy_init();
  body b = {0};
  char url[2048];
  snprintf(url, sizeof url, "http://localhost%s", path);
  struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
  curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, e->socket);
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
  curl_easy_setopt(h, CURLOPT_TIMEOUT, 60L);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
  if (json) curl_easy_setopt(h, CURLOPT_POSTFIELDS, json);
  *status = 0;
  if (curl_easy_perform(h) == CURLE_OK) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
  curl_slist_free_all(hdr);
  curl_easy_cleanup(h);
  if (!b.data) b.data = calloc(1, 1);
  return b.data;
}

cJSON *dx_inspect(const dx_env *e, const char *id) {
  char path[256];
  long status;
  snprintf(path, sizeof path, "/containers/%s/json", id);
  char *text = dx_api(e, "GET", path, NULL, &status);
  cJSON *root = status == 200 ? cJSON_Parse(text) : NULL;
  free(text);
  return root;
}

cJSON *dx_list_containers(const dx_env *e, const char *label, const char *status) {
  char filter[512] = "", path[1024];
  if (label && status)
    snprintf(filter, sizeof filter, "{\"label\":[\"%s\"],\"status\":[\"%s\"]}", label, status);
  else if (label)
    snprintf(filter, sizeof filter, "{\"label\":[\"%s\"]}", label);
  else if (status)
    snprintf(filter, sizeof filter, "{\"status\":[\"%s\"]}", status);
  if (filter[0]) {
    CURL *h = curl_easy_init();
    char *esc = h ? curl_easy_escape(h, filter, 0) : NULL;
    snprintf(path, sizeof path, "/containers/json?all=1&filters=%s", esc ? esc : "");
    curl_free(esc);
    curl_easy_cleanup(h);
    if (!esc) return NULL; /* unfiltered, the answer would count the wrong containers */
  } else {
    snprintf(path, sizeof path, "/containers/json?all=1");
  }
  long status_code;
  char *text = dx_api(e, "GET", path, NULL, &status_code);
  cJSON *root = status_code == 200 ? cJSON_Parse(text) : NULL;
  free(text);
  if (!cJSON_IsArray(root)) {
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}

int dx_count_containers(const dx_env *e, const char *label) {
  cJSON *root = dx_list_containers(e, label, NULL);
  int n = root ? cJSON_GetArraySize(root) : -1;
  cJSON_Delete(root);
  return n;
}

const cJSON *dx_path(const cJSON *root, const char *a, const char *b) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(root, a);
  return b && x ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

double dx_num(const cJSON *root, const char *a, const char *b) {
  const cJSON *v = dx_path(root, a, b);
  if (!cJSON_IsNumber(v)) fprintf(stderr, "FAIL: %s%s%s is not a number\n", a, b ? "." : "", b ? b : "");
  assert_true(cJSON_IsNumber(v));
  return v->valuedouble;
}

const char *dx_str(const cJSON *root, const char *a, const char *b) {
  const cJSON *v = dx_path(root, a, b);
  if (!cJSON_IsString(v)) fprintf(stderr, "FAIL: %s%s%s is not a string\n", a, b ? "." : "", b ? b : "");
  assert_true(cJSON_IsString(v));
  return v->valuestring;
}

const char *dx_label(const cJSON *c, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(dx_path(c, "Config", "Labels"), key);
  return cJSON_IsString(v) ? v->valuestring : "(absent)";
}

/* The one string of a HostConfig list (CapDrop, SecurityOpt): exactly one
 * entry, so an added capability or a dropped option fails too. */
static void assert_only_entry(const cJSON *c, const char *list, const char *want) {
  const cJSON *arr = dx_path(c, "HostConfig", list);
  if (cJSON_GetArraySize(arr) != 1)
    fprintf(stderr, "FAIL: HostConfig.%s has %d entries, not 1\n", list, cJSON_GetArraySize(arr));
  assert_int_equal(cJSON_GetArraySize(arr), 1);
  const cJSON *v = cJSON_GetArrayItem(arr, 0);
  assert_true(cJSON_IsString(v));
  assert_string_equal(v->valuestring, want);
}

void dx_assert_hardened(const cJSON *c, const char *runtime, int timeout_s, const char *session) {
  assert_non_null(c);
  /* A failure below names a line of this file: say whose check it is. */
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "Id");
  fprintf(stderr, "hardening of %.12s (%s):\n", cJSON_IsString(id) ? id->valuestring : "?", runtime);
  assert_string_equal(dx_str(c, "HostConfig", "NetworkMode"), "none");
  assert_only_entry(c, "CapDrop", "ALL");
  assert_only_entry(c, "SecurityOpt", "no-new-privileges");
  assert_true(dx_num(c, "HostConfig", "PidsLimit") == 512);
  assert_true(dx_num(c, "HostConfig", "Memory") == 512.0 * 1048576);
  assert_true(dx_num(c, "HostConfig", "MemorySwap") == 512.0 * 1048576); /* = Memory: no swap */
  assert_true(dx_num(c, "HostConfig", "NanoCpus") == 1e9);
  assert_true(cJSON_IsTrue(dx_path(c, "HostConfig", "Init")));
  assert_true(cJSON_IsTrue(dx_path(c, "HostConfig", "AutoRemove")));
  assert_string_equal(dx_str(c, "HostConfig", "Runtime"), runtime);
  assert_string_equal(dx_label(c, "io.sandboxio.managed"), "true");
  char timeout[32];
  snprintf(timeout, sizeof timeout, "%d", timeout_s);
  assert_string_equal(dx_label(c, "io.sandboxio.timeout"), timeout);
  if (session)
    assert_string_equal(dx_label(c, "io.sandboxio.session"), session);
  else
    assert_true(strcmp(dx_label(c, "io.sandboxio.session"), "(absent)") != 0 &&
                strlen(dx_label(c, "io.sandboxio.session")) > 0);
}

void dx_out_cb(sbio_stream stream, const char *data, size_t len, void *user) {
  dx_out *o = user;
  int s = stream == SBIO_STDERR ? 2 : 1;
  o->total[s] += len;
  if (o->keep && o->len[s] >= o->keep) return;
  size_t k = o->keep && len > o->keep - o->len[s] ? o->keep - o->len[s] : len;
  char *p = realloc(o->data[s], o->len[s] + k + 1);
  if (!p) abort();
  o->data[s] = p;
  memcpy(p + o->len[s], data, k);
  o->len[s] += k;
  p[o->len[s]] = '\0';
}

void dx_out_free(dx_out *o) {
  for (int i = 0; i < 3; i++) free(o->data[i]);
  memset(o, 0, sizeof *o);
}

sbio_code dx_sh(sbio_sandbox *sb, const char *script, double timeout_s, int *exit_code, char **out, sbio_error *err) {
  sbio_exec_options *o = sbio_exec_options_new();
  if (timeout_s > 0) sbio_exec_options_set_timeout(o, timeout_s);
  sbio_exec_result *r = NULL;
  sbio_code rc = sbio_sandbox_exec_shell(sb, script, o, &r, err);
  if (exit_code) *exit_code = r ? sbio_exec_result_exit_code(r) : -1;
  if (out) {
    size_t len = 0;
    const char *s = r ? sbio_exec_result_stdout(r, &len) : "";
    *out = strdup(s ? s : "");
  }
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  return rc;
}

sbio_sandbox *dx_create(dx_host *h, const sbio_create_options *o) {
  sbio_sandbox *sb = NULL;
  sbio_error *err = sbio_error_new();
  if (sbio_sandbox_create(h->host, "docker://", o, &sb, err) != SBIO_OK)
    fprintf(stderr, "create failed: [%s] %s (hint: %s)\n", sbio_code_name(sbio_error_code(err)),
            sbio_error_message(err), sbio_error_hint(err));
  sbio_error_free(err);
  return sb;
}

static void *canceller_main(void *p) {
  dx_canceller *c = p;
  /* Counted in sleeps, not read off a clock: the suite also runs under
   * libfaketime. */
  for (long i = 0; i < (long)(c->wait_s * 100); i++) {
    /* The call's own thread writes total[1] (dx_out_cb). */
    if (__atomic_load_n(&c->out.total[1], __ATOMIC_SEQ_CST) > 0) {
      c->saw_output = 1;
      break;
    }
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  sbio_cancel_request(c->token);
  return NULL;
}

int dx_canceller_start(dx_canceller *c, sbio_exec_options *o, double wait_s) {
  memset(c, 0, sizeof *c);
  c->token = sbio_cancel_new();
  c->wait_s = wait_s;
  if (!c->token) return -1;
  sbio_exec_options_set_output_callback(o, dx_out_cb, &c->out);
  sbio_exec_options_set_cancel(o, c->token);
  return pthread_create(&c->thread, NULL, canceller_main, c) == 0 ? 0 : -1;
}

int dx_canceller_join(dx_canceller *c) {
  pthread_join(c->thread, NULL);
  return c->saw_output;
}

void dx_canceller_free(dx_canceller *c) {
  sbio_cancel_free(c->token);
  c->token = NULL;
  dx_out_free(&c->out);
}

pid_t dx_spawn_quiet(const char *const argv[]) {
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execv(argv[0], (char *const *)argv); /* execv does not write them */
    _exit(127);
  }
  return pid;
}
