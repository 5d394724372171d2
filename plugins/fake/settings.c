/* SPDX-License-Identifier: MIT */
#include "settings.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SETTINGS_HINT "see docs/backends/fake.md for the fake backend's settings"

static int oom(sbio_bk_error *err) {
  return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory reading the fake backend's settings");
}

static int bad(sbio_bk_error *err, const char *where, const char *what) {
  return sbio_bk_error_set(err, SBIO_E_CONFIG, SETTINGS_HINT, "fake settings: '%s' %s", where, what);
}

/* Every member of `obj` must be one of `known` (NULL-terminated). */
static int check_keys(const cJSON *obj, const char *prefix, const char *const *known, sbio_bk_error *err) {
  for (const cJSON *item = obj->child; item; item = item->next) {
    const char *key = item->string ? item->string : "";
    size_t i = 0;
    while (known[i] && strcmp(known[i], key) != 0) i++;
    const cJSON *prev = obj->child;
    while (prev != item && !(prev->string && strcmp(prev->string, key) == 0)) prev = prev->next;
    if (!known[i] || prev != item) {
      char where[300];
      snprintf(where, sizeof where, "%s%.200s", prefix, key);
      return sbio_bk_error_set(err, SBIO_E_CONFIG, SETTINGS_HINT, "fake settings: %s key '%s'",
                               known[i] ? "duplicate" : "unknown", where);
    }
  }
  return SBIO_OK;
}

static int get_string(const cJSON *obj, const char *key, const char *where, char **out, sbio_bk_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return SBIO_OK;
  if (!cJSON_IsString(v) || !v->valuestring) return bad(err, where, "must be a string");
  free(*out);
  *out = strdup(v->valuestring);
  return *out ? SBIO_OK : oom(err);
}

static int get_bool(const cJSON *obj, const char *key, const char *where, int *out, sbio_bk_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return SBIO_OK;
  if (!cJSON_IsBool(v)) return bad(err, where, "must be true or false");
  *out = cJSON_IsTrue(v);
  return SBIO_OK;
}

/* A finite number >= min (> min when `strict`). */
static int get_number(const cJSON *obj, const char *key, const char *where, double min, int strict, double *out,
                      sbio_bk_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v) return SBIO_OK;
  double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  if (!isfinite(d) || d < min || (strict && d == min))
    return bad(err, where, strict ? "must be a number > 0" : "must be a number >= 0");
  *out = d;
  return SBIO_OK;
}

static int parse_script(const cJSON *obj, size_t index, fake_script *s, sbio_bk_error *err) {
  static const char *const known[] = {"match", "stdout", "stderr", "exit_code", "delay", "hang", "error", NULL};
  char prefix[48], where[96];
  snprintf(prefix, sizeof prefix, "scripts[%zu].", index);
  if (!cJSON_IsObject(obj)) {
    snprintf(where, sizeof where, "scripts[%zu]", index);
    return bad(err, where, "must be an object");
  }
  int rc = check_keys(obj, prefix, known, err);
#define WHERE(k) (snprintf(where, sizeof where, "%s%s", prefix, k), where)
  if (rc == SBIO_OK) rc = get_string(obj, "match", WHERE("match"), &s->match, err);
  if (rc == SBIO_OK && !s->match) rc = bad(err, WHERE("match"), "is required (a substring of the command)");
  if (rc == SBIO_OK) rc = get_string(obj, "stdout", WHERE("stdout"), &s->out, err);
  if (rc == SBIO_OK) rc = get_string(obj, "stderr", WHERE("stderr"), &s->err, err);
  if (rc == SBIO_OK) rc = get_number(obj, "delay", WHERE("delay"), 0, 0, &s->delay, err);
  if (rc == SBIO_OK) rc = get_bool(obj, "hang", WHERE("hang"), &s->hang, err);
  if (rc == SBIO_OK) {
    double code = 0;
    rc = get_number(obj, "exit_code", WHERE("exit_code"), 0, 0, &code, err);
    if (rc == SBIO_OK && (code > 255 || code != floor(code))) rc = bad(err, where, "must be an integer from 0 to 255");
    s->exit_code = (int)code;
  }
  if (rc == SBIO_OK) rc = get_string(obj, "error", WHERE("error"), &s->error_name, err);
  if (rc == SBIO_OK && s->error_name) {
    s->error_code = sbio__fake_script_error_code(s->error_name);
    if (!s->error_code)
      rc = sbio_bk_error_set(err, SBIO_E_CONFIG, SETTINGS_HINT, "fake settings: '%s' must be one of: %s", where,
                             sbio__fake_script_error_names());
  }
#undef WHERE
  return rc;
}

