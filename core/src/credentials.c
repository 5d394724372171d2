/* SPDX-License-Identifier: MIT */
#include "credentials.h"

#include "config.h"
#include "host_internal.h"
#include "registry.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static int env_name_valid(const char *s) {
  if (!s || !s[0] || (s[0] >= '0' && s[0] <= '9')) return 0;
  for (; *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
  return 1;
}

static void add_name(struct sbio_backend_info *b, const char *name) {
  for (size_t i = 0; i < b->cred_vars.n; i++)
    if (strcmp(b->cred_vars.items[i], name) == 0) return;
  sbio__strlist_add(&b->cred_vars, name);
}

static int is_set(const char *var) {
  const char *v = getenv(var);
  return v && v[0];
}

/* The note's variables, and the text each declared credential setting
 * (daytona's api_key_env) holds in the configuration. */
static void resolve_names(struct sbio_backend_info *b) {
  b->cred_resolved = 1;
  for (size_t i = 0; i < b->meta.n_cred_env; i++) add_name(b, b->meta.cred_env[i]);
  if (!b->meta.n_cred_settings || !b->cfg || !b->cfg->settings_json) return;
  cJSON *settings = cJSON_Parse(b->cfg->settings_json);
  for (size_t i = 0; settings && i < b->meta.n_cred_settings; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(settings, b->meta.cred_settings[i]);
    if (!cJSON_IsString(v) || !v->valuestring[0]) continue;
    /* Both or neither: the lists are read by the same index. */
    if (sbio__strlist_add(&b->cred_setting_names, b->meta.cred_settings[i]) != 0) continue;
    if (sbio__strlist_add(&b->cred_setting_text, v->valuestring) != 0)
      free(b->cred_setting_names.items[--b->cred_setting_names.n]);
  }
  cJSON_Delete(settings);
}

/* A setting that names a credential variable holds a variable's name, or,
 * pasted into the wrong place, the credential itself: E2B's and Daytona's
 * keys (e2b_..., dtn_...) are valid variable names too. Only a variable
 * that is set is taken as a name: it is listed and its value learnt. Any
 * other text is learnt as a secret itself, so the backend's "the
 * environment variable X is not set" and every log line, audit event,
 * span and doctor listing show *** in its place. */
static void learn_setting_text(sbio_host *host, struct sbio_backend_info *b) {
  for (size_t i = 0; i < b->cred_setting_text.n; i++) {
    const char *text = b->cred_setting_text.items[i];
    if (env_name_valid(text) && is_set(text))
      add_name(b, text);
    else
      sbio__redactor_add(&host->redactor, text);
  }
}

void sbio__credentials_learn(sbio_host *host, struct sbio_backend_info *b) {
  if (!host || !b || !b->have_meta) return;
  if (!b->cred_resolved) resolve_names(b);
  learn_setting_text(host, b);
  for (size_t i = 0; i < b->cred_vars.n; i++) {
    const char *value = getenv(b->cred_vars.items[i]);
    if (value && value[0]) sbio__redactor_add(&host->redactor, value);
  }
}

/* A declared variable's name is public (the note shows it), so it may be
 * handed out even while unset. */
static int declared(const struct sbio_backend_info *b, const char *text) {
  for (size_t i = 0; i < b->meta.n_cred_env; i++)
    if (strcmp(b->meta.cred_env[i], text) == 0) return 1;
  return 0;
}

size_t sbio_backend_info_credential_setting_count(const sbio_backend_info *b) {
  return b ? b->cred_setting_names.n : 0;
}

const char *sbio_backend_info_credential_setting(const sbio_backend_info *b, size_t i, const char **var) {
  if (var) *var = NULL;
  if (!b || i >= b->cred_setting_names.n) return NULL;
  const char *text = b->cred_setting_text.items[i];
  if (var && (declared(b, text) || (env_name_valid(text) && is_set(text)))) *var = text;
  return b->cred_setting_names.items[i];
}
