/* SPDX-License-Identifier: MIT */
/* Fuzz target: YAML configuration text -> sbio__config_merge_buffer.
 *
 * Each input is merged twice into one config, so the merge of a second
 * layer over a first (replace, per-field backend merge, atomic failure)
 * runs under the sanitizers too, then everything is freed: a leak or an
 * out-of-bounds access on any input is a finding. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sbio_error *err = sbio_error_new();
  sbio__config cfg;
  sbio__config_init(&cfg);
  const char *text = (const char *)data;
  sbio_code first = sbio__config_merge_buffer(&cfg, "fuzz.yaml", text, size, err);
  /* Error messages must be NUL-terminated strings; reading one catches a
   * message built past its buffer. */
  if (first != SBIO_OK && strlen(sbio_error_message(err)) == 0) __builtin_trap();
  sbio_code second = sbio__config_merge_buffer(&cfg, "again.yaml", text, size, err);
  /* Parsing is deterministic: the same text cannot pass once and fail once. */
  if ((first == SBIO_OK) != (second == SBIO_OK)) __builtin_trap();
  if (first == SBIO_OK && cfg.n_files_read != 2) __builtin_trap();
  for (size_t i = 0; i < cfg.n_backends; i++)
    if (!cfg.backends[i].name || !cfg.backends[i].where) __builtin_trap();
  sbio__config_free(&cfg);
  sbio_error_free(err);
  return 0;
}
