/* SPDX-License-Identifier: MIT */
/* The trust model (ARCHITECTURE.md section 3). A tier is a claim about
 * someone else's infrastructure; it counts only when it comes with a source
 * a reader can check: an https page of the provider's documentation, the
 * date it was read and the sentence that says so. Everything short of that
 * makes the mechanism UNKNOWN, and the reason is kept so `sbio inspect` can
 * say exactly what is missing. */
#include "trust.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define SECONDS_PER_DAY 86400

/* ------------------------------------------------------------------ dates */
static int is_leap(int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

static int days_in_month(int64_t year, int month) {
  static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : days[month - 1];
}

/* Leap days in the years 1..year-1 of the proleptic Gregorian calendar. */
static int64_t leap_days_before(int64_t year) {
  int64_t y = year - 1;
  return y / 4 - y / 100 + y / 400;
}

static int digits(const char *text, int n, int64_t *value) {
  int64_t v = 0;
  for (int i = 0; i < n; i++) {
    if (text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (text[i] - '0');
  }
  *value = v;
  return 0;
}

int sbio__date_parse(const char *text, int64_t *days_since_epoch) {
  int64_t year, month, day;
  if (text == NULL || strlen(text) != 10 || text[4] != '-' || text[7] != '-') return -1;
  if (digits(text, 4, &year) != 0 || digits(text + 5, 2, &month) != 0 || digits(text + 8, 2, &day) != 0) return -1;
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, (int)month)) return -1;

  int64_t days = 365 * (year - 1970) + leap_days_before(year) - leap_days_before(1970);
  for (int m = 1; m < month; m++) days += days_in_month(year, m);
  days += day - 1;
  if (days_since_epoch) *days_since_epoch = days;
  return 0;
}

/* Floor division: a negative `now` (tests, clock trouble) still maps to
 * the UTC day that contains it. */
static int64_t day_of(int64_t unix_seconds) {
  int64_t d = unix_seconds / SECONDS_PER_DAY;
  return (unix_seconds % SECONDS_PER_DAY < 0) ? d - 1 : d;
}

/* -------------------------------------------------------------------- URL */
static int url_fail(char *reason, size_t reason_size, const char *text) {
  if (reason != NULL && reason_size > 0) snprintf(reason, reason_size, "%s", text);
  return -1;
}

/* A host name or IPv4 address: letters, digits, "-", "." , "_", "~" and
 * percent-escapes, nothing else (RFC 3986's reg-name without the
 * sub-delimiters, which no documentation host uses). */
static int host_ok(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c == '%') {
      if (i + 2 >= n || !isxdigit((unsigned char)p[i + 1]) || !isxdigit((unsigned char)p[i + 2])) return 0;
      i += 2;
    } else if (!isalnum(c) && c != '-' && c != '.' && c != '_' && c != '~') {
      return 0;
    }
  }
  return 1;
}

/* An IPv6 literal's inside, without the brackets. */
static int ipv6_ok(const char *p, size_t n) {
  if (n == 0) return 0;
  for (size_t i = 0; i < n; i++)
    if (!isxdigit((unsigned char)p[i]) && p[i] != ':' && p[i] != '.') return 0;
  return 1;
}

/* Empty, or decimal digits naming a port in 0..65535. */
static int port_ok(const char *p, size_t n) {
  long v = 0;
  if (n > 5) return 0;
  for (size_t i = 0; i < n; i++) {
    if (!isdigit((unsigned char)p[i])) return 0;
    v = v * 10 + (p[i] - '0');
  }
  return v <= 65535;
}

/* The URL is parsed here rather than with a URL library so that judging a
 * backend's metadata (every `sbio` command) loads nothing: scheme "://"
 * authority [path] [?query] [#fragment], printable ASCII only. */
int sbio__source_url_check(const char *url, char *reason, size_t reason_size) {
  if (url == NULL || *url == '\0') return url_fail(reason, reason_size, "no source url");
  for (const unsigned char *p = (const unsigned char *)url; *p; p++)
    if (*p <= 0x20 || *p >= 0x7f) return url_fail(reason, reason_size, "source url does not parse");
  /* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
  size_t slen = 0;
  if (!isalpha((unsigned char)url[0])) return url_fail(reason, reason_size, "source url does not parse");
  while (isalnum((unsigned char)url[slen]) || url[slen] == '+' || url[slen] == '-' || url[slen] == '.') slen++;
  if (strncmp(url + slen, "://", 3) != 0) return url_fail(reason, reason_size, "source url does not parse");
  char scheme[17];
  size_t shown = slen < sizeof scheme - 1 ? slen : sizeof scheme - 1;
  for (size_t i = 0; i < shown; i++) scheme[i] = (char)tolower((unsigned char)url[i]);
  scheme[shown] = '\0';
  if (slen != 5 || strcmp(scheme, "https") != 0) {
    /* Only the scheme is echoed: the rest of the URL might carry secrets. */
    if (reason != NULL && reason_size > 0) snprintf(reason, reason_size, "source url is not https (\"%s\")", scheme);
    return -1;
  }
  const char *auth = url + slen + 3;
  size_t alen = strcspn(auth, "/?#");
  if (memchr(auth, '@', alen)) return url_fail(reason, reason_size, "source url contains credentials");
  const char *host = auth, *port = NULL;
  size_t hlen = alen;
  int host_valid;
  if (alen > 0 && auth[0] == '[') {
    const char *close = memchr(auth, ']', alen);
    if (!close) return url_fail(reason, reason_size, "source url does not parse");
    host = auth + 1;
    hlen = (size_t)(close - host);
    host_valid = ipv6_ok(host, hlen);
    const char *after = close + 1;
    if (after < auth + alen) {
      if (*after != ':') return url_fail(reason, reason_size, "source url does not parse");
      port = after + 1;
    }
  } else {
    const char *colon = memchr(auth, ':', alen);
    if (colon) {
      hlen = (size_t)(colon - auth);
      port = colon + 1;
    }
    host_valid = host_ok(host, hlen);
  }
  if (hlen == 0) return url_fail(reason, reason_size, "source url has no host");
  if (!host_valid || (port && !port_ok(port, (size_t)(auth + alen - port))))
    return url_fail(reason, reason_size, "source url does not parse");
  return 0;
}

