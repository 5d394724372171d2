/* SPDX-License-Identifier: MIT */
/* The trust model: which declared tiers count, and the reasons given when
 * they do not. "Now" is fixed at 2026-05-15 12:00 UTC. */
/* cmocka needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
/* clang-format on */

#include "trust.h"

#include <stdio.h>
#include <string.h>

#define NOW ((int64_t)1778846400) /* 2026-05-15T12:00:00Z */
#define DAY ((int64_t)86400)

static const sbio__trust_policy WARN = {.max_age_days = 92, .stale_is_unknown = 0, .now = NOW};
static const sbio__trust_policy STALE_UNKNOWN = {.max_age_days = 92, .stale_is_unknown = 1, .now = NOW};

static sbio__mechanism mech(sbio_tier tier, const char *url, const char *date, const char *quote) {
  sbio__mechanism m;
  memset(&m, 0, sizeof m);
  m.name = (char *)"m";
  m.claimed = tier;
  m.url = (char *)url;
  m.verified_on = (char *)date;
  m.quote = (char *)quote;
  m.effective = SBIO_TIER_MICROVM; /* evaluation must overwrite it */
  m.stale = 7;
  return m;
}

static void expect(sbio__mechanism *m, const sbio__trust_policy *policy, sbio_tier effective, int stale,
                   const char *reason) {
  sbio__trust_evaluate(m, policy);
  if (m->effective != effective || m->stale != stale ||
      (reason != NULL ? strstr(m->reason, reason) == NULL : m->reason[0] != '\0')) {
    print_error("expected %s stale=%d reason~\"%s\", got %s stale=%d reason \"%s\"\n", sbio_tier_name(effective), stale,
                reason ? reason : "", sbio_tier_name(m->effective), m->stale, m->reason);
    fail();
  }
}

/* ------------------------------------------------------------------ dates */
static void test_date_parse(void **state) {
  (void)state;
  int64_t days = -1;
  assert_int_equal(sbio__date_parse("1970-01-01", &days), 0);
  assert_int_equal(days, 0);
  assert_int_equal(sbio__date_parse("2026-05-15", &days), 0);
  assert_int_equal(days, 20588);
  assert_int_equal(sbio__date_parse("2024-02-29", &days), 0);
  assert_int_equal(days, 19782);
  assert_int_equal(sbio__date_parse("2000-03-01", &days), 0); /* 2000 is a leap year */
  assert_int_equal(days, 11017);
  assert_int_equal(sbio__date_parse("9999-12-31", &days), 0);
  assert_int_equal(days, 2932896);
  assert_int_equal(sbio__date_parse("2000-02-29", NULL), 0);

  static const char *const bad[] = {
      "2023-02-29",  "1900-02-29",
      "2100-02-29",  "2026-02-30",
      "2026-04-31",  "2026-13-01",
      "2026-00-10",  "2026-01-00",
      "2026-01-32",  "1969-12-31",
      "0000-01-01",  "2026-1-01",
      "2026-01-1",   "26-01-01",
      "2026/01/01",  "2026-01-01T00:00:00Z",
      " 2026-01-01", "2026-01-01 ",
      "+026-01-01",  "2026-0a-01",
      "2026--1-01",  "",
      "yesterday",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    days = 42;
    if (sbio__date_parse(bad[i], &days) != -1) {
      print_error("date \"%s\" was accepted\n", bad[i]);
      fail();
    }
    assert_int_equal(days, 42);
  }
  assert_int_equal(sbio__date_parse(NULL, &days), -1);
}

