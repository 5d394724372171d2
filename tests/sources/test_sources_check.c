/* SPDX-License-Identifier: MIT */
/* `sbio sources check` end to end: the real sbio (which runs sbio-sources)
 * against loopback pages (pagesrv.py). Every page is reached through the
 * server's proxy, named by the standard variable https_proxy, and trusted
 * through the test's certificate authority, named by SSL_CERT_FILE (or
 * --ca-file): exactly how an operator behind a proxy runs the command, so
 * the product has no hook for tests. */
#include "harness.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t server_pid;
static char state_dir[512], ca_file[600], log_file[600];
static char proxy_env[96], ca_env[700];

/* ---------------------------------------------------------------- server */

static void stop_server(void) {
  if (server_pid > 0) {
    kill(server_pid, SIGTERM);
    waitpid(server_pid, NULL, 0);
    server_pid = 0;
  }
}

static int start_server(void **state) {
  (void)state;
  snprintf(state_dir, sizeof state_dir, "%s-XXXXXX", SOURCES_STATE);
  if (!mkdtemp(state_dir)) return -1;
  snprintf(ca_file, sizeof ca_file, "%s/ca.pem", state_dir);
  snprintf(log_file, sizeof log_file, "%s/requests.log", state_dir);
  char ready[600], parent[24], fake[600];
  snprintf(ready, sizeof ready, "%s/ready", state_dir);
  snprintf(parent, sizeof parent, "%ld", (long)getpid());
  snprintf(fake, sizeof fake, "docs.sandboxio.dev/backends/fake=%s", SOURCES_FAKE_PAGE);
  server_pid = fork();
  if (server_pid < 0) return -1;
  if (server_pid == 0) {
    execl(SOURCES_PYTHON, SOURCES_PYTHON, SOURCES_PAGESRV, "--state", state_dir, "--pages", SOURCES_PAGES, "--file",
          fake, "--parent-pid", parent, (char *)NULL);
    _exit(127);
  }
  atexit(stop_server);
  /* Certificates first (a few RSA keys), then the listeners. */
  for (int i = 0; i < 1200; i++) {
    char *text = h_read(ready);
    int port = 0;
    int got = sscanf(text, "proxy=%d", &port);
    free(text);
    if (got == 1 && port > 0) {
      snprintf(proxy_env, sizeof proxy_env, "https_proxy=http://127.0.0.1:%d", port);
      snprintf(ca_env, sizeof ca_env, "SSL_CERT_FILE=%s", ca_file);
      return 0;
    }
    if (waitpid(server_pid, NULL, WNOHANG) == server_pid) {
      server_pid = 0;
      fprintf(stderr, "pagesrv.py exited before it was ready\n");
      return -1;
    }
    struct timespec step = {0, 50 * 1000 * 1000};
    nanosleep(&step, NULL);
  }
  fprintf(stderr, "pagesrv.py was not ready within 60 s\n");
  return -1;
}

static int teardown_server(void **state) {
  (void)state;
  stop_server();
  return 0;
}

static void clear_log(void) {
  FILE *f = fopen(log_file, "w");
  assert_non_null(f);
  fclose(f);
}

/* The log's records, as a JSON array. */
static cJSON *read_log(void) {
  char *text = h_read(log_file);
  cJSON *all = cJSON_CreateArray();
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    cJSON *rec = cJSON_Parse(line);
    assert_non_null(rec);
    cJSON_AddItemToArray(all, rec);
  }
  free(text);
  return all;
}

static int gets_of(const cJSON *log, const char *host, const char *path) {
  int n = 0;
  const cJSON *rec;
  cJSON_ArrayForEach(rec, log) {
    const cJSON *h = cJSON_GetObjectItem(rec, "host"), *p = cJSON_GetObjectItem(rec, "path");
    if (cJSON_IsString(h) && cJSON_IsString(p) && !strcmp(h->valuestring, host) && !strcmp(p->valuestring, path)) n++;
  }
  return n;
}

/* ------------------------------------------------------------ running */

/* sbio sources check ARGS with the fixtures on the search path, the proxy
 * and the test CA in the environment. */
