/* SPDX-License-Identifier: MIT */
#include "dt_support.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *dt_emulator_url(void) {
  static char url[256];
  if (url[0]) return url;
  const char *dir = getenv("SBIO_DT_EMU_DIR");
  char path[512];
  snprintf(path, sizeof path, "%s/url", dir ? dir : ".");
  FILE *fp = fopen(path, "r");
  if (!fp) fail_msg("no emulator URL in %s: is the daytona_emulator_start fixture running?", path);
  if (!fgets(url, sizeof url, fp)) url[0] = '\0';
  fclose(fp);
  url[strcspn(url, "\r\n")] = '\0';
  assert_true(strncmp(url, "http://127.0.0.1:", 17) == 0);
  return url;
}

/* ------------------------------------------------------------ raw HTTP */
typedef struct {
  char *data;
  size_t len;
} buf;

static size_t on_data(char *p, size_t size, size_t n, void *user) {
  buf *b = user;
  char *q = realloc(b->data, b->len + size * n + 1);
  assert_non_null(q);
  memcpy(q + b->len, p, size * n);
  b->len += size * n;
  q[b->len] = '\0';
  b->data = q;
  return size * n;
}

static long http(const char *method, const char *url, const char *key, const char *json, char **body) {
  CURL *c = curl_easy_init();
  assert_non_null(c);
  buf b = {0};
  struct curl_slist *h = NULL;
  char auth[200];
  if (key) {
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", key);
    h = curl_slist_append(h, auth);
  }
  if (json) h = curl_slist_append(h, "Content-Type: application/json");
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
  if (json) curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
  CURLcode rc = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(h);
  curl_easy_cleanup(c);
  if (rc != CURLE_OK) fail_msg("%s %s: %s", method, url, curl_easy_strerror(rc));
  if (body)
    *body = b.data ? b.data : strdup("");
  else
    free(b.data);
  return status;
}

long dtf_api(dtf *f, const char *method, const char *path, const char *json, char **body) {
  char url[600];
  snprintf(url, sizeof url, "%s/api%s", f->url, path);
  return http(method, url, f->key, json, body);
}

char *dtf_raw_sandbox(dtf *f, const char *labels_json) {
  char json[1024], *body = NULL;
  snprintf(json, sizeof json, "{\"labels\":%s}", labels_json);
  long st = dtf_api(f, "POST", "/sandbox", json, &body);
  if (st != 200) fail_msg("raw create answered %ld: %s", st, body);
  cJSON *doc = cJSON_Parse(body);
  char *id = strdup(cJSON_GetObjectItem(doc, "id")->valuestring);
  cJSON_Delete(doc);
  free(body);
  return id;
}

void dtf_org(dtf *f, const char *json) {
  cJSON *doc = cJSON_Parse(json);
  assert_non_null(doc);
  cJSON_AddStringToObject(doc, "apiKey", f->key);
  char *text = cJSON_PrintUnformatted(doc);
  cJSON_Delete(doc);
  char url[400], *answer = NULL;
  snprintf(url, sizeof url, "%s/_emulator/org", f->url);
  long st = http("POST", url, NULL, text, &answer);
  if (st != 200) fail_msg("emulator refused org settings %s: %s", text, answer);
  free(text);
  free(answer);
}

cJSON *dtf_requests(dtf *f) {
  char url[400], *answer = NULL;
  snprintf(url, sizeof url, "%s/_emulator/requests?apiKey=%s", f->url, f->key);
  assert_int_equal(http("GET", url, NULL, NULL, &answer), 200);
  cJSON *doc = cJSON_Parse(answer);
  free(answer);
  assert_true(cJSON_IsArray(doc));
  return doc;
}

size_t dtf_rejected(dtf *f) {
  char url[400], *answer = NULL;
  snprintf(url, sizeof url, "%s/_emulator/rejected", f->url);
  assert_int_equal(http("GET", url, NULL, NULL, &answer), 200);
  cJSON *doc = cJSON_Parse(answer);
  free(answer);
  assert_true(cJSON_IsArray(doc));
  size_t n = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, doc) {
    const cJSON *a = cJSON_GetObjectItem(r, "authorization");
    n += cJSON_IsString(a) && strstr(a->valuestring, f->key) != NULL;
  }
  cJSON_Delete(doc);
  return n;
}

static int req_matches(const cJSON *r, const char *surface, const char *method, const char *prefix) {
  const cJSON *s = cJSON_GetObjectItem(r, "surface"), *m = cJSON_GetObjectItem(r, "method"),
              *p = cJSON_GetObjectItem(r, "path");
  return cJSON_IsString(s) && strcmp(s->valuestring, surface) == 0 && cJSON_IsString(m) &&
         strcmp(m->valuestring, method) == 0 && cJSON_IsString(p) &&
         strncmp(p->valuestring, prefix, strlen(prefix)) == 0;
}

