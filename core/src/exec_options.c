/* SPDX-License-Identifier: MIT */
/* sbio_exec_options. As with create options, a refused setting is
 * remembered so an exec that ignores the setter's status still fails. */
#include "exec_options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sbio_exec_options *sbio_exec_options_new(void) {
  sbio_exec_options *o = calloc(1, sizeof *o);
  if (o) o->output_cap = SBIO_DEFAULT_OUTPUT_CAP;
  return o;
}

void sbio_exec_options_free(sbio_exec_options *o) {
  if (!o) return;
  sbio__kvlist_free(&o->env);
  free(o->cwd);
  free(o->stdin_data);
  free(o);
}

static sbio_code refuse(sbio_exec_options *o, sbio_code code, const char *what) {
  if (!o->invalid[0]) snprintf(o->invalid, sizeof o->invalid, "%s", what);
  return code;
}

sbio_code sbio_exec_options_set_env(sbio_exec_options *o, const char *key, const char *value) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  if (!key || !key[0] || strchr(key, '=') || !value)
    return refuse(o, SBIO_E_CONFIG, "env keys must be non-empty, contain no '=', and have a value");
  return sbio__kvlist_set(&o->env, key, value) == 0 ? SBIO_OK : refuse(o, SBIO_E_INTERNAL, "out of memory");
}

sbio_code sbio_exec_options_set_cwd(sbio_exec_options *o, const char *cwd) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  char *copy = cwd && cwd[0] ? strdup(cwd) : NULL;
  if (cwd && cwd[0] && !copy) return refuse(o, SBIO_E_INTERNAL, "out of memory");
  free(o->cwd);
  o->cwd = copy;
  return SBIO_OK;
}

sbio_code sbio_exec_options_set_stdin(sbio_exec_options *o, const void *data, size_t len) {
  if (!o || (len && !data)) return SBIO_E_INVALID_ARGUMENT;
  unsigned char *copy = malloc(len ? len : 1);
  if (!copy) return refuse(o, SBIO_E_INTERNAL, "out of memory");
  if (len) memcpy(copy, data, len);
  free(o->stdin_data);
  o->stdin_data = copy;
  o->stdin_len = len;
  o->has_stdin = 1;
  return SBIO_OK;
}

sbio_code sbio_exec_options_set_timeout(sbio_exec_options *o, double seconds) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  if (!isfinite(seconds) || seconds <= 0)
    return refuse(o, SBIO_E_CONFIG, "exec timeout must be a positive number of seconds: never unbounded");
  if (seconds > SBIO_MAX_TIMEOUT_S)
    return refuse(o, SBIO_E_CONFIG, "exec timeout is above the maximum of 86400 seconds (24 hours)");
  o->timeout_set = 1;
  o->timeout_s = seconds;
  return SBIO_OK;
}

sbio_code sbio_exec_options_set_output_callback(sbio_exec_options *o, sbio_output_fn fn, void *user) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  o->output_fn = fn;
  o->output_user = user;
  return SBIO_OK;
}

sbio_code sbio_exec_options_set_output_cap(sbio_exec_options *o, size_t bytes_per_stream) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  o->output_cap = bytes_per_stream;
  return SBIO_OK;
}

sbio_code sbio_exec_options_set_cancel(sbio_exec_options *o, sbio_cancel *c) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  o->cancel = c;
  return SBIO_OK;
}
