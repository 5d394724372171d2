/* SPDX-License-Identifier: MIT */
/* Fuzz target: the ELF note reader, and the metadata parser and trust
 * evaluation behind it, on arbitrary bytes posing as a backend file. */
#include "elfnote.h"
#include "metadata.h"
#include "trust.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *json = NULL;
  size_t json_len = 0;
  char reason[256];
  if (sbio__elfnote_find(data, size, &json, &json_len, reason, sizeof reason) != 0) {
    /* Reasons are one bounded, terminated line. */
    if (memchr(reason, '\0', sizeof reason) == NULL || strchr(reason, '\n') != NULL) __builtin_trap();
    return 0;
  }
  /* The contract: json points into the input, is json_len bytes, and ends at
   * a NUL that is also inside the input. */
  if (json < (const char *)data || json + json_len >= (const char *)data + size || json[json_len] != '\0' ||
      strlen(json) != json_len || json_len == 0) {
    __builtin_trap();
  }

  sbio__metadata m;
  if (sbio__metadata_parse(json, json_len, &m, reason, sizeof reason) == 0) {
    sbio__trust_policy policy = {.max_age_days = 92, .stale_is_unknown = 1, .now = 1778846400};
    for (size_t i = 0; i < m.n_mechs; i++) sbio__trust_evaluate(&m.mechs[i], &policy);
    (void)sbio__trust_weakest_effective(&m);
  }
  sbio__metadata_free(&m);
  return 0;
}