/* ------------------------------------------------------------- evaluation */
static void set_reason(sbio__mechanism *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_reason(sbio__mechanism *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->reason, sizeof m->reason, fmt, ap);
  va_end(ap);
}

/* The date check: fills *age_days, or writes the reason and returns -1. */
static int check_date(sbio__mechanism *m, int64_t now_days, int64_t *age_days) {
  int64_t verified_days;
  if (m->verified_on == NULL || *m->verified_on == '\0') {
    set_reason(m, "no verified_on date");
    return -1;
  }
  if (sbio__date_parse(m->verified_on, &verified_days) != 0) {
    set_reason(m, "verified_on \"%.40s\" is not a calendar date", m->verified_on);
    return -1;
  }
  if (verified_days > now_days) {
    set_reason(m, "verified_on %s is in the future", m->verified_on);
    return -1;
  }
  *age_days = now_days - verified_days;
  return 0;
}

/* Zero fields mean "not set" so a zero-initialised policy behaves sanely. */
static void effective_policy(const sbio__trust_policy *in, int *max_age_days, int *stale_is_unknown, int64_t *now) {
  *max_age_days = (in != NULL && in->max_age_days > 0) ? in->max_age_days : SBIO__DEFAULT_MAX_AGE_DAYS;
  *stale_is_unknown = in != NULL && in->stale_is_unknown;
  *now = (in != NULL && in->now != 0) ? in->now : (int64_t)time(NULL);
}

void sbio__trust_evaluate(sbio__mechanism *m, const sbio__trust_policy *policy) {
  if (m == NULL) return;
  int max_age_days, stale_is_unknown;
  int64_t now;
  effective_policy(policy, &max_age_days, &stale_is_unknown, &now);

  m->effective = SBIO_TIER_UNKNOWN;
  m->stale = 0;
  m->age_days = -1;
  m->reason[0] = '\0';

  /* The date is judged even when something else fails, so listings can
   * show how old a source is. */
  int64_t age_days = -1;
  char date_reason[sizeof m->reason];
  int date_ok = check_date(m, day_of(now), &age_days) == 0;
  memcpy(date_reason, m->reason, sizeof date_reason);
  m->reason[0] = '\0';
  if (date_ok) m->age_days = age_days > 1000000 ? 1000000 : (int)age_days;

  char url_reason[sizeof m->reason];
  if (m->unverified != NULL) {
    set_reason(m, "the backend declares it unverified: %s", m->unverified);
    return;
  }
  if (m->claimed == SBIO_TIER_UNKNOWN || sbio_tier_rank(m->claimed) < 0) {
    set_reason(m, "the backend declares no tier");
    return;
  }
  if (m->url == NULL && m->verified_on == NULL && m->quote == NULL) {
    set_reason(m, "no source");
    return;
  }
  if (sbio__source_url_check(m->url, url_reason, sizeof url_reason) != 0) {
    set_reason(m, "%s", url_reason);
    return;
  }
  if (!date_ok) {
    set_reason(m, "%s", date_reason);
    return;
  }
  if (m->quote == NULL || *m->quote == '\0') {
    set_reason(m, "no source quote");
    return;
  }

  if (age_days > max_age_days) {
    m->stale = 1;
    set_reason(m, "source verified %lld days ago (re-verification window %d days)%s", (long long)age_days, max_age_days,
               stale_is_unknown ? "; policy stale: unknown" : "");
    if (stale_is_unknown) return;
  }
  m->effective = m->claimed;
}

static sbio_tier weakest(const sbio__metadata *m, int use_effective) {
  if (m == NULL || m->n_mechs == 0) return SBIO_TIER_UNKNOWN;
  sbio_tier result = use_effective ? m->mechs[0].effective : m->mechs[0].claimed;
  for (size_t i = 0; i < m->n_mechs; i++) {
    sbio_tier t = use_effective ? m->mechs[i].effective : m->mechs[i].claimed;
    /* Anything that is not a real tier counts as the weakest claim. */
    if (sbio_tier_rank(t) < 0) return SBIO_TIER_UNKNOWN;
    if (sbio_tier_rank(t) < sbio_tier_rank(result)) result = t;
  }
  return result;
}

sbio_tier sbio__trust_weakest_effective(const sbio__metadata *m) {
  return weakest(m, 1);
}
sbio_tier sbio__trust_weakest_claimed(const sbio__metadata *m) {
  return weakest(m, 0);
}
