/* SPDX-License-Identifier: MIT */
/* The report for people: one table row per mechanism, then what needs a
 * maintainer's attention, then a one-line summary. */
#include "report.h"

#include "errors.h"
#include "output.h"
#include "safe_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *or_dash(const char *s) {
  return s && s[0] ? s : "-";
}

static void age_text(const sbio_backend_info *b, size_t i, char *out, size_t size) {
  int age = sbio_mechanism_age_days(b, i);
  if (age < 0)
    snprintf(out, size, "-");
  else
    snprintf(out, size, "%d day%s%s", age, age == 1 ? "" : "s", sbio_mechanism_stale(b, i) ? " (stale)" : "");
}

static int add_rows(cli_table *t, const src_backend_report *br) {
  const sbio_backend_info *b = br->info;
  for (size_t i = 0; i < br->n_results; i++) {
    char age[48];
    age_text(b, i, age, sizeof age);
    const char *cells[] = {sbio_backend_info_name(b),
                           sbio_mechanism_name(b, i),
                           cli_tier_text(sbio_mechanism_claimed_tier(b, i)),
                           src_verdict_name(br->results[i].verdict),
                           or_dash(sbio_mechanism_verified_on(b, i)),
                           age,
                           or_dash(sbio_mechanism_source_url(b, i))};
    if (cli_table_add(t, cells, NULL) != 0) return -1;
  }
  if (br->n_results == 0 && br->readable) {
    const char *cells[] = {sbio_backend_info_name(b), "-", "UNKNOWN", "no_source", "-", "-", "-"};
    if (cli_table_add(t, cells, NULL) != 0) return -1;
  }
  return 0;
}

/* The quote as the metadata has it, made safe to show all the same (the
 * metadata forbids control characters, not bidirectional ones). */
static int print_quote(const char *label, const char *quote) {
  char *safe = src_safe_text(quote, strlen(quote), 4096);
  if (!safe) return -1;
  printf("  %-9s \"%s\"\n", label, safe);
  free(safe);
  return 0;
}

static int print_details(const src_backend_report *br) {
  const sbio_backend_info *b = br->info;
  if (!br->readable) {
    char *reason = src_safe_text(sbio_backend_info_reason(b), strlen(sbio_backend_info_reason(b)), 600);
    if (!reason) return -1;
    printf("%s: not checked: its metadata cannot be read: %s\n", sbio_backend_info_name(b), or_dash(reason));
    free(reason);
    return 0;
  }
  if (br->n_results == 0)
    printf("%s: no_source: declares no mechanism, so its tier is UNKNOWN\n", sbio_backend_info_name(b));
  for (size_t i = 0; i < br->n_results; i++) {
    const src_result *r = &br->results[i];
    /* A plain confirmation needs no words; one reached by a redirect says so. */
    if (r->verdict == SRC_CONFIRMED && r->n_redirects == 0) continue;
    printf("%s/%s: %s: %s\n", sbio_backend_info_name(b), sbio_mechanism_name(b, i), src_verdict_name(r->verdict),
           or_dash(r->detail));
    if (r->verdict == SRC_NO_SOURCE || r->verdict == SRC_CONFIRMED) continue;
    printf("  %-9s %s\n", "source:", or_dash(sbio_mechanism_source_url(b, i)));
    const char *quote = sbio_mechanism_quote(b, i);
    if (quote && quote[0] && print_quote("quote:", quote) != 0) return -1;
    if (r->closest) printf("  %-9s \"%s\"\n", "closest:", r->closest);
  }
  return 0;
}

static void print_summary(const src_report *r) {
  size_t claims = 0;
  for (int v = 0; v < SRC_VERDICT_COUNT; v++)
    if (v != SRC_NO_SOURCE) claims += r->counts[v];
  printf("%zu claim%s: %zu confirmed", claims, claims == 1 ? "" : "s", r->counts[SRC_CONFIRMED]);
  for (int v = SRC_CHANGED; v < SRC_NO_SOURCE; v++)
    if (r->counts[v]) printf(", %zu %s", r->counts[v], src_verdict_name((src_verdict)v));
  if (r->counts[SRC_NO_SOURCE])
    printf("; %zu mechanism%s claim%s no tier", r->counts[SRC_NO_SOURCE], r->counts[SRC_NO_SOURCE] == 1 ? "" : "s",
           r->counts[SRC_NO_SOURCE] == 1 ? "s" : "");
  if (r->unreadable) printf("; %zu backend%s not checked", r->unreadable, r->unreadable == 1 ? "" : "s");
  printf("\n");
}

int src_report_print_text(const src_report *r) {
  static const char *const headers[] = {"BACKEND", "MECHANISM", "CLAIM", "VERDICT", "VERIFIED", "AGE", "SOURCE"};
  cli_table *t = cli_table_new(7, headers);
  int ok = t != NULL;
  for (size_t i = 0; ok && i < r->n_backends; i++) ok = add_rows(t, &r->backends[i]) == 0;
  if (!ok) {
    cli_table_free(t);
    return cli_error_oom(0);
  }
  if (cli_table_rows(t)) {
    cli_table_print(t, stdout);
    printf("\n");
  }
  cli_table_free(t);
  for (size_t i = 0; i < r->n_backends; i++)
    if (print_details(&r->backends[i]) != 0) return cli_error_oom(0);
  print_summary(r);
  return 0;
}
