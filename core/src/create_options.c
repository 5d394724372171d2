/* SPDX-License-Identifier: MIT */
/* sbio_create_options: what a caller asks of a new sandbox. Setters refuse
 * invalid values, and also remember the refusal so that a caller who
 * ignores the return value still gets a failing create rather than a
 * sandbox without the setting (fail closed). */
#include "create_options.h"

#include "admission.h"
#include "error_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sbio_create_options *sbio_create_options_new(void) {
  return calloc(1, sizeof(sbio_create_options));
}

void sbio_create_options_free(sbio_create_options *o) {
  if (!o) return;
  free(o->template_name);
  sbio__kvlist_free(&o->env);
  sbio__kvlist_free(&o->secrets);
  sbio__kvlist_free(&o->labels);
  free(o->gpu);
  sbio__strlist_free(&o->allow);
  free(o);
}

static sbio_code refuse(sbio_create_options *o, const char *what) {
  if (!o->invalid[0]) snprintf(o->invalid, sizeof o->invalid, "%s", what);
  return SBIO_E_CONFIG;
}

static sbio_code oom(sbio_create_options *o) {
  if (!o->invalid[0]) snprintf(o->invalid, sizeof o->invalid, "out of memory while setting create options");
  return SBIO_E_INTERNAL;
}

sbio_code sbio_create_options_require_isolation(sbio_create_options *o, sbio_tier tier) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  o->require_set = 1;
  o->require = tier;
  if (tier == SBIO_TIER_UNKNOWN || sbio_tier_rank(tier) < 0)
    return refuse(o, "requiring isolation UNKNOWN (or a value that is not a tier) is meaningless");
  return SBIO_OK;
}

sbio_code sbio_create_options_set_template(sbio_create_options *o, const char *tmpl) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  char *copy = tmpl && tmpl[0] ? strdup(tmpl) : NULL;
  if (tmpl && tmpl[0] && !copy) return oom(o);
  free(o->template_name);
  o->template_name = copy;
  return SBIO_OK;
}

static sbio_code set_kv(sbio_create_options *o, sbio__kvlist *l, const char *what, const char *key, const char *value) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  if (!key || !key[0] || strchr(key, '=') || !value) {
    char msg[128];
    snprintf(msg, sizeof msg, "%s keys must be non-empty, contain no '=', and have a value", what);
    return refuse(o, msg);
  }
  return sbio__kvlist_set(l, key, value) == 0 ? SBIO_OK : oom(o);
}

sbio_code sbio_create_options_set_env(sbio_create_options *o, const char *key, const char *value) {
  return set_kv(o, o ? &o->env : NULL, "env", key, value);
}
sbio_code sbio_create_options_set_secret(sbio_create_options *o, const char *key, const char *value) {
  return set_kv(o, o ? &o->secrets : NULL, "secret", key, value);
}
sbio_code sbio_create_options_set_label(sbio_create_options *o, const char *key, const char *value) {
  return set_kv(o, o ? &o->labels : NULL, "label", key, value);
}

sbio_code sbio_create_options_set_cpu(sbio_create_options *o, double cpus) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  if (!isfinite(cpus) || cpus <= 0) return refuse(o, "cpu must be > 0: a caller may raise a cap, never unset it");
  o->cpu = cpus;
  return SBIO_OK;
}

sbio_code sbio_create_options_set_memory_mb(sbio_create_options *o, int64_t mb) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  if (mb <= 0) return refuse(o, "memory_mb must be > 0: a caller may raise a cap, never unset it");
  o->memory_mb = mb;
  return SBIO_OK;
}

sbio_code sbio_create_options_set_disk_mb(sbio_create_options *o, int64_t mb) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  if (mb <= 0) return refuse(o, "disk_mb must be > 0: a caller may raise a cap, never unset it");
  o->disk_mb = mb;
  return SBIO_OK;
}

sbio_code sbio_create_options_set_gpu(sbio_create_options *o, const char *gpu) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  char *copy = gpu && gpu[0] ? strdup(gpu) : NULL;
  if (gpu && gpu[0] && !copy) return oom(o);
  free(o->gpu);
  o->gpu = copy;
  return SBIO_OK;
}

sbio_code sbio_create_options_set_egress(sbio_create_options *o, sbio_egress egress) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  if (egress != SBIO_EGRESS_DENY && egress != SBIO_EGRESS_ALLOW) return refuse(o, "egress must be deny or allow");
  o->egress = egress;
  return SBIO_OK;
}

sbio_code sbio_create_options_allow_host(sbio_create_options *o, const char *host) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  if (!host || !host[0]) return refuse(o, "an allow-list entry must be a non-empty host or CIDR");
  return sbio__strlist_add(&o->allow, host) == 0 ? SBIO_OK : oom(o);
}

sbio_code sbio_create_options_set_timeout(sbio_create_options *o, double seconds) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  if (!isfinite(seconds) || seconds <= 0)
    return refuse(o, "timeout must be a positive number of seconds: sandboxes are never unbounded");
  if (seconds > SBIO_MAX_TIMEOUT_S)
    return refuse(o, "timeout is above the maximum of 86400 seconds (24 hours); a longer lifetime is refused, "
                     "not shortened");
  o->timeout_set = 1;
  o->timeout_s = seconds;
  return SBIO_OK;
}

sbio_code sbio_create_options_require_capabilities(sbio_create_options *o, sbio_caps caps) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  if (!sbio__caps_known(caps)) return refuse(o, "required capabilities hold a bit that is not a capability");
  o->required_caps |= caps;
  return SBIO_OK;
}
