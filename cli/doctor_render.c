/* SPDX-License-Identifier: MIT */
/* The human form of `sbio doctor`, rendered from its JSON document. */
#include "doctor.h"
#include "output.h"
#include "shown_text.h"

#include <stdio.h>
#include <string.h>

static const char *text(const cJSON *o, const char *key, const char *fallback) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : fallback;
}

/* "a, b, c" of a string array, or `none`. */
static void print_list(const char *label, const cJSON *arr, const char *none) {
  printf("%-14s", label);
  const cJSON *e;
  int i = 0;
  /* Entries are file names and variable names: shown escaped. */
  cJSON_ArrayForEach(e, arr) {
    fputs(i++ ? ", " : "", stdout);
    cli_fputs_shown(cJSON_IsString(e) ? e->valuestring : "?", stdout);
  }
  printf("%s\n", i ? "" : none);
}

static void print_header(const cJSON *doc) {
  printf("sbio %s (libsandboxio %s)\n", text(doc, "sbio", "?"), text(doc, "library", "?"));
  const cJSON *config = cJSON_GetObjectItemCaseSensitive(doc, "config");
  const cJSON *error = cJSON_GetObjectItemCaseSensitive(config, "error");
  if (cJSON_IsObject(error))
    printf("%-14s%s\n", "config:", "could not be read (see problems); built-in defaults used for this report");
  else
    print_list("config:", cJSON_GetObjectItemCaseSensitive(config, "files"), "none found; built-in defaults");
  const cJSON *dirs = cJSON_GetObjectItemCaseSensitive(doc, "search_path"), *d;
  int i = 0;
  cJSON_ArrayForEach(d, dirs) {
    printf("%-14s", i++ ? "" : "search path:");
    cli_fputs_shown(cJSON_IsString(d) ? d->valuestring : "?", stdout);
    putchar('\n');
  }
  printf("%-14s%s\n", "default:", text(doc, "default_backend", "-"));
  const char *floor = text(doc, "isolation_floor", "UNKNOWN");
  printf("%-14s%s\n", "floor:", strcmp(floor, "UNKNOWN") ? floor : "none");
  /* Where spans go, or the true reason they do not: an OTEL_SDK_DISABLED
   * or a tracing.enabled: false is not "no endpoint". */
  const cJSON *tracing = cJSON_GetObjectItemCaseSensitive(doc, "tracing");
  const char *endpoint = text(tracing, "endpoint", NULL);
  if (endpoint) {
    printf("%-14s", "tracing:");
    cli_fputs_shown(endpoint, stdout);
    putchar('\n');
  } else {
    printf("%-14soff (%s)\n", "tracing:", text(tracing, "off_reason", "span export is off"));
  }
  print_list("environment:", cJSON_GetObjectItemCaseSensitive(doc, "environment"), "-");
}

static void credentials_text(const cJSON *b, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(b, "credentials")) {
    int n =
        snprintf(buf + used, size - used, "%s%s %s", used ? ", " : "", c->string, cJSON_IsTrue(c) ? "set" : "unset");
    if (n < 0 || (size_t)n >= size - used) break;
    used += (size_t)n;
  }
  if (!used) snprintf(buf, size, "-");
}

static void print_backends(const cJSON *doc) {
  static const char *const headers[] = {"NAME", "HEALTH", "STATUS", "TIER", "VERIFIED", "CREDENTIALS", "REACHABLE"};
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "backends"), *b;
  if (!cJSON_GetArraySize(list)) {
    printf("\nno backends found on the search path\n");
    return;
  }
  cli_table *t = cli_table_new(7, headers);
  if (!t) return;
  cJSON_ArrayForEach(b, list) {
    const cJSON *healthy = cJSON_GetObjectItemCaseSensitive(b, "healthy");
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(b, "source");
    char verified[64] = "-", creds[256];
    if (cJSON_IsObject(src) && text(src, "verified_on", NULL))
      snprintf(verified, sizeof verified, "%s%s", text(src, "verified_on", "-"),
               cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(src, "stale")) ? " (stale)" : "");
    credentials_text(b, creds, sizeof creds);
    const char *tier = text(b, "tier", "?");
    sbio_tier parsed = SBIO_TIER_UNKNOWN;
    sbio_tier_parse(tier, &parsed);
    const char *cells[7] = {text(b, "name", "?"),
                            cJSON_IsTrue(healthy)    ? "ok"
                            : cJSON_IsFalse(healthy) ? "PROBLEM"
                                                     : "-",
                            text(b, "status", "?"),
                            tier,
                            verified,
                            creds,
                            text(b, "reachability", "-")};
    const char *colors[7] = {NULL, NULL, NULL, cli_color_for_tier(parsed), NULL, NULL, NULL};
    if (cli_table_add(t, cells, colors) != 0) break;
  }
  putchar('\n');
  cli_table_print(t, stdout);
  cli_table_free(t);
}

static void print_findings(const char *title, const cJSON *list, int with_fix) {
  if (!cJSON_GetArraySize(list)) return;
  printf("\n%s\n", title);
  const cJSON *p;
  cJSON_ArrayForEach(p, list) {
    const char *backend = text(p, "backend", NULL);
    /* Findings quote messages, which can quote file names. */
    printf("  %s%s", backend ? backend : "", backend ? ": " : "");
    cli_fputs_shown(text(p, "what", "?"), stdout);
    putchar('\n');
    if (with_fix) {
      fputs("    fix: ", stdout);
      cli_fputs_shown(text(p, "fix", "?"), stdout);
      putchar('\n');
    }
  }
}

void doctor_render(const cJSON *doc) {
  print_header(doc);
  print_backends(doc);
  print_findings("warnings:", cJSON_GetObjectItemCaseSensitive(doc, "warnings"), 0);
  const cJSON *problems = cJSON_GetObjectItemCaseSensitive(doc, "problems");
  print_findings("problems:", problems, 1);
  int n = cJSON_GetArraySize(problems);
  if (n)
    printf("\n%d problem%s found; the fixes are above\n", n, n == 1 ? "" : "s");
  else
    printf("\nall enabled backends are healthy\n");
}