#define CHECK(r, ...)                                                                                                  \
  do {                                                                                                                 \
    const char *env_[] = {proxy_env, ca_env, NULL};                                                                    \
    h_opts o_ = {.env = env_};                                                                                         \
    H_RUN(r, &o_, "--backend-path", SOURCES_FIXTURES, "sources", "check", __VA_ARGS__);                                \
  } while (0)

static const cJSON *backend_of(const cJSON *doc, const char *name) {
  const cJSON *b;
  cJSON_ArrayForEach(b, cJSON_GetObjectItem(doc, "backends")) {
    if (!strcmp(cJSON_GetObjectItem(b, "name")->valuestring, name)) return b;
  }
  fail_msg("no backend %s in the report", name);
  return NULL;
}

static const cJSON *mech_of(const cJSON *doc, const char *backend, const char *mech) {
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItem(backend_of(doc, backend), "mechanisms")) {
    if (!strcmp(cJSON_GetObjectItem(m, "name")->valuestring, mech)) return m;
  }
  fail_msg("no mechanism %s/%s in the report", backend, mech);
  return NULL;
}

static const char *str(const cJSON *obj, const char *key) {
  const cJSON *v = cJSON_GetObjectItem(obj, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void assert_verdict(const cJSON *doc, const char *backend, const char *mech, const char *verdict,
                           const char *failure) {
  const cJSON *m = mech_of(doc, backend, mech);
  const char *v = str(m, "verdict"), *f = str(m, "failure");
  if (!v || strcmp(v, verdict) != 0 || (failure ? !f || strcmp(f, failure) != 0 : f != NULL))
    fail_msg("%s/%s: verdict %s failure %s (%s); expected %s failure %s", backend, mech, v ? v : "null", f ? f : "null",
             str(m, "detail") ? str(m, "detail") : "", verdict, failure ? failure : "null");
}

static void assert_contains(const char *text, const char *needle) {
  if (!text || !strstr(text, needle)) fail_msg("expected \"%s\" in:\n%s", needle, text ? text : "(null)");
}

static double number(const cJSON *obj, const char *key) {
  const cJSON *v = cJSON_GetObjectItem(obj, key);
  if (!cJSON_IsNumber(v)) fail_msg("%s is not a number", key);
  return v->valuedouble;
}

/* -------------------------------------------------------------- verdicts */

static void confirmed_through_markup_and_redirect(void **state) {
  (void)state;
  clear_log();
  h_result r;
  CHECK(&r, "srcfix_found", "--json");
  H_ASSERT_STATUS(&r, 0);
  cJSON *doc = h_json(&r);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "ok")));
  assert_verdict(doc, "srcfix_found", "markup", "confirmed", NULL);
  assert_verdict(doc, "srcfix_found", "markup2", "confirmed", NULL);
  assert_verdict(doc, "srcfix_found", "slash", "confirmed", NULL);
  const cJSON *slash = mech_of(doc, "srcfix_found", "slash");
  assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(slash, "redirects"), 0)->valuestring,
                      "https://pages.sources.test/trailing/");
  assert_contains(str(slash, "detail"), "same page");
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(slash, "moved_to")));
  const cJSON *markup = mech_of(doc, "srcfix_found", "markup");
  assert_int_equal((int)number(markup, "http_status"), 200);
  assert_true(number(markup, "age_days") >= 0);
  assert_string_equal(str(markup, "verified_on"), "2026-01-15");
  const cJSON *summary = cJSON_GetObjectItem(doc, "summary");
  assert_int_equal((int)number(summary, "confirmed"), 3);
  cJSON_Delete(doc);
  h_result_free(&r);

  cJSON *log = read_log();
  /* Two mechanisms cite /markup: one request. */
  assert_int_equal(gets_of(log, "pages.sources.test", "/markup"), 1);
  assert_int_equal(gets_of(log, "pages.sources.test", "/trailing"), 1);
  assert_int_equal(gets_of(log, "pages.sources.test", "/trailing/"), 1);
  /* Through the proxy, no cookie back (the redirect set one), no credential. */
  int tunnels = 0;
  const cJSON *rec;
  cJSON_ArrayForEach(rec, log) {
    if (cJSON_GetObjectItem(rec, "connect")) tunnels++;
    const cJSON *headers = cJSON_GetObjectItem(rec, "headers"), *h;
    cJSON_ArrayForEach(h, headers) {
      assert_true(strcasecmp(h->string, "Cookie") != 0);
      assert_true(strcasecmp(h->string, "Authorization") != 0);
      assert_true(strcasecmp(h->string, "Proxy-Authorization") != 0);
      if (!strcasecmp(h->string, "User-Agent")) assert_contains(h->valuestring, "sandboxio-sources-check/");
    }
  }
  assert_true(tunnels >= 1);
  cJSON_Delete(log);

  /* The same, for people: nothing to explain but the redirect. */
  CHECK(&r, "srcfix_found");
  H_ASSERT_STATUS(&r, 0);
  assert_contains(r.out, "VERDICT");
  assert_contains(r.out, "srcfix_found/slash: confirmed: quote found, after a redirect to the same page");
  assert_contains(r.out, "3 claims: 3 confirmed\n");
  assert_false(h_contains(r.out, r.out_len, "srcfix_found/markup:"));
  h_result_free(&r);
}

