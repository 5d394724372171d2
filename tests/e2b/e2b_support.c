/* SPDX-License-Identifier: MIT */
#include "e2b_support.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *const E2B_TEST_KEY = "e2b_5ca1ab1ec0ffee0ddba11f00d5eed5ca1ab1e";

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------ emulator */
int emu_start(emu *e, const char *envd_version) {
  memset(e, 0, sizeof *e);
  snprintf(e->dir, sizeof e->dir, "/tmp/sbio-e2b-XXXXXX");
  if (!mkdtemp(e->dir)) return -1;
  char port_file[300];
  snprintf(port_file, sizeof port_file, "%s/ports", e->dir);
  char parent[24];
  snprintf(parent, sizeof parent, "%ld", (long)getpid());
  setenv("E2B_EMU_API_KEY", E2B_TEST_KEY, 1);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const char *args[12];
    int n = 0;
    args[n++] = E2B_PYTHON;
    args[n++] = E2B_EMULATOR;
    args[n++] = "--port-file";
    args[n++] = port_file;
    args[n++] = "--parent-pid";
    args[n++] = parent;
    args[n++] = "--idle-timeout";
    args[n++] = "600";
    if (envd_version) {
      args[n++] = "--envd-version";
      args[n++] = envd_version;
    }
    args[n] = NULL;
    execv(E2B_PYTHON, (char *const *)args);
    _exit(127);
  }
  e->pid = pid;
  for (int i = 0; i < 400; i++) {
    FILE *fp = fopen(port_file, "r");
    if (fp) {
      int api = 0, sbx = 0;
      int got = fscanf(fp, "%d %d", &api, &sbx);
      fclose(fp);
      if (got == 2) {
        snprintf(e->api_url, sizeof e->api_url, "http://127.0.0.1:%d", api);
        snprintf(e->sandbox_url, sizeof e->sandbox_url, "http://127.0.0.1:%d", sbx);
        return 0;
      }
    }
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      e->pid = 0;
      return -1;
    }
    sleep_ms(50);
  }
  return -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

void emu_stop(emu *e) {
  if (e->pid > 0) {
    free(emu_admin(e, "POST", "shutdown", NULL));
    int status;
    for (int i = 0; i < 100 && waitpid(e->pid, &status, WNOHANG) == 0; i++) sleep_ms(50);
    if (waitpid(e->pid, &status, WNOHANG) == 0) {
      kill(e->pid, SIGKILL);
      waitpid(e->pid, &status, 0);
    }
    e->pid = 0;
  }
  /* Only ever our own mkdtemp directory. */
  if (strncmp(e->dir, "/tmp/sbio-e2b-", 14) == 0) nftw(e->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  e->dir[0] = '\0';
}

typedef struct {
  char *data;
  size_t len;
} buf;

static size_t on_data(char *p, size_t size, size_t n, void *user) {
  buf *b = user;
  char *q = realloc(b->data, b->len + size * n + 1);
  if (!q) return 0;
  b->data = q;
  memcpy(b->data + b->len, p, size * n);
  b->len += size * n;
  b->data[b->len] = '\0';
  return size * n;
}

char *emu_admin(const emu *e, const char *method, const char *path, const char *body) {
  CURL *h = curl_easy_init();
  if (!h) return NULL;
  char url[256];
  snprintf(url, sizeof url, "%s/__emu__/%s", e->api_url, path);
  buf b = {0};
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT, 20L);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
  if (body) curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
  CURLcode rc = curl_easy_perform(h);
  curl_easy_cleanup(h);
  if (rc != CURLE_OK) {
    free(b.data);
    return NULL;
  }
  return b.data ? b.data : strdup("");
}

void emu_fault(const emu *e, const char *rule_json) {
  free(emu_admin(e, "POST", "faults", rule_json));
}

void emu_config(const emu *e, const char *config_json) {
  free(emu_admin(e, "POST", "config", config_json));
}

static cJSON *admin_json(const emu *e, const char *path) {
  char *text = emu_admin(e, "GET", path, NULL);
  cJSON *j = text ? cJSON_Parse(text) : NULL;
  free(text);
  return j;
}

int emu_live(const emu *e) {
  cJSON *j = admin_json(e, "state");
  const cJSON *live = cJSON_GetObjectItemCaseSensitive(j, "live");
  int n = cJSON_IsNumber(live) ? live->valueint : -1;
  cJSON_Delete(j);
  return n;
}

int emu_count(const emu *e, const char *method, const char *path_part) {
  cJSON *j = admin_json(e, "requests");
  const cJSON *reqs = cJSON_GetObjectItemCaseSensitive(j, "requests"), *r;
  int n = 0;
  cJSON_ArrayForEach(r, reqs) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(r, "method");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "path");
    if (cJSON_IsString(m) && cJSON_IsString(p) && strcmp(m->valuestring, method) == 0 &&
        strstr(p->valuestring, path_part))
      n++;
  }
  cJSON_Delete(j);
  return n;
}

int emu_violations(const emu *e) {
  cJSON *j = admin_json(e, "violations");
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "violations");
  int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
  if (n > 0) {
    char *text = cJSON_Print(v);
    fprintf(stderr, "emulator violations: %s\n", text);
    free(text);
  }
  cJSON_Delete(j);
  return n;
}

void emu_clear_log(const emu *e) {
  free(emu_admin(e, "DELETE", "requests", NULL));
}

/* ---------------------------------------------------------------- hosts */
sbio_host *fx_host(fx *f, const char *name, const char *config_text, sbt_lines *log) {
  char path[400];
  if (sbt_write_file(f->emu.dir, name, config_text, path, sizeof path) != 0) return NULL;
  sbio_host *host = NULL;
  sbt_host_open(path, log, NULL, &host, NULL);
  return host;
}

int fx_open(fx *f, const char *envd_version, const char *settings_extra, const char *top_extra) {
  memset(f, 0, sizeof *f);
  setenv("E2B_API_KEY", E2B_TEST_KEY, 1);
  unsetenv("E2B_API_URL");
  unsetenv("E2B_SANDBOX_URL");
  unsetenv("E2B_DOMAIN");
  if (emu_start(&f->emu, envd_version) != 0) return -1;
  snprintf(f->config, sizeof f->config, "%s/config.yaml", f->emu.dir);
  snprintf(f->audit_path, sizeof f->audit_path, "%s/audit.jsonl", f->emu.dir);
  FILE *fp = fopen(f->config, "w");
  if (!fp) return -1;
  fprintf(fp, "audit:\n  path: %s\n", f->audit_path);
  if (top_extra) fputs(top_extra, fp);
  fprintf(fp,
          "backends:\n  e2b:\n    settings:\n      api_url: %s\n      sandbox_url: %s\n"
          "      retry_backoff: 0.01\n      retry_backoff_max: 0.05\n      connect_timeout: 5\n"
          "      request_timeout: 20\n",
          f->emu.api_url, f->emu.sandbox_url);
  if (settings_extra) fputs(settings_extra, fp);
  fclose(fp);
  return sbt_host_open(f->config, &f->log, &f->audit, &f->host, NULL) == SBIO_OK ? 0 : -1;
}

void fx_close(fx *f) {
  sbio_host_close(f->host); /* destroys whatever the test left */
  f->host = NULL;
  int live = f->emu.pid ? emu_live(&f->emu) : 0;
  if (live != 0) fprintf(stderr, "LEAK: %d sandbox(es) left in the emulator\n", live);
  emu_stop(&f->emu);
  sbt_lines_free(&f->audit);
  sbt_lines_free(&f->log);
  if (live != 0) abort(); /* fails the test visibly, even from a teardown */
}
