/* SPDX-License-Identifier: MIT */
/* The checks `sbio doctor` runs on one backend: can it be loaded, are its
 * credentials set (by name; values are never read into the report), can
 * its provider be reached, and how fresh is the source of its tier. */
#include "backend_view.h"
#include "doctor.h"
#include "output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Credentials each first-party backend reads from the environment (by
 * default: a credential setting may name another variable). Only whether
 * they are set is reported, never a value. */
static const struct {
  const char *backend, *var;
  int required;
  const char *from; /* where a missing key is got */
} credentials[] = {
    {"docker", "DOCKER_HOST", 0, NULL}, /* informational: unset means the local socket */
    {"e2b", "E2B_API_KEY", 1, "the E2B dashboard"},
    {"daytona", "DAYTONA_API_KEY", 1, "the Daytona dashboard"},
};

/* Probed by default: asking them is a local call. Everything else may be
 * a cloud API (a request, maybe billed, maybe rate-limited): --probe. */
static int is_local(const char *name) {
  return !strcmp(name, "docker") || !strcmp(name, "fake");
}

void doctor_problem(doctor_state *st, const char *backend, const char *what, const char *fix) {
  cJSON *o = cJSON_CreateObject();
  if (!o || !cli_json_add_string_or_null(o, "backend", backend) || !cJSON_AddStringToObject(o, "what", what) ||
      !cJSON_AddStringToObject(o, "fix", fix) || !cJSON_AddItemToArray(st->problems, o)) {
    cJSON_Delete(o);
    st->oom = 1;
  }
}

void doctor_warning(doctor_state *st, const char *backend, const char *what) {
  cJSON *o = cJSON_CreateObject();
  if (!o || !cli_json_add_string_or_null(o, "backend", backend) || !cJSON_AddStringToObject(o, "what", what) ||
      !cJSON_AddItemToArray(st->warnings, o)) {
    cJSON_Delete(o);
    st->oom = 1;
  }
}

static const char *refusal_fix(const char *reason, char *buf, size_t size, const char *name) {
  if (strstr(reason, "expect_tier"))
    snprintf(buf, size,
             "the provider's isolation changed or the pin is out of date: re-verify it, then update "
             "backends.%s.expect_tier in the configuration",
             name);
  else if (strstr(reason, "sha256") || strstr(reason, "file changed"))
    snprintf(buf, size,
             "the plugin file is not the one pinned: if the upgrade was deliberate, update backends.%s.sha256 "
             "(`sbio inspect %s` prints the digest)",
             name, name);
  else if (strstr(reason, "writable"))
    snprintf(buf, size, "make the file and its directories writable by their owner only (chmod go-w)");
  else
    snprintf(buf, size,
             "run `sbio inspect %s`; reinstall a backend built for this library, or disable it with "
             "backends: {%s: {enabled: false}}",
             name, name);
  return buf;
}

