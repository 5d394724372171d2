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

/* The note's variables, then those its settings name: a setting declared
 * as naming a credential variable (daytona's api_key_env) whose configured
 * value is a variable name. A value that is not one is the backend's to
 * refuse; nothing is read from it here. */
static void resolve_names(struct sbio_backend_info *b) {
  b->cred_resolved = 1;
  for (size_t i = 0; i < b->meta.n_cred_env; i++) add_name(b, b->meta.cred_env[i]);
  if (!b->meta.n_cred_settings || !b->cfg || !b->cfg->settings_json) return;
  cJSON *settings = cJSON_Parse(b->cfg->settings_json);
  for (size_t i = 0; settings && i < b->meta.n_cred_settings; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(settings, b->meta.cred_settings[i]);
    if (cJSON_IsString(v) && env_name_valid(v->valuestring)) add_name(b, v->valuestring);
  }
  cJSON_Delete(settings);
}

void sbio__credentials_learn(sbio_host *host, struct sbio_backend_info *b) {
  if (!host || !b || !b->have_meta) return;
  if (!b->cred_resolved) resolve_names(b);
  for (size_t i = 0; i < b->cred_vars.n; i++) {
    const char *value = getenv(b->cred_vars.items[i]);
    if (value && value[0]) sbio__redactor_add(&host->redactor, value);
  }
}