/* -------------------------------------------------------------------- URL */
static void test_url_check(void **state) {
  (void)state;
  static const struct {
    const char *url;
    const char *reason; /* NULL: accepted */
  } cases[] = {
      {"https://docs.docker.com/engine/security/", NULL},
      {"https://e2b.dev/docs/security#isolation", NULL},
      {"HTTPS://Example.COM/x?y=1", NULL},
      {"https://[2001:db8::1]/doc", NULL},
      {"http://docs.docker.com/", "source url is not https (\"http\")"},
      {"ftp://example.com/doc.txt", "source url is not https (\"ftp\")"},
      {"file:///etc/passwd", "source url is not https (\"file\")"},
      {"https:///x", "source url has no host"},
      {"https://", "source url"},
      {"https://user:secret@example.com/doc", "source url contains credentials"},
      {"https://user@example.com/doc", "source url contains credentials"},
      {"https://:pw@example.com/doc", "source url contains credentials"},
      {"docs.docker.com/engine", "source url does not parse"},
      {"https://exa mple.com/", "source url does not parse"},
      {"https://example.com:99999/", "source url does not parse"},
      {"not a url at all", "source url does not parse"},
      {"https://example.com:8x/", "source url does not parse"},
      {"https://example.com:443/", NULL},
      {"https://[2001:db8::1/doc", "source url does not parse"},
      {"https://[2001:db8::1]x/doc", "source url does not parse"},
      {"https://[]/doc", "source url has no host"},
      {"https://:443/doc", "source url has no host"},
      {"https://exa<mple.com/", "source url does not parse"},
      {"https://example.com/\x01", "source url does not parse"},
      {"https://ex%41mple.com/", NULL},
      {"https://ex%4mple.com/", "source url does not parse"},
      {"1https://example.com/", "source url does not parse"},
      {"mailto:someone@example.com", "source url does not parse"},
      {"", "no source url"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char reason[256] = "";
    int rc = sbio__source_url_check(cases[i].url, reason, sizeof reason);
    int ok = cases[i].reason == NULL ? rc == 0 : (rc == -1 && strstr(reason, cases[i].reason) != NULL);
    if (!ok) {
      print_error("url \"%s\": rc=%d reason \"%s\" (expected %s)\n", cases[i].url, rc, reason,
                  cases[i].reason ? cases[i].reason : "accepted");
      fail();
    }
    /* Secrets never reach the reason. */
    assert_null(strstr(reason, "secret"));
  }
  assert_int_equal(sbio__source_url_check(NULL, NULL, 0), -1);
}

/* ------------------------------------------------------------- evaluation */
static void test_https_source_counts(void **state) {
  (void)state;
  sbio__mechanism m = mech(SBIO_TIER_MICROVM, "https://e2b.dev/docs", "2026-05-01", "Firecracker microVMs");
  expect(&m, &WARN, SBIO_TIER_MICROVM, 0, NULL);
  assert_int_equal(m.age_days, 14);

  m = mech(SBIO_TIER_CONTAINER, "https://docs.docker.com/", "2026-05-15", "q"); /* read today */
  expect(&m, &WARN, SBIO_TIER_CONTAINER, 0, NULL);
  assert_int_equal(m.age_days, 0);
}

static void test_bad_urls_make_unknown(void **state) {
  (void)state;
  sbio__mechanism m = mech(SBIO_TIER_MICROVM, "http://e2b.dev/docs", "2026-05-01", "q");
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "source url is not https (\"http\")");
  assert_int_equal(m.age_days, 14); /* the date is still judged */

  m = mech(SBIO_TIER_MICROVM, "ftp://e2b.dev/docs", "2026-05-01", "q");
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "not https (\"ftp\")");

  m = mech(SBIO_TIER_GVISOR, "https:///x", "2026-05-01", "q");
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "source url has no host");

  m = mech(SBIO_TIER_GVISOR, "https://bob:hunter2@gvisor.dev/", "2026-05-01", "q");
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "source url contains credentials");
  assert_null(strstr(m.reason, "hunter2"));

  m = mech(SBIO_TIER_GVISOR, "gvisor.dev", "2026-05-01", "q");
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "source url does not parse");

  m = mech(SBIO_TIER_GVISOR, NULL, "2026-05-01", "q");
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "no source url");
}

