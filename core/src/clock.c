/* SPDX-License-Identifier: MIT */
#include "clock.h"

#include <errno.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>

int64_t sbio__monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void sbio__utc_timestamp(char *buf, size_t size) {
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
           tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L);
}

int sbio__random_hex(char *buf, size_t hex_chars) {
  static const char digits[] = "0123456789abcdef";
  unsigned char raw[64];
  size_t need = (hex_chars + 1) / 2;
  if (need > sizeof raw) return -1;
  size_t got = 0;
  while (got < need) {
    ssize_t n = getrandom(raw + got, need - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    got += (size_t)n;
  }
  for (size_t i = 0; i < hex_chars; i++) buf[i] = digits[(raw[i / 2] >> ((i % 2) ? 0 : 4)) & 0xf];
  buf[hex_chars] = '\0';
  return 0;
}

int64_t sbio__deadline_after(double seconds) {
  int64_t now = sbio__monotonic_ns();
  double ns = seconds * 1e9;
  if (!(ns < (double)(INT64_MAX - now))) return INT64_MAX;
  return now + (int64_t)ns;
}
