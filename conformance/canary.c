/* SPDX-License-Identifier: MIT */
#include "canary.h"

#include "kit.h"

#include <stdio.h>
#include <string.h>

void kit_canary_make(kit_canary *k, const char *prefix) {
  kit_random_hex(k->token, 12);
  snprintf(k->value, sizeof k->value, "%s\"%s/+x", prefix, k->token);
}

static int contains(const char *hay, size_t len, const char *needle) {
  size_t n = strlen(needle);
  if (!n || n > len) return 0;
  for (size_t i = 0; i + n <= len; i++)
    if (memcmp(hay + i, needle, n) == 0) return 1;
  return 0;
}

int kit_canary_in(const kit_canary *k, const char *text, size_t len) {
  return text && (contains(text, len, k->token) || contains(text, len, k->value));
}