static void test_bad_dates_make_unknown(void **state) {
  (void)state;
  sbio__mechanism m = mech(SBIO_TIER_CONTAINER, "https://x.org/", "2026-02-30", "q");
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "verified_on \"2026-02-30\" is not a calendar date");
  assert_int_equal(m.age_days, -1);

  m = mech(SBIO_TIER_CONTAINER, "https://x.org/", "2023-02-29", "q");
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "verified_on \"2023-02-29\" is not a calendar date");

  m = mech(SBIO_TIER_CONTAINER, "https://x.org/", "2024-02-29", "q"); /* leap day, 806 days old */
  expect(&m, &WARN, SBIO_TIER_CONTAINER, 1, "source verified 806 days ago");

  m = mech(SBIO_TIER_CONTAINER, "https://x.org/", "2026-05-16", "q"); /* tomorrow, UTC */
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "verified_on 2026-05-16 is in the future");
  assert_int_equal(m.age_days, -1);

  m = mech(SBIO_TIER_CONTAINER, "https://x.org/", "2027-01-05", "q");
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "verified_on 2027-01-05 is in the future");

  m = mech(SBIO_TIER_CONTAINER, "https://x.org/", NULL, "q");
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "no verified_on date");
}

/* The day boundary is UTC: late on the 15th, the 15th is today. */
static void test_today_is_utc_day(void **state) {
  (void)state;
  sbio__trust_policy late = WARN;
  late.now = NOW + 11 * 3600 + 59 * 60; /* 23:59 UTC */
  sbio__mechanism m = mech(SBIO_TIER_CONTAINER, "https://x.org/", "2026-05-15", "q");
  expect(&m, &late, SBIO_TIER_CONTAINER, 0, NULL);
  sbio__trust_policy next = WARN;
  next.now = NOW + 12 * 3600; /* 00:00 on the 16th */
  m = mech(SBIO_TIER_CONTAINER, "https://x.org/", "2026-05-16", "q");
  expect(&m, &next, SBIO_TIER_CONTAINER, 0, NULL);
}

static void test_missing_source_parts(void **state) {
  (void)state;
  sbio__mechanism m = mech(SBIO_TIER_MICROVM, "https://x.org/", "2026-05-01", NULL);
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "no source quote");
  m = mech(SBIO_TIER_MICROVM, "https://x.org/", "2026-05-01", "");
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "no source quote");
  m = mech(SBIO_TIER_MICROVM, NULL, NULL, NULL);
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "no source");
  assert_string_equal(m.reason, "no source");
}

static void test_declared_unverified(void **state) {
  (void)state;
  sbio__mechanism m = mech(SBIO_TIER_UNKNOWN, NULL, NULL, NULL);
  m.unverified = (char *)"the provider's docs contradict each other";
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0,
         "the backend declares it unverified: the provider's docs contradict each other");

  /* Even with a tier and a good source, "unverified" wins. */
  m = mech(SBIO_TIER_MICROVM, "https://x.org/", "2026-05-01", "q");
  m.unverified = (char *)"not sure";
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "declares it unverified: not sure");

  /* Tier "unknown" with a source stays UNKNOWN. */
  m = mech(SBIO_TIER_UNKNOWN, "https://x.org/", "2026-05-01", "q");
  expect(&m, &WARN, SBIO_TIER_UNKNOWN, 0, "declares no tier");
}