static void changed_pages(void **state) {
  (void)state;
  h_result r;
  CHECK(&r, "srcfix_reworded", "srcfix_hidden", "--json");
  H_ASSERT_STATUS(&r, 1);
  cJSON *doc = h_json(&r);
  assert_true(cJSON_IsFalse(cJSON_GetObjectItem(doc, "ok")));
  assert_int_equal((int)number(doc, "exit_code"), 1);
  assert_verdict(doc, "srcfix_reworded", "reworded", "changed", NULL);
  const cJSON *closest = cJSON_GetObjectItem(mech_of(doc, "srcfix_reworded", "reworded"), "closest");
  assert_true(cJSON_IsObject(closest));
  assert_string_equal(str(closest, "text"),
                      "Each sandbox is a container: the provider's host kernel is shared between a customer's own "
                      "sandboxes");
  assert_true(number(closest, "matched_words") * 2 >= number(closest, "quote_words"));
  assert_true(number(closest, "matched_words") < number(closest, "quote_words"));
  /* A quote that is only in a script, a style sheet, a comment, an
   * attribute or an SVG is not on the page. */
  assert_verdict(doc, "srcfix_hidden", "hidden", "changed", NULL);
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(mech_of(doc, "srcfix_hidden", "hidden"), "closest")));
  cJSON_Delete(doc);
  h_result_free(&r);

  CHECK(&r, "srcfix_reworded");
  H_ASSERT_STATUS(&r, 1);
  assert_contains(r.out, "srcfix_reworded/reworded: changed: the page no longer has the quote");
  assert_contains(r.out, "  closest:  \"Each sandbox is a container: the provider's host kernel");
  assert_contains(r.out, "  quote:    \"Each sandbox is a microVM:");
  assert_contains(r.out, "1 claim: 0 confirmed, 1 changed\n");
  h_result_free(&r);
}

static void moved_pages(void **state) {
  (void)state;
  clear_log();
  h_result r;
  CHECK(&r, "srcfix_moved", "--json");
  H_ASSERT_STATUS(&r, 1);
  /* The token in the new address's query is never shown. */
  assert_false(h_contains(r.out, r.out_len, "abc123"));
  assert_false(h_contains(r.err, r.err_len, "abc123"));
  cJSON *doc = h_json(&r);
  assert_verdict(doc, "srcfix_moved", "away", "moved", NULL);
  const cJSON *away = mech_of(doc, "srcfix_moved", "away");
  assert_string_equal(str(away, "moved_to"), "https://other.sources.test/new-home?token=***");
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(away, "quote_found_there")));
  assert_verdict(doc, "srcfix_moved", "downgrade", "moved", NULL);
  const cJSON *down = mech_of(doc, "srcfix_moved", "downgrade");
  assert_string_equal(str(down, "moved_to"), "http://pages.sources.test/markup");
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(down, "quote_found_there")));
  assert_contains(str(down, "detail"), "not followed");
  assert_verdict(doc, "srcfix_moved", "elsewhere", "moved", NULL);
  const cJSON *elsewhere = mech_of(doc, "srcfix_moved", "elsewhere");
  assert_string_equal(str(elsewhere, "moved_to"), "https://pages.sources.test/new-address");
  assert_true(cJSON_IsFalse(cJSON_GetObjectItem(elsewhere, "quote_found_there")));
  cJSON_Delete(doc);
  h_result_free(&r);

  cJSON *log = read_log();
  assert_int_equal(gets_of(log, "other.sources.test", "/new-home?token=abc123"), 1);
  /* Plain http is never requested, not even through the proxy. */
  const cJSON *rec;
  cJSON_ArrayForEach(rec, log) assert_null(cJSON_GetObjectItem(rec, "plain"));
  cJSON_Delete(log);
}