size_t dtf_count(cJSON *reqs, const char *surface, const char *method, const char *prefix) {
  size_t n = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, reqs) n += req_matches(r, surface, method, prefix);
  return n;
}

const cJSON *dtf_find(cJSON *reqs, const char *surface, const char *method, const char *prefix, size_t n) {
  const cJSON *r;
  cJSON_ArrayForEach(r, reqs) {
    if (req_matches(r, surface, method, prefix) && n-- == 0) return r;
  }
  return NULL;
}

size_t dtf_alive(dtf *f) {
  char url[400], *answer = NULL;
  snprintf(url, sizeof url, "%s/_emulator/sandboxes?apiKey=%s", f->url, f->key);
  assert_int_equal(http("GET", url, NULL, NULL, &answer), 200);
  cJSON *doc = cJSON_Parse(answer);
  free(answer);
  size_t n = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, doc) n += cJSON_IsTrue(cJSON_GetObjectItem(s, "alive"));
  cJSON_Delete(doc);
  return n;
}

/* --------------------------------------------------------------- host */
void dtf_prepare(dtf *f, const char *name, const char *backend_yaml, const char *settings_yaml, const char *top_yaml) {
  static unsigned counter;
  memset(f, 0, sizeof *f);
  snprintf(f->url, sizeof f->url, "%s", dt_emulator_url());
  /* dtn_ + at least 32 [A-Za-z0-9_]: the emulator checks the shape. */
  snprintf(f->key, sizeof f->key, "dtn_%.40s_%d_%u_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", name, (int)getpid(), ++counter);
  for (char *p = f->key + 4; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) *p = '_';
  setenv("DAYTONA_API_KEY", f->key, 1);
  unsetenv("DAYTONA_API_URL");
  unsetenv("DAYTONA_TARGET");
  sbt_tempdir(f->dir, sizeof f->dir, "dt");
  snprintf(f->config, sizeof f->config, "%s/config.yaml", f->dir);
  FILE *fp = fopen(f->config, "w");
  assert_non_null(fp);
  fprintf(fp,
          "backends:\n"
          "  daytona:\n%s"
          "    settings:\n"
          "      api_url: %s/api\n"
          "      retry_base_ms: 20\n"
          "      retry_max_ms: 200\n"
          "      poll_initial_ms: 20\n"
          "      poll_max_ms: 100\n"
          "      request_timeout_s: 10\n"
          "      cleanup_timeout_s: 5\n%s%s",
          backend_yaml ? backend_yaml : "", f->url, settings_yaml ? settings_yaml : "", top_yaml ? top_yaml : "");
  fclose(fp);
  /* A short start delay keeps the suite quick while still polling. */
  dtf_org(f, "{\"settings\":{\"startDelay\":0.15}}");
}

sbio_code dtf_host(dtf *f, sbio_error *err) {
  return sbt_host_open(f->config, &f->log, &f->audit, &f->host, err);
}

void dtf_open(dtf *f, const char *name, const char *backend_yaml, const char *settings_yaml, const char *top_yaml) {
  dtf_prepare(f, name, backend_yaml, settings_yaml, top_yaml);
  sbio_error *err = sbio_error_new();
  if (dtf_host(f, err) != SBIO_OK) fail_msg("host open: %s", sbio_error_message(err));
  sbio_error_free(err);
}

void dtf_close(dtf *f) {
  if (f->host) sbio_host_close(f->host);
  f->host = NULL;
  sbt_lines_free(&f->log);
  sbt_lines_free(&f->audit);
  sbt_rmtree(f->dir);
  /* Deleted sandboxes take a moment to reach "destroyed"; alive means not
   * deleted at all, which is what a leak is. */
  assert_int_equal(dtf_alive(f), 0);
}

sbio_sandbox *dtf_create(dtf *f, const char *uri, sbio_create_options *opts) {
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  sbio_code rc = sbio_sandbox_create(f->host, uri ? uri : "daytona://", opts, &sb, err);
  if (rc != SBIO_OK) fail_msg("create failed: [%d] %s", rc, sbio_error_message(err));
  sbio_error_free(err);
  return sb;
}

sbio_exec_result *dtf_sh(sbio_sandbox *sb, const char *script) {
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  sbio_code rc = sbio_sandbox_exec_shell(sb, script, NULL, &r, err);
  if (rc != SBIO_OK) fail_msg("exec of '%s' failed: [%d] %s", script, rc, sbio_error_message(err));
  sbio_error_free(err);
  return r;
}