static int parse_scripts(const cJSON *root, fake_settings *s, sbio_bk_error *err) {
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "scripts");
  if (!arr) return SBIO_OK;
  if (!cJSON_IsArray(arr)) return bad(err, "scripts", "must be an array of objects");
  size_t n = (size_t)cJSON_GetArraySize(arr);
  if (n == 0) return SBIO_OK;
  s->scripts = calloc(n, sizeof *s->scripts);
  if (!s->scripts) return oom(err);
  size_t i = 0;
  for (const cJSON *item = arr->child; item; item = item->next, i++) {
    s->n_scripts = i + 1; /* so a half-parsed entry is freed too */
    int rc = parse_script(item, i, &s->scripts[i], err);
    if (rc != SBIO_OK) return rc;
  }
  return SBIO_OK;
}

static int parse_simulate(const cJSON *root, fake_simulate *sim, sbio_bk_error *err) {
  static const char *const known[] = {"create_fails", "create_takes",  "kill_fails", "kill_hangs",
                                      "auth_missing", "connect_fails", NULL};
  const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "simulate");
  if (!obj) return SBIO_OK;
  if (!cJSON_IsObject(obj)) return bad(err, "simulate", "must be an object");
  int rc = check_keys(obj, "simulate.", known, err);
  if (rc == SBIO_OK) rc = get_string(obj, "create_fails", "simulate.create_fails", &sim->create_fails, err);
  if (rc == SBIO_OK) rc = get_number(obj, "create_takes", "simulate.create_takes", 0, 0, &sim->create_takes, err);
  if (rc == SBIO_OK) rc = get_string(obj, "kill_fails", "simulate.kill_fails", &sim->kill_fails, err);
  if (rc == SBIO_OK) rc = get_bool(obj, "kill_hangs", "simulate.kill_hangs", &sim->kill_hangs, err);
  if (rc == SBIO_OK) rc = get_bool(obj, "auth_missing", "simulate.auth_missing", &sim->auth_missing, err);
  if (rc == SBIO_OK) rc = get_string(obj, "connect_fails", "simulate.connect_fails", &sim->connect_fails, err);
  return rc;
}

static int parse_root(const cJSON *root, fake_settings *s, sbio_bk_error *err) {
  static const char *const known[] = {"time_scale", "scripts", "simulate", "call_log", NULL};
  if (!cJSON_IsObject(root))
    return sbio_bk_error_set(err, SBIO_E_CONFIG, SETTINGS_HINT, "fake settings must be a JSON object");
  int rc = check_keys(root, "", known, err);
  if (rc == SBIO_OK) rc = get_number(root, "time_scale", "time_scale", 0, 1, &s->time_scale, err);
  if (rc == SBIO_OK) rc = parse_scripts(root, s, err);
  if (rc == SBIO_OK) rc = parse_simulate(root, &s->sim, err);
  if (rc == SBIO_OK) rc = get_string(root, "call_log", "call_log", &s->call_log, err);
  if (rc == SBIO_OK && s->call_log && s->call_log[0] != '/') rc = bad(err, "call_log", "must be an absolute path");
  return rc;
}

int sbio__fake_settings_parse(const char *json, fake_settings *out, sbio_bk_error *err) {
  memset(out, 0, sizeof *out);
  out->time_scale = FAKE_DEFAULT_TIME_SCALE;
  cJSON *root = cJSON_ParseWithOpts(json ? json : "{}", NULL, 1);
  if (!root) return sbio_bk_error_set(err, SBIO_E_CONFIG, SETTINGS_HINT, "fake settings are not valid JSON");
  int rc = parse_root(root, out, err);
  cJSON_Delete(root);
  if (rc != SBIO_OK) sbio__fake_settings_free(out);
  return rc;
}

void sbio__fake_settings_free(fake_settings *s) {
  for (size_t i = 0; i < s->n_scripts; i++) sbio__fake_script_free(&s->scripts[i]);
  free(s->scripts);
  free(s->sim.create_fails);
  free(s->sim.kill_fails);
  free(s->sim.connect_fails);
  free(s->call_log);
  memset(s, 0, sizeof *s);
}