static void gone_pages(void **state) {
  (void)state;
  h_result r;
  CHECK(&r, "srcfix_gone", "--json");
  H_ASSERT_STATUS(&r, 1);
  cJSON *doc = h_json(&r);
  assert_verdict(doc, "srcfix_gone", "notfound", "gone", NULL);
  assert_int_equal((int)number(mech_of(doc, "srcfix_gone", "notfound"), "http_status"), 404);
  assert_verdict(doc, "srcfix_gone", "gone", "gone", NULL);
  assert_int_equal((int)number(mech_of(doc, "srcfix_gone", "gone"), "http_status"), 410);
  cJSON_Delete(doc);
  h_result_free(&r);
}

static void tls_failures(void **state) {
  (void)state;
  h_result r;
  CHECK(&r, "srcfix_tls", "--json");
  H_ASSERT_STATUS(&r, 69);
  cJSON *doc = h_json(&r);
  assert_verdict(doc, "srcfix_tls", "wrongname", "unreachable", "tls");
  assert_contains(str(mech_of(doc, "srcfix_tls", "wrongname"), "detail"), "wrong-name.sources.test");
  assert_verdict(doc, "srcfix_tls", "expired", "unreachable", "tls");
  assert_contains(str(mech_of(doc, "srcfix_tls", "expired"), "detail"), "expired");
  cJSON_Delete(doc);
  h_result_free(&r);

  /* Without the test's CA, the system's store does not trust the pages:
   * certificates are verified by default. */
  const char *env[] = {proxy_env, NULL};
  h_opts o = {.env = env};
  H_RUN(&r, &o, "--backend-path", SOURCES_FIXTURES, "sources", "check", "srcfix_found", "--json");
  H_ASSERT_STATUS(&r, 69);
  doc = h_json(&r);
  assert_verdict(doc, "srcfix_found", "markup", "unreachable", "tls");
  cJSON_Delete(doc);
  h_result_free(&r);
  /* --ca-file does what SSL_CERT_FILE did. */
  char ca_opt[700];
  snprintf(ca_opt, sizeof ca_opt, "--ca-file=%s", ca_file);
  H_RUN(&r, &o, "--backend-path", SOURCES_FIXTURES, "sources", "check", "srcfix_found", ca_opt);
  H_ASSERT_STATUS(&r, 0);
  h_result_free(&r);
}

static void bounded_fetches(void **state) {
  (void)state;
  h_result r;
  CHECK(&r, "srcfix_big", "--json");
  H_ASSERT_STATUS(&r, 69);
  cJSON *doc = h_json(&r);
  assert_verdict(doc, "srcfix_big", "big", "unreachable", "too_large");
  assert_contains(str(mech_of(doc, "srcfix_big", "big"), "detail"), "4 MiB");
  cJSON_Delete(doc);
  h_result_free(&r);

  /* A server that never answers: the page's time runs out, and with it
   * the whole run's, so the second page is given up on too. */
  CHECK(&r, "srcfix_silent", "--timeout", "2", "--json");
  H_ASSERT_STATUS(&r, 69);
  doc = h_json(&r);
  assert_verdict(doc, "srcfix_silent", "first", "unreachable", "timeout");
  assert_verdict(doc, "srcfix_silent", "second", "unreachable", "timeout");
  assert_contains(str(mech_of(doc, "srcfix_silent", "second"), "detail"), "not fetched");
  cJSON_Delete(doc);
  h_result_free(&r);
}