static void test_stale(void **state) {
  (void)state;
  /* 92 days old: inside the window. */
  sbio__mechanism m = mech(SBIO_TIER_GVISOR, "https://gvisor.dev/", "2026-02-12", "q");
  expect(&m, &WARN, SBIO_TIER_GVISOR, 0, NULL);
  assert_int_equal(m.age_days, 92);

  /* 93 days: stale; under `warn` the tier still counts. */
  m = mech(SBIO_TIER_GVISOR, "https://gvisor.dev/", "2026-02-11", "q");
  expect(&m, &WARN, SBIO_TIER_GVISOR, 1, "source verified 93 days ago (re-verification window 92 days)");
  assert_null(strstr(m.reason, "policy stale: unknown"));

  /* 130 days under `stale: unknown`. */
  m = mech(SBIO_TIER_GVISOR, "https://gvisor.dev/", "2026-01-05", "q");
  expect(&m, &STALE_UNKNOWN, SBIO_TIER_UNKNOWN, 1,
         "source verified 130 days ago (re-verification window 92 days); policy stale: unknown");
  assert_int_equal(m.age_days, 130);

  /* A custom window. */
  sbio__trust_policy weekly = {.max_age_days = 7, .stale_is_unknown = 1, .now = NOW};
  m = mech(SBIO_TIER_GVISOR, "https://gvisor.dev/", "2026-05-01", "q");
  expect(&m, &weekly, SBIO_TIER_UNKNOWN, 1, "source verified 14 days ago (re-verification window 7 days)");
}

static void test_default_policy(void **state) {
  (void)state;
  /* Zero fields mean defaults: 92 days, warn, the real clock. A source
   * from 2000 is stale by any clock that runs this test. */
  sbio__trust_policy zero = {0};
  sbio__mechanism m = mech(SBIO_TIER_CONTAINER, "https://x.org/", "2000-01-01", "q");
  expect(&m, &zero, SBIO_TIER_CONTAINER, 1, "window 92 days)");
  m = mech(SBIO_TIER_CONTAINER, "https://x.org/", "2000-01-01", "q");
  expect(&m, NULL, SBIO_TIER_CONTAINER, 1, "window 92 days)");
}

/* ------------------------------------------------------- whole documents */
static void test_weakest(void **state) {
  (void)state;
  sbio__mechanism mechs[3];
  mechs[0] = mech(SBIO_TIER_MICROVM, "https://x.org/", "2026-05-01", "q");
  mechs[1] = mech(SBIO_TIER_GVISOR, "https://x.org/", "2026-05-01", "q");
  mechs[2] = mech(SBIO_TIER_CONTAINER, "http://x.org/", "2026-05-01", "q"); /* not https: UNKNOWN */
  for (int i = 0; i < 3; i++) sbio__trust_evaluate(&mechs[i], &WARN);
  sbio__metadata md = {.mechs = mechs, .n_mechs = 3};
  assert_int_equal(sbio__trust_weakest_claimed(&md), SBIO_TIER_CONTAINER);
  assert_int_equal(sbio__trust_weakest_effective(&md), SBIO_TIER_UNKNOWN);

  md.n_mechs = 2;
  assert_int_equal(sbio__trust_weakest_claimed(&md), SBIO_TIER_GVISOR);
  assert_int_equal(sbio__trust_weakest_effective(&md), SBIO_TIER_GVISOR);

  md.n_mechs = 1;
  assert_int_equal(sbio__trust_weakest_effective(&md), SBIO_TIER_MICROVM);

  md.n_mechs = 0;
  assert_int_equal(sbio__trust_weakest_claimed(&md), SBIO_TIER_UNKNOWN);
  assert_int_equal(sbio__trust_weakest_effective(&md), SBIO_TIER_UNKNOWN);
  assert_int_equal(sbio__trust_weakest_effective(NULL), SBIO_TIER_UNKNOWN);

  /* A value that is not a tier never counts as strong. */
  mechs[0].effective = (sbio_tier)99;
  md.n_mechs = 1;
  assert_int_equal(sbio__trust_weakest_effective(&md), SBIO_TIER_UNKNOWN);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_date_parse),
      cmocka_unit_test(test_url_check),
      cmocka_unit_test(test_https_source_counts),
      cmocka_unit_test(test_bad_urls_make_unknown),
      cmocka_unit_test(test_bad_dates_make_unknown),
      cmocka_unit_test(test_today_is_utc_day),
      cmocka_unit_test(test_missing_source_parts),
      cmocka_unit_test(test_declared_unverified),
      cmocka_unit_test(test_stale),
      cmocka_unit_test(test_default_policy),
      cmocka_unit_test(test_weakest),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