/* The mechanism deciding the tier, and a warning per stale or unverified one. */
static int add_freshness(doctor_state *st, cJSON *o, const sbio_backend_info *b, const char *name) {
  long m = cli_backend_deciding_mechanism(b);
  cJSON *src = m >= 0 ? cJSON_CreateObject() : NULL;
  if (m >= 0) {
    size_t i = (size_t)m;
    int age = sbio_mechanism_age_days(b, i);
    if (!src || !cJSON_AddStringToObject(src, "mechanism", sbio_mechanism_name(b, i)) ||
        !cli_json_add_string_or_null(src, "source_url", sbio_mechanism_source_url(b, i)) ||
        !cli_json_add_string_or_null(src, "verified_on", sbio_mechanism_verified_on(b, i)) ||
        !(age >= 0 ? cJSON_AddNumberToObject(src, "age_days", age) : cJSON_AddNullToObject(src, "age_days")) ||
        !cJSON_AddBoolToObject(src, "stale", sbio_mechanism_stale(b, i)) || !cJSON_AddItemToObject(o, "source", src)) {
      cJSON_Delete(src);
      return -1;
    }
  } else if (!cJSON_AddNullToObject(o, "source")) {
    return -1;
  }
  sbio_backend_status status = sbio_backend_info_status(b);
  if (status != SBIO_BACKEND_AVAILABLE && status != SBIO_BACKEND_LOADED) return 0;
  char what[1024];
  for (size_t i = 0; i < sbio_backend_info_mechanism_count(b); i++) {
    const char *why = sbio_mechanism_reason(b, i);
    if (sbio_mechanism_stale(b, i)) {
      snprintf(what, sizeof what,
               "mechanism %s: %s; re-verify the claim against the provider's documentation and update the backend",
               sbio_mechanism_name(b, i), why && why[0] ? why : "its source is stale");
      doctor_warning(st, name, what);
    } else if (sbio_mechanism_tier(b, i) == SBIO_TIER_UNKNOWN) {
      snprintf(what, sizeof what, "mechanism %s is UNKNOWN (%s): it satisfies no isolation requirement",
               sbio_mechanism_name(b, i), why && why[0] ? why : "not verified");
      doctor_warning(st, name, what);
    }
  }
  return 0;
}

/* {VAR: set?}: the first-party table, then every variable the backend's
 * note declares (names only, never values); returns how many required
 * ones are missing (-1 on OOM), reported as problems when the backend is
 * in use. A declared variable outside the table is informational: whether
 * the backend needs it is its own business. */
static int add_credentials(doctor_state *st, cJSON *o, const sbio_backend_info *b, const char *name, int in_use) {
  cJSON *creds = cJSON_AddObjectToObject(o, "credentials");
  if (!creds) return -1;
  int missing = 0;
  for (size_t i = 0; i < sizeof credentials / sizeof *credentials; i++) {
    if (strcmp(credentials[i].backend, name) != 0) continue;
    const char *v = getenv(credentials[i].var);
    if (!cJSON_AddBoolToObject(creds, credentials[i].var, v && v[0])) return -1;
    if (!credentials[i].required || !in_use) continue;
    /* The variable the backend reads: the one its credential setting
     * (first-party backends declare one, api_key_env) names when that is
     * configured, else the default. A name the library withholds (unset,
     * it may be the key itself) is never printed. */
    const char *named = NULL, *setting = sbio_backend_info_credential_setting(b, 0, &named);
    const char *consulted_var = setting ? named : credentials[i].var;
    const char *value = consulted_var ? getenv(consulted_var) : NULL;
    if (value && value[0]) continue;
    char consulted[160];
    if (consulted_var)
      snprintf(consulted, sizeof consulted, "%s", consulted_var);
    else
      snprintf(consulted, sizeof consulted, "the variable that settings.%s names", setting);
    char what[200], fix[400];
    snprintf(what, sizeof what, "%s is not set", consulted);
    snprintf(fix, sizeof fix, "export %s with an API key from %s, or disable the backend", consulted,
             credentials[i].from);
    doctor_problem(st, name, what, fix);
    missing++;
  }
  for (size_t i = 0; i < sbio_backend_info_credential_count(b); i++) {
    const char *var = sbio_backend_info_credential_var(b, i);
    if (!var || cJSON_GetObjectItemCaseSensitive(creds, var)) continue;
    const char *v = getenv(var);
    if (!cJSON_AddBoolToObject(creds, var, v && v[0])) return -1;
  }
  return missing;
}

static int set_reachability(cJSON *o, int reachable, const char *text) {
  if (!(reachable < 0 ? cJSON_AddNullToObject(o, "reachable") : cJSON_AddBoolToObject(o, "reachable", reachable)))
    return -1;
  return cJSON_AddStringToObject(o, "reachability", text) ? 0 : -1;
}