static void answers_that_are_not_pages(void **state) {
  (void)state;
  h_result r;
  CHECK(&r, "srcfix_http", "--json");
  H_ASSERT_STATUS(&r, 69);
  cJSON *doc = h_json(&r);
  assert_verdict(doc, "srcfix_http", "unavailable", "unreachable", "http");
  assert_int_equal((int)number(mech_of(doc, "srcfix_http", "unavailable"), "http_status"), 503);
  assert_verdict(doc, "srcfix_http", "loop", "unreachable", "redirects");
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(mech_of(doc, "srcfix_http", "loop"), "redirects")), 6);
  assert_verdict(doc, "srcfix_http", "nolocation", "unreachable", "http");
  assert_verdict(doc, "srcfix_http", "proxyrefused", "unreachable", "proxy");
  cJSON_Delete(doc);
  h_result_free(&r);
}

static void claims_without_sources(void **state) {
  (void)state;
  h_result r;
  CHECK(&r, "srcfix_unverified", "srcfix_nomech", "--json");
  H_ASSERT_STATUS(&r, 0); /* no claim, so none unconfirmed */
  cJSON *doc = h_json(&r);
  assert_verdict(doc, "srcfix_unverified", "guess", "no_source", NULL);
  assert_contains(str(mech_of(doc, "srcfix_unverified", "guess"), "detail"), "no page of the provider says");
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(backend_of(doc, "srcfix_nomech"), "mechanisms")), 0);
  assert_int_equal((int)number(cJSON_GetObjectItem(doc, "summary"), "no_source"), 2);
  cJSON_Delete(doc);
  h_result_free(&r);

  CHECK(&r, "srcfix_nomech", "srcfix_unverified");
  H_ASSERT_STATUS(&r, 0);
  assert_contains(r.out, "srcfix_nomech: no_source: declares no mechanism");
  assert_contains(r.out, "srcfix_unverified/guess: no_source: claims no tier (UNKNOWN)");
  h_result_free(&r);

  /* A tier claimed on a source that cannot be checked is not confirmed. */
  CHECK(&r, "srcfix_unchecked", "--json");
  H_ASSERT_STATUS(&r, 1);
  doc = h_json(&r);
  assert_verdict(doc, "srcfix_unchecked", "plainhttp", "unchecked", NULL);
  assert_verdict(doc, "srcfix_unchecked", "noquote", "unchecked", NULL);
  cJSON_Delete(doc);
  h_result_free(&r);

  /* Metadata that cannot be read: not checked, and said so. */
  CHECK(&r, "srcfix_broken", "--json");
  H_ASSERT_STATUS(&r, 69);
  doc = h_json(&r);
  const cJSON *b = backend_of(doc, "srcfix_broken");
  assert_true(cJSON_IsFalse(cJSON_GetObjectItem(b, "checked")));
  assert_string_equal(str(b, "status"), "refused");
  assert_non_null(str(b, "reason"));
  cJSON_Delete(doc);
  h_result_free(&r);
}

/* Well-formed UTF-8 without C0, DEL, C1 or bidirectional controls (but
 * newlines, which the command's own layout uses). */
static void assert_terminal_safe(const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s, *end = p + len;
  while (p < end) {
    if (*p < 0x80) {
      if ((*p < 0x20 && *p != '\n') || *p == 0x7f) fail_msg("control byte 0x%02x in output:\n%s", *p, s);
      p++;
      continue;
    }
    int n = (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 0 || p + n > end) fail_msg("malformed UTF-8 in output:\n%s", s);
    unsigned cp = *p & (0xff >> (n + 1));
    for (int i = 1; i < n; i++) {
      if ((p[i] & 0xc0) != 0x80) fail_msg("malformed UTF-8 in output:\n%s", s);
      cp = (cp << 6) | (p[i] & 0x3f);
    }
    if ((cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
      fail_msg("control character U+%04X in output:\n%s", cp, s);
    p += n;
  }
}

static void hostile_page(void **state) {
  (void)state;
  h_result r;
  CHECK(&r, "srcfix_hostile");
  H_ASSERT_STATUS(&r, 1);
  assert_contains(r.out, "srcfix_hostile/hostile: changed");
  assert_contains(r.out, "closest:");
  assert_terminal_safe(r.out, r.out_len);
  assert_terminal_safe(r.err, r.err_len);
  h_result_free(&r);

  CHECK(&r, "srcfix_hostile", "--json");
  H_ASSERT_STATUS(&r, 1);
  assert_terminal_safe(r.out, r.out_len);
  cJSON *doc = h_json(&r);
  const cJSON *closest = cJSON_GetObjectItem(mech_of(doc, "srcfix_hostile", "hostile"), "closest");
  const char *text = str(closest, "text");
  assert_non_null(text);
  assert_terminal_safe(text, strlen(text));
  assert_contains(text, "microVM");
  cJSON_Delete(doc);
  h_result_free(&r);
}

static void proxy_variables(void **state) {
  (void)state;
  clear_log();
  /* no_proxy names the host: the connection is made directly, to a port
   * where nothing listens. */
  const char *direct_env[] = {proxy_env, ca_env, "no_proxy=localhost", NULL};
  h_opts o = {.env = direct_env};
  h_result r;
  H_RUN(&r, &o, "--backend-path", SOURCES_FIXTURES, "sources", "check", "srcfix_direct", "--json");
  H_ASSERT_STATUS(&r, 69);
  cJSON *doc = h_json(&r);
  assert_verdict(doc, "srcfix_direct", "direct", "unreachable", "connect");
  cJSON_Delete(doc);
  h_result_free(&r);
  cJSON *log = read_log();
  assert_int_equal(cJSON_GetArraySize(log), 0);
  cJSON_Delete(log);

  /* Without no_proxy the proxy is asked for the tunnel (and the pages
   * server's certificate does not name localhost). */
  CHECK(&r, "srcfix_direct", "--json");
  H_ASSERT_STATUS(&r, 69);
  doc = h_json(&r);
  assert_verdict(doc, "srcfix_direct", "direct", "unreachable", "tls");
  cJSON_Delete(doc);
  h_result_free(&r);
  log = read_log();
  assert_string_equal(str(cJSON_GetArrayItem(log, 0), "connect"), "localhost:1");
  cJSON_Delete(log);
}

static void disabled_backends_are_checked(void **state) {
  (void)state;
  char *config = h_write("sources.yaml", "backends:\n  srcfix_found:\n    enabled: false\n");
  const char *env[] = {proxy_env, ca_env, NULL};
  h_opts o = {.env = env};
  h_result r;
  H_RUN(&r, &o, "--config", config, "--backend-path", SOURCES_FIXTURES, "sources", "check", "srcfix_found", "--json");
  H_ASSERT_STATUS(&r, 0);
  cJSON *doc = h_json(&r);
  assert_string_equal(str(backend_of(doc, "srcfix_found"), "status"), "disabled");
  assert_verdict(doc, "srcfix_found", "markup", "confirmed", NULL);
  cJSON_Delete(doc);
  h_result_free(&r);
  free(config);
}

static void drift_outranks_unreachable(void **state) {
  (void)state;
  h_result r;
  CHECK(&r, "srcfix_found", "srcfix_tls", "srcfix_gone", "srcfix_found");
  H_ASSERT_STATUS(&r, 1);
  assert_contains(r.out, "7 claims: 3 confirmed, 2 gone, 2 unreachable\n");
  h_result_free(&r);
}

static void command_line_errors(void **state) {
  (void)state;
  h_result r;
  CHECK(&r, "srcfix_nosuch", "--json");
  H_ASSERT_STATUS(&r, 69);
  cJSON *doc = h_json(&r);
  assert_string_equal(str(cJSON_GetObjectItem(doc, "error"), "code"), "SBX_E1001");
  cJSON_Delete(doc);
  h_result_free(&r);
  CHECK(&r, "--timeout", "0");
  H_ASSERT_STATUS(&r, 64);
  assert_contains(r.err, "--timeout needs a number of seconds");
  h_result_free(&r);
  CHECK(&r, "--ca-file", "/nonexistent/ca.pem");
  H_ASSERT_STATUS(&r, 64);
  assert_contains(r.err, "cannot read the CA bundle --ca-file names");
  h_result_free(&r);
  const char *env[] = {"SSL_CERT_FILE=/nonexistent/ca.pem", NULL};
  h_opts o = {.env = env};
  H_RUN(&r, &o, "sources", "check");
  H_ASSERT_STATUS(&r, 64);
  assert_contains(r.err, "SSL_CERT_FILE");
  h_result_free(&r);
  H_RUN(&r, NULL, "sources", "verify");
  H_ASSERT_STATUS(&r, 64);
  assert_contains(r.err, "unknown subcommand 'verify'");
  h_result_free(&r);
  H_RUN(&r, NULL, "help", "sources", "check");
  H_ASSERT_STATUS(&r, 0);
  assert_contains(r.out, "usage: sbio sources check [NAME...]");
  h_result_free(&r);
}

/* ---------------------------------------------------------- first party */

/* Every first-party backend built, with its real metadata, against a
 * stand-in page that wraps its quote in realistic markup (pages/<host>/),
 * run as docs/tiers.md shows it: the proxy and the CA come from the
 * environment. A backend whose source has no stand-in fails here: add one
 * under tests/sources/pages/ when adding a source. */
static void first_party_sources(void **state) {
  (void)state;
  const char *env[] = {proxy_env, ca_env, NULL};
  h_opts o = {.env = env};
  h_result r;
  H_RUN(&r, &o, "sources", "check", "--json");
  H_ASSERT_STATUS(&r, 0);
  cJSON *doc = h_json(&r);
  char names[256];
  snprintf(names, sizeof names, "%s", SOURCES_BACKENDS);
  int claims = 0;
  for (char *name = strtok(names, ","); name; name = strtok(NULL, ",")) {
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(backend_of(doc, name), "mechanisms")) {
      const char *v = str(m, "verdict");
      if (strcmp(v, "confirmed") != 0 && strcmp(v, "no_source") != 0)
        fail_msg("%s/%s: %s (%s): give its source a stand-in page under tests/sources/pages/", name, str(m, "name"), v,
                 str(m, "detail"));
      claims += !strcmp(v, "confirmed");
    }
  }
  assert_true(claims >= 1);
  /* daytona claims no tier: reported as such, and not a failure. */
  if (strstr("," SOURCES_BACKENDS ",", ",daytona,")) assert_verdict(doc, "daytona", "daytona", "no_source", NULL);
  cJSON_Delete(doc);
  h_result_free(&r);

  /* The runbook's commands, as written there. */
  H_RUN(&r, &o, "sources", "check");
  H_ASSERT_STATUS(&r, 0);
  assert_contains(r.out, "confirmed");
  h_result_free(&r);
  H_RUN(&r, &o, "sources", "check", "docker", "e2b", "--timeout", "60");
  H_ASSERT_STATUS(&r, 0);
  h_result_free(&r);
}

/* Nothing is written: no cookie jar, HSTS or alt-svc cache in HOME or
 * XDG_CONFIG_HOME after every run above. */
static void nothing_written(void **state) {
  (void)state;
  const char *dirs[] = {"home", "xdg"};
  for (size_t i = 0; i < 2; i++) {
    char *dir = h_path(dirs[i]);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
    if (system(cmd) != 0) fail_msg("%s is no longer empty", dir);
    free(dir);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(confirmed_through_markup_and_redirect),
      cmocka_unit_test(changed_pages),
      cmocka_unit_test(moved_pages),
      cmocka_unit_test(gone_pages),
      cmocka_unit_test(tls_failures),
      cmocka_unit_test(bounded_fetches),
      cmocka_unit_test(answers_that_are_not_pages),
      cmocka_unit_test(claims_without_sources),
      cmocka_unit_test(hostile_page),
      cmocka_unit_test(proxy_variables),
      cmocka_unit_test(disabled_backends_are_checked),
      cmocka_unit_test(drift_outranks_unreachable),
      cmocka_unit_test(command_line_errors),
      cmocka_unit_test(first_party_sources),
      cmocka_unit_test(nothing_written),
  };
  return cmocka_run_group_tests(tests, start_server, teardown_server);
}