static int probe(doctor_state *st, cJSON *o, sbio_host *host, const char *name) {
  char detail[512], text[700];
  sbio_error *err = sbio_error_new();
  if (!err) return -1;
  sbio_code rc = sbio_backend_probe(host, name, detail, sizeof detail, err);
  int r;
  if (rc == SBIO_OK) {
    r = set_reachability(o, 1, detail[0] ? detail : "reachable");
  } else if (rc == SBIO_E_CAPABILITY) {
    r = set_reachability(o, -1, "not checked: the backend has no probe operation");
  } else {
    snprintf(text, sizeof text, "[%s] %s", sbio_code_name(rc) ? sbio_code_name(rc) : "?", sbio_error_message(err));
    r = set_reachability(o, 0, text);
    char what[800];
    snprintf(what, sizeof what, "unreachable: %s", text);
    const char *hint = sbio_error_hint(err);
    doctor_problem(st, name, what, hint && hint[0] ? hint : "check the provider's status and the network");
  }
  sbio_error_free(err);
  return r;
}

cJSON *doctor_check_backend(doctor_state *st, sbio_host *host, const sbio_backend_info *b) {
  const char *name = sbio_backend_info_name(b);
  int problems_before = cJSON_GetArraySize(st->problems);
  sbio_backend_status status = sbio_backend_info_status(b);
  /* Loading runs the backend's entry point only (no instance, no network);
   * it surfaces the refusals a scan cannot see. */
  if (status == SBIO_BACKEND_AVAILABLE) {
    sbio_host_load_backend(host, name, NULL);
    status = sbio_backend_info_status(b);
  }
  cJSON *o = cJSON_CreateObject();
  const char *reason = sbio_backend_info_reason(b);
  if (!o || !cJSON_AddStringToObject(o, "name", name) ||
      !cJSON_AddStringToObject(o, "path", sbio_backend_info_path(b)) ||
      !cJSON_AddStringToObject(o, "status", sbio_backend_status_name(status)) ||
      !cJSON_AddBoolToObject(o, "enabled", sbio_backend_info_enabled(b)) ||
      !cli_json_add_string_or_null(o, "version", sbio_backend_info_version(b)) ||
      !cJSON_AddStringToObject(o, "tier", cli_tier_text(sbio_backend_info_tier(b))) ||
      !cJSON_AddStringToObject(o, "claimed_tier", cli_tier_text(sbio_backend_info_claimed_tier(b))) ||
      !cli_json_add_string_or_null(o, "reason", reason) || add_freshness(st, o, b, name) != 0)
    goto oom;
  int checked = status == SBIO_BACKEND_AVAILABLE || status == SBIO_BACKEND_LOADED;
  int missing = add_credentials(st, o, b, name, checked);
  if (missing < 0) goto oom;
  int r = 0;
  if (status == SBIO_BACKEND_SHADOWED) {
    r = set_reachability(o, -1, "not checked: shadowed by a file of the same name earlier in the search path");
  } else if (status == SBIO_BACKEND_DISABLED) {
    r = set_reachability(o, -1, "not checked: disabled by configuration");
  } else if (status == SBIO_BACKEND_REFUSED) {
    char what[1200], fix[400];
    snprintf(what, sizeof what, "refused: %s", reason);
    doctor_problem(st, name, what, refusal_fix(reason, fix, sizeof fix, name));
    r = set_reachability(o, -1, "not checked: refused");
  } else if (missing) {
    r = set_reachability(o, -1, "not checked: credentials missing");
  } else if (!is_local(name) && !st->probe_all) {
    r = set_reachability(o, -1, "not probed: asking may contact the provider; use --probe");
  } else {
    r = probe(st, o, host, name);
  }
  if (r != 0) goto oom;
  int healthy = cJSON_GetArraySize(st->problems) == problems_before;
  if (!(checked || status == SBIO_BACKEND_REFUSED ? cJSON_AddBoolToObject(o, "healthy", healthy)
                                                  : cJSON_AddNullToObject(o, "healthy")))
    goto oom;
  return o;
oom:
  cJSON_Delete(o);
  st->oom = 1;
  return NULL;
}
